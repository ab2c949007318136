"""What Claude sees when a session starts (startup, resume, clear, compact, fork).

A LiveHud with real values, then the memory of this project, fenced as reference data: the few most important
items in full (pinned, corrections, the last session's open work, recent decisions and preferences) and a compact
index of the rest (id, date, type, one line) that `rlm-mem get ID --depth full` expands. Before selecting, it
brings the derived index up to date, queues earlier sessions that were never captured, and starts a detached
worker (capture, gardening) when there is work; none of that waits.
"""
import os
import sys

FULL_ITEMS_BUDGET_CHARS = 2_400
INDEX_LINE_CHARS = 110
CONTEXT_BUDGET_CHARS = 7_000  # memory part; the HUD and framing add about 2,500


def _latest_session(rows):
    sessions = [r for r in rows if r.get("kind") == "session"]
    return max(sessions, key=lambda r: r.get("created") or "") if sessions else None


def _follow_up(row) -> str:
    if not row:
        return ""
    for line in (row.get("content") or "").split("\n"):
        if "Follow-ups:" in line:
            return line.split("Follow-ups:", 1)[1].split(";")[0].strip(" .")
    return ""


def _intent(row) -> str:
    if not row:
        return ""
    content = row.get("content") or ""
    if "Intent:" in content:
        return content.split("Intent:", 1)[1].split("\n")[0].split(" Files ")[0].split(" Outcome:")[0].strip(" .")
    return ""


def hud_text(root, inp, *, active: bool, rows=(), loaded=None, memory_status=None) -> str:
    from .capture_queue import pending_count
    from .depth import summary_line
    from .hooks import context_use
    from .hud import load_hud_state, render_hud

    rows = list(rows)
    last = _latest_session(rows)
    top = next((r for r in rows if r.get("kind") != "session"), None)
    past = _intent(last) or (summary_line({"content": top["content"], "metadata": {}}, 60) if top else "")
    present = _intent(last) if active and last else ""
    future = _follow_up(last) or next((summary_line({"content": r["content"], "metadata": {}}, 60)
                                       for r in rows if r.get("category") == "future"), "")
    return render_hud(session_active=active, state=load_hud_state(root), past=past or "Fresh session",
                      present=present, future=future, loaded=len(rows) if loaded is None else loaded,
                      pending=pending_count(root), context=context_use(inp.transcript_path),
                      memory_status=memory_status)


def _row_dict(row) -> dict:
    return {"id": row["id"], "content": row.get("content") or "", "type": row.get("type"),
            "metadata": {"created": row.get("created"), "title": row.get("title")}}


def render_memory(rows, project_name: str, total: int | None) -> str:
    from .depth import clip, summary_line

    if not rows:
        return ""
    lines = [f"Memory for project {project_name}: {len(rows)} items"
             + (f" of {total} stored" if total else "") + ". Expand any with `rlm-mem get ID --depth full`."]
    full, rest, used = [], [], 0
    for row in rows:
        important = row.get("pinned") or row.get("kind") in ("correction", "request", "session") or len(full) < 3
        text = " ".join((row.get("content") or "").split())
        if important and used + len(text) <= FULL_ITEMS_BUDGET_CHARS and len(full) < 8:
            full.append(row)
            used += len(text)
        else:
            rest.append(row)
    if full:
        lines.append("Most important:")
        for row in full:
            mark = "pinned " if row.get("pinned") else ""
            kind = row.get("kind") if row.get("kind") not in (None, "memory", "turn") else row.get("type")
            lines.append(f"- [{(row.get('created') or '')[:10]} · {row['id']} · {mark}{kind}] "
                         f"{clip(row.get('content') or '', 600)}")
    if rest:
        lines.append("Index (id · date · type · summary):")
        budget = CONTEXT_BUDGET_CHARS - sum(len(x) for x in lines)
        for row in rest:
            line = (f"- {row['id']} · {(row.get('created') or '')[:10]} · {row.get('type')} · "
                    f"{summary_line(_row_dict(row), 70)}")[:INDEX_LINE_CHARS]
            if budget - len(line) < 0:
                break
            lines.append(line)
            budget -= len(line) + 1
    return "\n".join(lines)


def background_work(root, inp) -> None:
    """Queue sessions that were never captured, start the capture worker and gardening when due. Never waits."""
    from .capture_queue import enqueue, pending_count, spawn_detached, uncaptured_siblings, worker_running

    try:
        for sid, path in uncaptured_siblings(root, inp.transcript_path, inp.session_id)[:20]:
            enqueue(root, sid, path, final=True)
    except OSError:
        return  # unwritable memory: the HUD says so; capture will hand out candidates at session end
    if pending_count(root) and not worker_running(root):
        spawn_detached(root, ["ingest", "--background"])
    try:
        from .garden_schedule import garden_due

        if garden_due(root):
            spawn_detached(root, ["garden", "--apply", "--if-due", "--quiet"])
    except Exception:  # gardening is optional at start; a broken plan must not cost the session its context
        pass


def build_session_context(root, project, inp, *, max_sensitivity: str = "medium") -> str:
    from .core import select_for_session
    from .fence import fence
    from .search_index import connect

    memory_status = None
    if os.path.isdir(root) and not os.access(root, os.W_OK):
        memory_status = "Inaccessible"
    else:
        from .search_index import is_stale

        if is_stale(root):  # files changed behind our back (a git pull, a crash): re-index just those months
            try:
                from .store import ChunkStore

                ChunkStore(root).sync_derived()
            except Exception as exc:  # a stale index still serves; doctor will tell
                sys.stderr.write(f"rlm-mem: index sync skipped: {exc}\n")
        background_work(root, inp)
    rows = select_for_session(root, project.id, max_sensitivity=max_sensitivity)
    total = None
    conn = connect(root, readonly=True)
    if conn is not None:
        try:
            total = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        finally:
            conn.close()
    active = inp.source in ("resume", "compact")
    hud = hud_text(root, inp, active=active, rows=rows, memory_status=memory_status)
    parts = ["rlm-mem LiveHud for this session (the rlm-mem skill shows it first):", hud]
    memory = render_memory(rows, project.name, total)
    if memory:
        parts.append(fence(memory, label="session-start"))
    elif not total:
        parts.append("rlm-mem: no memories stored yet for this project.")
    return "\n\n".join(parts)
