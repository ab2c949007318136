"""Seed 002's wisdom: what a project learned across its chapters, from what was captured, without a model.

- recurring errors and their fixes: the error -> fix learnings of its chapters ("Error: X — fixed by: Y": capture's
  learning memories and the learnings its session records name) grouped by the words of their error; an error met
  in two sessions or more is one entry, with every fix it was given;
- conventions that held: preferences and corrections still active that at least one later chapter worked under
  without replacing them (or that were used since);
- decisions never reversed: decisions still active (never superseded, contested or retracted) that later
  chapters lived with.
Computed with the chapters (chapters.refresh) and kept with them in index/narrative.json.
"""
from brain.narrative.sessions import SHOWN_LEVELS, topic_words
from brain.util.text import clip

SAME_ERROR = 0.5  # Jaccard of two errors' words from which they are one error met again
MAX_ITEMS = 15
LEARNING_SPLIT = " — fixed by: "


def _error_and_fix(content: str) -> tuple:
    """(error, fix) of a learning memory; a learning in other words is its own error with no fix named."""
    text = content[len("Error: "):] if content.startswith("Error: ") else content
    error, _, fix = text.partition(LEARNING_SPLIT)
    return error.strip(), fix.strip()


def error_words(content: str) -> set:
    """The words of a learning's error that tell it from another (no numbers: counts and lines change)."""
    return {w for w in topic_words(_error_and_fix(content)[0]) if not any(ch.isdigit() for ch in w)}


def same_error(a: set, b: set) -> bool:
    return bool(a and b) and len(a & b) / len(a | b) >= SAME_ERROR


def recurring_errors(rows, chapters) -> list:
    """Errors met in two sessions or more: rows are (id or None, conversation, content, created)."""
    groups = []
    for chunk_id, conversation, content, created in sorted(rows, key=lambda r: (r[3] or "", r[2])):
        error, fix = _error_and_fix(content)
        words = error_words(content)
        if not words:
            continue
        for group in groups:
            if same_error(words, group["words"]):
                break
        else:
            group = {"words": words, "error": clip(error, 200), "fixes": [], "conversations": [], "memories": [],
                     "first": created, "last": created}
            groups.append(group)
        if fix and fix not in group["fixes"]:
            group["fixes"].append(clip(fix, 200))
        if conversation not in group["conversations"]:
            group["conversations"].append(conversation)
        if chunk_id:
            group["memories"].append(chunk_id)
        group["last"] = max(group["last"] or "", created or "")
    out = []
    for group in groups:
        if len(group["conversations"]) < 2:
            continue
        where = [c["id"] for c in chapters if set(c["conversations"]) & set(group["conversations"])]
        out.append({"error": group["error"], "fixes": group["fixes"], "times": len(group["conversations"]),
                    "first": group["first"], "last": group["last"], "chapters": where, "memories": group["memories"]})
    return sorted(out, key=lambda e: (-e["times"], e["first"]))[:MAX_ITEMS]


def _files(fix: str) -> set:
    """The file names a fix names ("editing src/dates/formatter.py" -> formatter.py)."""
    names = (w.strip(".,;:()`'\"") for w in fix.split())
    return {w.rsplit("/", 1)[-1] for w in names if "/" in w or ("." in w and not w.endswith("."))}


def one_learning(a: str, b: str) -> bool:
    """Two learnings of one session that tell of one error: its words, or the files its fix edited."""
    return same_error(error_words(a), error_words(b)) or bool(_files(_error_and_fix(a)[1]) &
                                                              _files(_error_and_fix(b)[1]))


def learning_rows(conn, chapter: dict) -> list:
    """(id or None, conversation, content, created) of the error -> fix learnings made in the chapter's sessions,
    one per error of each session: those its records' outcomes name first (id None: the failing line and the
    files edited, from the transcript), then capture's learning memories that tell of another error."""
    rows = [(None, conversation, text, created) for conversation, created, text in chapter["session_learnings"]]
    conversations = chapter["conversations"]
    for start in range(0, len(conversations), 500):
        part = conversations[start:start + 500]
        for row in conn.execute(f"SELECT id, conversation_id, content, created FROM chunks WHERE kind='learning' "
                                f"AND status IN ('active', 'contested') AND sensitivity IN {SHOWN_LEVELS} "
                                f"AND conversation_id IN "
                                f"({','.join('?' * len(part))}) ORDER BY created, id", part).fetchall():
            if not any(other[1] == row[1] and one_learning(other[2], row[2]) for other in rows):
                rows.append(tuple(row))
    return rows


def _held(rows, chapters) -> list:
    """Rows (id, content, created, kind, access_count) that a later chapter lived with, or that were used since."""
    out = []
    for chunk_id, content, created, kind, uses in rows:
        after = sum(1 for c in chapters if c["start"] > created)
        if after or uses:
            out.append({"id": chunk_id, "text": clip(content, 200), "since": created, "kind": kind,
                        "chapters_since": after})
    return sorted(out, key=lambda e: (-e["chapters_since"], e["since"]))[:MAX_ITEMS]


def project_wisdom(conn, project, chapters) -> dict:
    """The wisdom of one project (None: memories without a project) from its chapters and its typed memories."""
    learned = [row for chapter in chapters for row in learning_rows(conn, chapter)]
    errors = recurring_errors(learned, chapters)
    typed = ("SELECT id, content, created, kind, access_count FROM chunks WHERE kind IN ({}) AND project IS ? "
             f"AND status='active' AND sensitivity IN {SHOWN_LEVELS} ORDER BY created, id")
    conventions = _held(conn.execute(typed.format("'preference', 'correction'"), (project,)).fetchall(), chapters)
    decisions = _held(conn.execute(typed.format("'decision'"), (project,)).fetchall(), chapters)
    start = min((c["start"] for c in chapters), default=None)
    end = max((c["end"] for c in chapters), default=None)
    summary = (f"{len(chapters)} chapter{'s' * (len(chapters) != 1)}"
               + (f" from {start[:10]} to {end[:10]}" if start else "")
               + f": {len(errors)} recurring error{'s' * (len(errors) != 1)} with their fixes, "
               f"{len(conventions)} convention{'s' * (len(conventions) != 1)} that held, "
               f"{len(decisions)} decision{'s' * (len(decisions) != 1)} never reversed.")
    insights = [f"{e['error']} came back {e['times']} times; fixed by: {'; '.join(e['fixes']) or 'not said'}"
                for e in errors]
    return {"project": project, "summary": summary, "insights": insights,
            "best_practices": [c["text"] for c in conventions], "recurring_errors": errors,
            "conventions": conventions, "decisions": decisions, "chapters": [c["id"] for c in chapters],
            "start": start, "end": end}


def empty(project) -> dict:
    """The wisdom of a project with no chapter yet."""
    return {"project": project, "summary": "No chapters yet: wisdom comes from sessions captured over time.",
            "insights": [], "best_practices": [], "recurring_errors": [], "conventions": [], "decisions": [],
            "chapters": [], "start": None, "end": None}
