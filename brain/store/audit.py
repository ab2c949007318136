"""Audit trail: every mutation appended as one JSON line to audit/YYYY-MM.jsonl, besides Python logging.

One file per month and append-only lines keep it cheap and merge-friendly when a team shares the store in git
(`.gitattributes`: `audit/*.jsonl merge=union`). Every string of an entry (a reason, an actor, details) is
redacted on its way to disk (`append_json_line`), and the log line says only what was written.
"""
import getpass
import json
import logging
import os
from pathlib import Path

from brain.store.validation import schema_errors
from brain.util.files import append_json_line, append_json_lines, read_bytes, rewrite_log
from brain.util.timestamps import utc_now

log = logging.getLogger("rlm_mem.audit")


def default_actor() -> str:
    actor = os.environ.get("RLM_MEM_ACTOR")
    if actor:
        return actor
    try:
        return f"user:{getpass.getuser()}"
    except Exception:  # getuser fails in some containers; the audit line must still be written
        return "user:unknown"


def audit(root: Path, action: str, chunk_id, *, actor: str | None = None, reason: str | None = None,
          details: dict | None = None) -> dict:
    entry = {"time": utc_now(), "action": action, "chunk_id": chunk_id, "actor": actor or default_actor(),
             "reason": reason}
    if details:
        entry["details"] = details
    entry = append_json_line(Path(root) / "audit" / f"{entry['time'][:7]}.jsonl", entry, rewritten=True)
    log.info("%s %s by %s%s", action, chunk_id, entry["actor"], f" ({entry['reason']})" if reason else "")
    return entry


def audit_many(root: Path, action: str, chunk_ids, *, actor: str | None = None, reason=None) -> None:
    """One line per chunk, like `audit`, appended in one write (a batch of thousands costs one open and write).
    `reason`: one for all, or a dict of chunk id -> reason."""
    if not chunk_ids:
        return
    when, actor = utc_now(), actor or default_actor()
    entries = [{"time": when, "action": action, "chunk_id": cid, "actor": actor,
                "reason": reason.get(cid) if isinstance(reason, dict) else reason} for cid in chunk_ids]
    append_json_lines(Path(root) / "audit" / f"{when[:7]}.jsonl", entries, rewritten=True)
    log.info("%s %d chunks by %s", action, len(chunk_ids), actor)


def read_audit(root: Path, chunk_id: str | None = None, action: str | None = None) -> list:
    out = []
    folder = Path(root) / "audit"
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else ():
        try:
            text = read_bytes(path).decode("utf-8", errors="replace")
        except OSError:
            continue  # a link or something that is not a file: `rlm-mem doctor` reports it
        for line in text.splitlines():
            if chunk_id and chunk_id not in line:
                continue  # one memory's history: skip parsing the other lines (100k+ in a large store)
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if not isinstance(entry, dict):
                continue
            if chunk_id and entry.get("chunk_id") != chunk_id:
                continue
            if action and entry.get("action") != action:
                continue
            out.append(entry)
    return out


def audit_entry(line: str) -> dict | None:
    """The entry one line of an audit log holds, or None when it holds none (not JSON, or not the schema's)."""
    try:
        entry = json.loads(line)
    except ValueError:
        return None
    return None if schema_errors("audit_entry", entry) else entry


def forget_kept_versions(root: Path, chunk_id: str) -> int:
    """Remove the audit lines that keep a losing version of `chunk_id` (sync's `details.lost`: text of the
    memory): it was deleted for good, and its text goes with it. The caller holds the store lock (a line appended
    meanwhile stays: files.rewrite_log). Returns how many lines went."""
    folder, removed = Path(root) / "audit", [0]

    def without(text: str):
        if chunk_id not in text or '"lost"' not in text:
            return None
        lines = text.splitlines(keepends=True)
        kept = [line for line in lines if kept_version_of(line) != chunk_id]
        removed[0] += len(lines) - len(kept)
        return "".join(kept) if len(kept) < len(lines) else None

    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else ():
        try:
            rewrite_log(path, without)
        except OSError:
            continue  # a link or something that is not a file: `rlm-mem doctor` reports it
    return removed[0]


def kept_version_of(line: str) -> str | None:
    """The memory whose losing version an audit line keeps (sync's `details.lost`, text of the memory), or None."""
    if '"lost"' not in line:
        return None
    try:
        entry = json.loads(line)
    except ValueError:
        return None
    if not isinstance(entry, dict) or "lost" not in (entry.get("details") or {}):
        return None
    return entry.get("chunk_id") if isinstance(entry.get("chunk_id"), str) else None
