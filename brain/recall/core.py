"""What a session starts with, and the CORE digest: the most salient memories, chosen by one ranking.

Priority (seed 001's "5-35 relevant memories" at session start, seed 003's CORE.md):
pinned → corrections → recent decisions and preferences → the last session's record (its open follow-ups) →
the most salient of the rest (brain.store.salience) → recent conversation turns, only to reach `min_items`.

Runs inside the SessionStart hook, so it reads only index/search.db and only through indexed queries with LIMITs:
each group is a short walk down an index (kind+created, pinned, last_accessed, access_count), and salience is
computed in Python on the few hundred rows those walks return, never on the whole store. Stdlib only.
"""
import os
from datetime import datetime, timezone

from brain.cpython.fast import sqlite3
from brain.index.search_index import connect
from brain.recall.depth import summary_line
from brain.store import sensitivity
from brain.store.salience import ARCHIVE_BELOW, FADING, salience
from brain.util import fastjson
from brain.util.files import atomic_write_json, atomic_write_text
from brain.util.tokens import estimate_tokens

DEFAULT_SESSION_BUDGET = 3000
ROW_TOKEN_CAP = 200  # a long memory is shown clipped or as one index line, so it costs at most this much
PINNED_CAP = 100  # pinned always show; this only bounds a store where someone pinned everything
CORRECTIONS_MAX = 5
DECISIONS_MAX = 6
POOL = 40  # rows read per index walk for the salient pool
RECORD_KINDS = ("turn", "session")
# Kinds a person or a trigger chose to keep (everything but the verbatim record).
CHOSEN_KINDS = ("memory", "request", "correction", "decision", "preference", "consolidated", "learning",
                "milestone")

CORE_NAME = "CORE.md"
CORE_BUDGET_TOKENS = 3000
CORE_MAX_CHARS = 12_000  # seed 003: ~3K tokens, never above 12,000 characters
CORE_SECTION_CAP = 15
CORE_SECTIONS = (("pinned", "Pinned"), ("correction", "Corrections"), ("decision", "Decisions"),
                 ("preference", "Preferences"), ("session", "Last session"), ("pattern", "Patterns"),
                 ("fact", "Facts"), ("note", "Notes"))


def _now(now) -> datetime:
    now = now or datetime.now(timezone.utc)
    return now if now.tzinfo else now.replace(tzinfo=timezone.utc)


_LIGHT = ("id, created, type, kind, role, project, scope, conversation_id, confidence, importance, pinned, status, "
          "sensitivity, category, tokens, access_count, last_accessed, tags")


class _Reader:
    """Indexed queries over the eligible rows: active or contested (shown marked; never superseded or retracted),
    sensitivity up to the limit, and when a project is given: this project's, those without a project, and the person's own
    from any project (scope user or global)."""

    def __init__(self, conn, project, allowed, now):
        self.conn, self.now = conn, now
        marks = ",".join("?" * len(allowed))
        self.where = f"status IN ('active', 'contested') AND sensitivity IN ({marks})"
        self.params = list(allowed)
        if project:
            # unary + keeps the planner off the project index (an OR over it, then a sort of every match) and on
            # the index that serves each query's ORDER BY ... LIMIT
            self.where += " AND (+project=? OR +project IS NULL OR +scope IN ('user', 'global'))"
            self.params.append(project)

    def rows(self, extra: str, params, order: str, limit: int, *, full: bool = False) -> list:
        """Matching rows with `salience` added; without `full`, content and file columns are left out (reading a
        few hundred long contents to keep thirty-five would cost more than the whole ranking)."""
        columns = "*" if full else _LIGHT
        sql = f"SELECT {columns} FROM chunks WHERE {extra} AND {self.where} ORDER BY {order} LIMIT ?"
        out = []
        for row in self.conn.execute(sql, (*params, *self.params, limit)):
            d = dict(row)
            d.pop("rowid", None)
            d["salience"] = salience(d, self.now)
            out.append(d)
        return out

    def complete(self, rows: list) -> list:
        """The same rows with every search-db column."""
        ids = [r["id"] for r in rows]
        full = {}
        for start in range(0, len(ids), 500):
            part = ids[start:start + 500]
            for row in self.conn.execute(f"SELECT * FROM chunks WHERE id IN ({','.join('?' * len(part))})", part):
                d = dict(row)
                d.pop("rowid", None)
                full[d["id"]] = d
        return [dict(r, **full[r["id"]]) for r in rows if r["id"] in full]


def _gather(reader: _Reader, pool: int) -> list:
    """[(why, rows)] in priority order; a row may appear in several groups (the first one wins)."""
    chosen = {kind: reader.rows("kind=?", (kind,), "created DESC", pool) for kind in CHOSEN_KINDS}
    live = lambda rows: [r for r in rows if r["salience"] >= ARCHIVE_BELOW]  # noqa: E731
    pinned = reader.rows("pinned=1", (), "created DESC", PINNED_CAP)
    corrections = live(chosen["correction"])[:CORRECTIONS_MAX]
    decided = [r for rows in chosen.values() for r in rows
               if r["kind"] in ("decision", "preference") or r["type"] in ("decision", "preference")]
    decided = sorted(live(decided), key=lambda r: (r["created"], r["id"]), reverse=True)[:DECISIONS_MAX]
    session = reader.rows("kind='session'", (), "created DESC", 1)
    used = reader.rows("last_accessed IS NOT NULL AND kind NOT IN ('turn','session')", (),
                       "last_accessed DESC", pool)
    used += reader.rows("access_count > 0 AND kind NOT IN ('turn','session')", (), "access_count DESC", pool // 2)
    pool_rows = {r["id"]: r for rows in (*chosen.values(), used) for r in rows}
    salient = sorted(live(pool_rows.values()), key=lambda r: (r["salience"], r["created"]), reverse=True)
    return [("pinned", pinned), ("correction", corrections), ("decision", decided), ("session", session),
            ("salient", salient)]


def _connect(root):
    conn = connect(root, readonly=True, mapped=True)
    if conn is not None:
        conn.row_factory = sqlite3.Row
    return conn


def select_for_session(root, project, *, max_items: int = 35, min_items: int = 5,
                       budget_tokens: int = DEFAULT_SESSION_BUDGET, max_sensitivity: str = "medium",
                       now: datetime | None = None) -> list:
    """Rows (dicts of search-db columns plus `salience` and `why`) to show at session start, best first.

    Pinned rows are always included (they count against the budget but are never cut by it). Others are taken in
    priority order while they fit `budget_tokens` (each row costs its tokens, at most ROW_TOKEN_CAP) and
    `max_items`; below `min_items`, the budget gives way. Reads only; recording what was shown is the caller's.
    """
    allowed = sensitivity.allowed(max_sensitivity)
    try:
        conn = _connect(root)
    except sqlite3.Error:
        return []
    if conn is None:
        return []
    try:
        return _select(conn, project, allowed, _now(now), max_items, min_items, budget_tokens)
    except sqlite3.Error:  # a damaged or half-migrated index: start the session without memory, never fail it
        return []
    finally:
        conn.close()


def _select(conn, project, allowed, now, max_items, min_items, budget_tokens) -> list:
    reader = _Reader(conn, project, allowed, now)
    groups = _gather(reader, POOL)
    taken, seen, spent = [], set(), 0
    for why, rows in groups:
        for row in rows:
            if row["id"] in seen:
                continue
            cost = min(int(row["tokens"] or 0), ROW_TOKEN_CAP)
            if why != "pinned":
                if len(taken) >= max_items:
                    break
                if spent + cost > budget_tokens and len(taken) >= min_items:
                    continue  # a smaller one further down may still fit
            taken.append(dict(row, why=why))
            seen.add(row["id"])
            spent += cost
    if len(taken) < min_items:  # a young store holds little but conversation: its latest turns keep continuity
        for row in reader.rows("kind='turn'", (), "created DESC", min_items):
            if row["id"] not in seen and len(taken) < min_items:
                taken.append(dict(row, why="recent_turn"))
                seen.add(row["id"])
    return reader.complete(taken)


# ---------------------------------------------------------------- CORE digest
def _section_of(why: str, row: dict) -> str:
    if why == "pinned":
        return "pinned"
    if row["kind"] == "correction":
        return "correction"
    if row["kind"] == "session":
        return "session"
    if row["kind"] in ("decision", "preference"):
        return row["kind"]
    return row["type"] if row["type"] in dict(CORE_SECTIONS) else "note"


def _line(row: dict) -> str:
    summary = summary_line({"content": row["content"], "metadata": {}}, 100)
    tags = [t for t in (row.get("tags") or "").split() if t != row.get("kind")][:3]
    contested = " [contested]" if row.get("status") == "contested" else ""
    return f"- {summary}{contested}" + (f" ({', '.join(tags)})" if tags else "") + f" · {row['id']}"


def build_core(root, project=None, *, budget_tokens: int = CORE_BUDGET_TOKENS, max_sensitivity: str = "medium",
               now: datetime | None = None) -> dict:
    """The CORE digest: salient memories grouped by kind and type, at most `budget_tokens` (estimated) and
    CORE_MAX_CHARS characters, CORE_SECTION_CAP lines per section. Dormant memories (score < 0.2) stay out
    unless pinned. Returns {"text", "sections", "tokens", "chars", ...}."""
    now = _now(now)
    allowed = sensitivity.allowed(max_sensitivity)
    char_limit = min(CORE_MAX_CHARS, budget_tokens * 4)
    header = ["# Memory Core (auto-generated)"]
    conn = _connect(root)
    if conn is None:
        groups, stored, memories = [], 0, 0
    else:
        try:
            reader = _Reader(conn, project, allowed, now)
            groups = [(why, reader.complete(rows)) for why, rows in _gather(reader, POOL * 4)]
            stored = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
            memories = conn.execute("SELECT count(*) FROM chunks WHERE kind != 'turn'").fetchone()[0]
        finally:
            conn.close()
    header.append(f"> Updated {now.strftime('%Y-%m-%d %H:%M')} UTC | memories: {memories} (of {stored} chunks)"
                  + (f" | project: {project}" if project else "") + " | expand: `rlm-mem get ID`")
    sections = {key: [] for key, _ in CORE_SECTIONS}
    seen, lines_text = set(), "\n".join(header)
    for why, rows in groups:
        for row in rows:
            if row["id"] in seen or (why != "pinned" and row["salience"] < FADING):
                continue
            key = _section_of(why, row)
            if len(sections[key]) >= CORE_SECTION_CAP:
                continue
            title = dict(CORE_SECTIONS)[key]
            addition = ("" if sections[key] else f"\n\n## {title}") + "\n" + _line(row)
            candidate = lines_text + addition
            if len(candidate) + 1 > char_limit or estimate_tokens(candidate + "\n") > budget_tokens:
                continue
            lines_text = candidate
            seen.add(row["id"])
            sections[key].append({"id": row["id"], "line": _line(row), "salience": round(row["salience"], 4),
                                  "created": row["created"], "kind": row["kind"], "type": row["type"]})
    # Render in section order (the budget above was spent in priority order; the total length is the same).
    parts = list(header)
    for key, title in CORE_SECTIONS:
        if sections[key]:
            parts += ["", f"## {title}"] + [item["line"] for item in sections[key]]
    if not seen:
        parts += ["", "No memories yet."]
    text = "\n".join(parts) + "\n"
    return {"generated": now.strftime("%Y-%m-%dT%H:%M:%SZ"), "project": project, "budget_tokens": budget_tokens,
            "tokens": estimate_tokens(text), "chars": len(text), "items": len(seen),
            "sections": [{"key": k, "title": t, "items": sections[k]} for k, t in CORE_SECTIONS if sections[k]],
            "text": text}


def write_core(root, text: str, *, project=None, budget_tokens: int = CORE_BUDGET_TOKENS):
    """Save CORE.md in the memory root, and how it was made (state/core.json) so gardening can refresh it."""
    path = os.path.join(os.fspath(root), CORE_NAME)
    atomic_write_text(path, text)
    atomic_write_json(os.path.join(os.fspath(root), "state", "core.json"),
                      {"project": project, "budget_tokens": budget_tokens})
    return path


def read_core_settings(root) -> dict:
    """{"project", "budget_tokens"} recorded by write_core (defaults when absent or damaged)."""
    try:
        with open(os.path.join(os.fspath(root), "state", "core.json"), encoding="utf-8") as fh:
            value = fastjson.loads(fh.read())
        return {"project": value.get("project") if isinstance(value.get("project"), str) else None,
                "budget_tokens": int(value.get("budget_tokens") or CORE_BUDGET_TOKENS)}
    except (OSError, ValueError, AttributeError, TypeError):
        return {"project": None, "budget_tokens": CORE_BUDGET_TOKENS}
