"""What Claude sees when a session starts (startup, resume, clear, compact, fork).

A LiveHud with real values, then the memory of this project, fenced as reference data: the few most important
items in full (pinned, corrections, the last session's open work, recent decisions and preferences) and a compact
index of the rest (id, date, type, one line) that `rlm-mem get ID --depth full` expands. It also queues earlier
sessions that were never captured and starts a detached worker (capture, gardening) when there is work; none of
that waits. The selection is kept in state/brief/ and reused while no chunk file changed (one stat per month
folder tells), so a typical start costs no SQLite and no ranking.
"""
import os
import sys
import time

from brain.capture.queue import pending_count
from brain.context.project import ProjectInfo
from brain.cpython.fast import sha256
from brain.hud.render import render_hud
from brain.hud.state import load_hud_state
from brain.index.fingerprint import month_fingerprint
from brain.session.usage import session_view
from brain.sync.status import behind_note
from brain.util.files import atomic_write_json, read_json
from brain.util.text import clip

FULL_ITEMS_BUDGET_CHARS = 2_400
FULL_ITEMS_MAX = 8
FULL_ITEM_CHARS = 600  # an item in full is clipped to this (and counts this much of the budget)
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


def gauges(rows) -> dict:
    """The LiveHud's Past / intent / Future from the selected rows (last session record first)."""
    from brain.recall.depth import summary_line  # a brief to compute: not on a reused brief's path

    rows = list(rows)
    last = _latest_session(rows)
    top = next((r for r in rows if r.get("kind") != "session"), None)
    past = _intent(last) or (summary_line({"content": top["content"], "metadata": {}}, 60) if top else "")
    future = _follow_up(last) or next((summary_line({"content": r["content"], "metadata": {}}, 60)
                                       for r in rows if r.get("category") == "future"), "")
    return {"past": past, "intent": _intent(last), "future": future, "loaded": len(rows)}


def memory_writable(root) -> bool:
    """Whether memory can be written at `root`: it is a writable folder, or the nearest folder above it that exists
    is (so it can be made). A file in the way, or no permission, is "Inaccessible" in the LiveHud."""
    path = os.path.abspath(os.fspath(root))
    while not os.path.exists(path):
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent
    return os.path.isdir(path) and os.access(path, os.W_OK | os.X_OK)


def hud_text(root, inp, *, active, brief: dict, memory_status=None) -> str:
    """The LiveHud of this session: `active` True (a session under way), False (one starting) or None (drawn
    outside any session: `rlm-mem hud` in a shell). Present, Tools and Context come from the session's
    transcript; Past and Future from the brief."""
    view = session_view(inp.transcript_path)
    if memory_status is None and not memory_writable(root):
        memory_status = "Inaccessible"
    return render_hud(session_active=active, state=load_hud_state(root), past=brief.get("past") or "Fresh session",
                      present=view["task"], future=brief.get("future", ""), loaded=brief.get("loaded", 0),
                      pending=pending_count(root), context=view["context"], tools=view["tools"],
                      memory_status=memory_status, sync_note=behind_note(root))


def _row_dict(row) -> dict:
    return {"id": row["id"], "content": row.get("content") or "", "type": row.get("type"),
            "metadata": {"created": row.get("created"), "title": row.get("title")}}


_RECORD_FIELDS = ("Intent", "Files changed", "Files read", "Commands", "Outcome", "Follow-ups", "Rewound")
_RECORD_ORDER = (("Intent", 160), ("Follow-ups", 320), ("Outcome", 240))  # shown fields, each clipped to...


def _record_in_full(text: str) -> str:
    """A session record as the brief shows it in full: what was asked, what is left open and how it ended, in
    FULL_ITEM_CHARS. Files and commands go first when it is longer (they are in `rlm-mem get`): clipped at its end,
    a long record lost its follow-ups, the open work a new session needs most. (No `re`: SessionStart's path.)"""
    text = " ".join(text.split())
    if len(text) <= FULL_ITEM_CHARS:
        return text
    starts = sorted(at for at in (text.find(f" {name}: ") for name in _RECORD_FIELDS) if at >= 0)
    head = text[:starts[0]] if starts else text
    fields = {}
    for at, end in zip(starts, starts[1:] + [len(text)]):
        name, _, value = text[at + 1:end].partition(": ")
        fields[name] = value
    return " ".join([head] + [f"{name}: {clip(fields[name], size)}" for name, size in _RECORD_ORDER
                              if fields.get(name)])


def render_memory(rows, project_name: str, total: int | None, changes=()) -> str:
    """The brief's memory part: the most important rows in full, the latest value changes (`changes`, from
    recall/current.current_values) quoted, then an index of the rest, within CONTEXT_BUDGET_CHARS."""
    from brain.recall.render import RecallResult  # only when a brief is computed, not reused
    from brain.recall.depth import summary_line  # only when a brief is computed, not reused

    if not rows:  # other projects' memory can still be recalled here, in the compact form the legend explains
        return f"Memory for project {project_name}: none yet. {RecallResult.LEGEND}" if total else ""
    lines = [f"Memory for project {project_name}: {len(rows)} items"
             + (f" of {total} stored" if total else "") + ". Expand any with `rlm-mem get ID --depth full`.",
             RecallResult.LEGEND]
    # The last session's record (what was done, what is left open) is chosen first: in a store with many pinned
    # memories and corrections it came after them and fell to a one-line index entry, its open work unseen.
    latest = _latest_session(rows)
    chosen, used = set(), 0
    for row in ([latest] if latest else []) + [r for r in rows if r is not latest]:
        important = row.get("pinned") or row.get("kind") in ("correction", "request", "session") or len(chosen) < 3
        shown = min(len(" ".join((row.get("content") or "").split())), FULL_ITEM_CHARS)
        if important and used + shown <= FULL_ITEMS_BUDGET_CHARS and len(chosen) < FULL_ITEMS_MAX:
            chosen.add(row["id"])
            used += shown
    full = [row for row in rows if row["id"] in chosen]
    rest = [row for row in rows if row["id"] not in chosen]
    if full:
        lines.append("Most important:")
        for row in full:
            mark = ("pinned " if row.get("pinned") else "") + ("contested " if row.get("status") == "contested" else "")
            kind = row.get("kind") if row.get("kind") not in (None, "memory", "turn") else row.get("type")
            content = row.get("content") or ""
            content = _record_in_full(content) if row.get("kind") == "session" else content
            lines.append(f"- [{(row.get('created') or '')[:10]} · {row['id']} · {mark}{kind}] "
                         f"{clip(content, FULL_ITEM_CHARS)}")
    changes = [change for change in changes if change["id"] not in chosen]
    if changes:  # what holds now, where it changed: the memory's own sentence, the value it replaced, the day
        lines.append("Values changed lately (newest first):")
        for change in changes:
            was = "; ".join(clip(old, 40) for old in change["was"][:2])
            now = "; ".join(clip(new, 40) for new in change.get("now", ())[:2])
            said = f" ({'now: ' + now + '; ' if now else ''}replaced: {was})" if was else ""  # a change memory says
            lines.append(f"- [{change['at'][:10]} · {change['id']}] {change['text']}{said}")
    if rest:
        lines.append("Index (id · date · type · summary):")
        budget = CONTEXT_BUDGET_CHARS - sum(len(x) for x in lines)
        for row in rest:
            kind = f"{row.get('type')} [contested]" if row.get("status") == "contested" else row.get("type")
            line = (f"- {row['id']} · {(row.get('created') or '')[:10]} · {kind} · "
                    f"{summary_line(_row_dict(row), 70)}")[:INDEX_LINE_CHARS]
            if budget - len(line) < 0:
                break
            lines.append(line)
            budget -= len(line) + 1
    return "\n".join(lines)


BRIEF_FORMAT = 7  # 2: recall's legend; 3: the last session in full; 4: its open work first; 5: values changed
# lately; 6: contested memories shown, marked; 7: values changed quoted from the change memories. Older: recomputed
BRIEF_MAX_AGE = 6 * 3600  # salience drifts with time: recompute at least this often even when nothing changed


def _brief_path(root, project_id: str, max_sensitivity: str) -> str:
    # Named by a hash of the project's id: a name that holds none of the id's words needs no redaction, so a
    # start served from its cached brief loads no secret check (~0.3 ms).
    name = sha256(project_id.encode("utf-8", "surrogateescape")).hexdigest()[:20]
    return os.path.join(os.fspath(root), "state", "brief", f"{name}.{max_sensitivity}.json")


def _store_fingerprint(root) -> str:
    return repr(sorted(month_fingerprint(root).items()))


def cached_brief(root, project_id: str, max_sensitivity: str):
    """The brief computed at an earlier start, if no chunk file came, went or changed since (None otherwise).

    The check is one stat per month folder: a cache hit costs no SQLite, no ranking, no regex."""
    try:
        brief = read_json(_brief_path(root, project_id, max_sensitivity))
    except (OSError, ValueError):
        return None
    if not isinstance(brief, dict) or brief.get("format") != BRIEF_FORMAT \
            or time.time() - float(brief.get("made", 0)) > BRIEF_MAX_AGE:
        return None
    return brief if brief.get("fingerprint") == _store_fingerprint(root) else None


SYNC_LOCK_WAIT = 0.3  # seconds a session start may wait for a writer before serving the index as it is


def compute_brief(root, project, *, max_sensitivity: str, lock_wait: float = SYNC_LOCK_WAIT) -> dict:
    """Select and render this project's memory for a session start (the live path).

    If the index is stale and cannot be brought up to date at once (a writer holds the store, e.g. the capture
    worker that SessionEnd just started), the brief is served from the index as it is and marked not to be kept."""
    from brain.index.search_index import chunk_count, connect, is_stale, staleness  # SQLite: a brief to compute
    from brain.recall.core import select_for_session  # a brief to compute: not on a reused brief's path
    from brain.recall.current import current_values  # a brief to compute: not on a reused brief's path
    from brain.store.sensitivity import allowed  # a brief to compute: not on a reused brief's path
    from brain.cpython.fast import sqlite3  # a brief to compute: not on a reused brief's path
    from brain.safety.fence import fence  # a brief to compute: not on a reused brief's path

    fresh = True
    why = staleness(root)
    if why in ("layout", "damaged"):  # an older rlm-mem's, missing, or not a database: the detached worker
        from brain.session.background import start_worker  # rare: an index to rebuild

        start_worker(root)
        fresh = False
    elif why:  # files changed behind our back (a git pull, a crash): re-index just those months
        try:
            from brain.store.chunk_store import ChunkStore  # rare: files changed behind rlm-mem's back

            ChunkStore(root, lock_timeout=lock_wait).sync_derived()
        except Exception as exc:  # a stale index still serves; the next start (or the worker) refreshes it
            sys.stderr.write(f"rlm-mem: index sync deferred: {exc}\n")
        fresh = not is_stale(root)
    fingerprint = _store_fingerprint(root) if fresh else None  # None: never matches, so never reused
    damaged = why == "damaged"  # nothing to read until the worker has rebuilt it: the HUD still shows
    rows = [] if damaged else select_for_session(root, project.id, max_sensitivity=max_sensitivity)
    total, changes = None, []
    conn = None if damaged else connect(root, readonly=True, mapped=True)
    if conn is not None:
        try:
            total = chunk_count(conn)  # a kept count: count(*) costs 3 ms at 100k chunks (bench/run.py)
            changes = current_values(conn, project.id, allowed(max_sensitivity))
        except sqlite3.OperationalError:  # an index an older rlm-mem made (no changes table) until it is rebuilt
            pass
        finally:
            conn.close()
    memory = render_memory(rows, project.name, total, changes)
    brief = dict(gauges(rows), format=BRIEF_FORMAT, total=total or 0, made=time.time(), fingerprint=fingerprint,
                 memory=fence(memory, label="session-start") if memory else "",
                 project=[project.id, project.name], max_sensitivity=max_sensitivity)
    return brief


def refresh_briefs(root, *, project_id: str | None = None, stale_only: bool = False) -> int:
    """Recompute every brief a session start has asked for (after capture, gardening or `remember` changed the
    store), so the next session start finds it ready: those of `project_id` only when given, and with
    `stale_only` only those the store changed under. Run by the detached worker or a command, never by a hook."""
    folder = os.path.join(os.fspath(root), "state", "brief")
    try:
        names = [n for n in os.listdir(folder) if n.endswith(".json")]
    except OSError:
        return 0
    done = 0
    for name in names:
        try:
            old = read_json(os.path.join(folder, name))
            pid, project_name = old["project"]
            level = old["max_sensitivity"]
        except (OSError, ValueError, KeyError, TypeError):
            continue  # an older or damaged brief: the next session start rebuilds it
        if (project_id is not None and pid != project_id) or \
                (stale_only and cached_brief(root, pid, level) is not None):
            continue
        project = ProjectInfo(pid, project_name, None, "brief")
        save_brief(root, pid, level, compute_brief(root, project, max_sensitivity=level, lock_wait=20))
        done += 1
    return done


def save_brief(root, project_id: str, max_sensitivity: str, brief: dict) -> None:
    if brief.get("fingerprint") is None:
        return  # made from a stale index: do not keep it

    try:
        atomic_write_json(_brief_path(root, project_id, max_sensitivity), brief, indent=None, fsync=False)
    except (OSError, ValueError):
        pass  # a cache: the next start computes it again


def current_brief(root, project, *, max_sensitivity: str = "medium", writable: bool = True) -> dict:
    brief = cached_brief(root, project.id, max_sensitivity)
    if brief is None:
        brief = compute_brief(root, project, max_sensitivity=max_sensitivity)
        if writable:
            save_brief(root, project.id, max_sensitivity, brief)
    return brief


# One instruction, outside the fence (the fence holds reference data): when the model records, and with which
# command. The command is the rlm-mem skill's (SKILL.md gives its path), which the skill pre-approves.
RECORD_INSTRUCTION = ("rlm-mem: when a decision is made, a value changes or the person corrects you, record it "
                      "with the rlm-mem skill's command: `remember \"...\" --type decision`, or `supersede ID "
                      "\"what holds now\"` when it replaces a memory shown here (ID: its 8-hex tail).")


def build_session_context(root, project, inp, *, max_sensitivity: str = "medium") -> str:
    memory_status = None
    if not memory_writable(root):
        memory_status = "Inaccessible"
    else:
        from brain.session.background import (  # queue earlier sessions, start the worker
            at_session_start,
            wait_for_capture,
        )

        if not at_session_start(root, inp.transcript_path, inp.session_id, project):
            memory_status = "Inaccessible"
        else:  # another project's session that just ended is captured first: the person's own memories from it
            wait_for_capture(root, project.id)
    brief = current_brief(root, project, max_sensitivity=max_sensitivity, writable=memory_status is None)
    active = inp.source in ("resume", "compact")
    hud = hud_text(root, inp, active=active, brief=brief, memory_status=memory_status)
    parts = ["rlm-mem LiveHud for this session (the rlm-mem skill shows it first):", hud]
    if memory_status is None:  # memory can be written: say how the model adds to it
        parts.append(RECORD_INSTRUCTION)
    if brief.get("memory"):
        parts.append(brief["memory"])
    elif not brief.get("total"):
        parts.append("rlm-mem: no memories stored yet for this project.")
    return "\n\n".join(parts)
