"""The episode log (seed 003): `episodes/YYYY-MM-DD.md` in the memory folder, one file per day, append-only.

Each entry is a session record, a notable memory or a gardening run, linking the chunk it is about:

    ## 14:05 - Chose SQLite FTS5 over a vector store
    - **Type:** decision
    - **Tags:** recall, sqlite
    - **Memory:** [chunk-2026-02-10-a1b2c3d4](../chunks/2026-02/chunk-2026-02-10-a1b2c3d4.json)
    - **Summary:** FTS5 ships with Python; no server, no model download

Entries are written with one O_APPEND write, so concurrent writers never interleave; a day's file comes into being
with its heading already in it (linked into place from a temp file), so the heading is written once and first
(brain/util/files.append_text, which also redacts). Lines are never edited; the
one exception is a memory deleted for good, whose entry goes with it (`forget_episode`). Stdlib only: capture
imports this.
"""
import re
from datetime import datetime, timezone
from pathlib import Path

from brain.safety.redact import redact
from brain.store.chunk import is_chunk_id, month_of
from brain.util.files import append_text, read_text, rewrite_log
from brain.util.text import clip
from brain.util.timestamps import normalize_timestamp

EPISODES_DIR = "episodes"
_TITLE_MAX = 120
_SUMMARY_MAX = 300
_ENTRY_HEAD = re.compile(r"^## (\d{2}:\d{2}) - (.*)$")


def _one_line(text, limit: int) -> str:
    # redacted before it is clipped: a secret cut in half would no longer look like one
    return clip(redact(str(text or "")), limit)


def episode_path(root, day: str) -> Path:
    return Path(root) / EPISODES_DIR / f"{day}.md"


def append_episode(root, when, title, chunk_id=None, type=None, tags=(), summary=None) -> Path | None:  # noqa: A002
    """Append one entry to the day of `when` (ISO time or datetime, UTC). Returns the file, or None when the
    entry for this chunk is already there (capturing a session twice logs it once)."""
    stamp = normalize_timestamp(when or datetime.now(timezone.utc))
    day = stamp[:10]
    path = episode_path(root, day)
    if chunk_id and not is_chunk_id(chunk_id):
        raise ValueError("invalid chunk id (expected chunk-YYYY-MM-DD-<8 hex digits>)")
    if chunk_id and f"[{chunk_id}]" in read_text(path):
        return None
    lines = ["", f"## {stamp[11:16]} - {_one_line(title, _TITLE_MAX) or 'Untitled'}"]
    if type:
        lines.append(f"- **Type:** {_one_line(type, 40)}")
    tags = [t for t in (tags or ()) if t]
    if tags:
        lines.append(f"- **Tags:** {_one_line(', '.join(tags), 200)}")
    if chunk_id:
        lines.append(f"- **Memory:** [{chunk_id}](../chunks/{month_of(chunk_id)}/{chunk_id}.json)")
    if summary:
        lines.append(f"- **Summary:** {_one_line(summary, _SUMMARY_MAX)}")
    append_text(path, "\n".join(lines) + "\n", create_with=f"# {day}\n", rewritten=True)
    return path


def forget_episode(root, chunk_id: str) -> int:
    """Remove the entries about `chunk_id` (it was deleted for good: its summary must not outlive it); the day's
    file is rewritten atomically, the caller holding the store lock (an entry appended meanwhile stays:
    files.rewrite_log). Returns how many entries were removed."""
    folder = Path(root) / EPISODES_DIR
    removed = [0]

    def without(text: str):
        if f"[{chunk_id}]" not in text:
            return None
        blocks = text.split("\n\n")  # the day's heading, then one block per entry
        kept = [b for b in blocks if f"[{chunk_id}]" not in b]
        removed[0] += len(blocks) - len(kept)
        return "\n\n".join(kept).rstrip("\n") + "\n"

    for path in sorted(folder.glob("????-??-??.md")) if folder.is_dir() else ():
        rewrite_log(path, without)
    return removed[0]


def read_episodes(root, since: str | None = None) -> list:
    """Entries as dicts (day, time, title, type, tags, chunk_id, summary), oldest first."""
    folder = Path(root) / EPISODES_DIR
    out = []
    for path in sorted(folder.glob("????-??-??.md")) if folder.is_dir() else ():
        day = path.stem
        if since and day < since[:10]:
            continue
        entry = None
        try:
            text = read_text(path)
        except OSError:
            continue  # a link or something that is not a file: `rlm-mem doctor` reports it
        for line in text.splitlines():
            head = _ENTRY_HEAD.match(line)
            if head:
                entry = {"day": day, "time": head.group(1), "title": head.group(2), "type": None, "tags": [],
                         "chunk_id": None, "summary": None}
                out.append(entry)
            elif entry is not None and line.startswith("- **"):
                field, _, value = line[4:].partition(":** ")
                if field == "Type":
                    entry["type"] = value
                elif field == "Tags":
                    entry["tags"] = [t.strip() for t in value.split(",") if t.strip()]
                elif field == "Memory":
                    m = re.match(r"\[([^\]]+)\]", value)
                    entry["chunk_id"] = m.group(1) if m else None
                elif field == "Summary":
                    entry["summary"] = value
    return out
