"""Access statistics without rewriting chunk files on every read.

A recall appends one line (time + ids) to index/access_log.jsonl with a single O_APPEND write: no lock, no
rewrite. `get` and `list` add the pending counts to what the chunk files say, so what they report stays true;
`fold` writes the accumulated counts into the chunk files in one batch (on reindex, garden, ingest, or when the
log grows past FOLD_THRESHOLD lines) so a read-mostly week does not churn a git history.
"""
import os
import time

from brain.context.project import find_git
from brain.util import fastjson
from brain.util.files import append_json_line, append_line, atomic_write_json

LOG_NAME = "access_log.jsonl"
FOLD_THRESHOLD = 2000


def log_path(root):
    from pathlib import Path  # record_access runs in the UserPromptSubmit hook, where pathlib costs ms

    return Path(root) / "index" / LOG_NAME


def record_access(root, ids, when: str | None = None) -> None:
    ids = [i for i in dict.fromkeys(ids) if i]
    if ids:
        entry = {"t": when or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "ids": ids}
        append_json_line(os.path.join(os.fspath(root), "index", LOG_NAME), entry)


def _read(path) -> dict:
    pending = {}
    try:
        data = path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return pending
    for line in data.splitlines():
        try:
            entry = fastjson.loads(line)
            when, ids = entry["t"], entry["ids"]
        except (ValueError, KeyError, TypeError):
            continue  # a torn or foreign line: skip it, never fail a read
        if not isinstance(ids, list) or not isinstance(when, str):
            continue
        for cid in ids:
            if not isinstance(cid, str):
                continue
            count, last = pending.get(cid, (0, None))
            pending[cid] = (count + 1, max(last, when) if last else when)
    return pending


def _add(into: dict, more: dict) -> dict:
    for cid, (count, last) in more.items():
        c0, l0 = into.get(cid, (0, None))
        into[cid] = (c0 + count, max(l0, last) if l0 and last else (last or l0))
    return into


def pending_access(root) -> dict:
    """id -> (extra access count, latest access time) not in the chunk files (log, fold in progress, state)."""
    pending = _read(log_path(root))
    _add(pending, _read(log_path(root).with_suffix(".folding")))
    return _add(pending, read_state(root))


def state_path(root):
    from pathlib import Path  # not loaded by record_access, the prompt hook's only call here

    return Path(root) / "index" / "access_state.json"


def read_state(root) -> dict:
    """Counts folded out of git's way (stores shared through git): id -> (count, last access)."""
    try:
        raw = fastjson.loads(state_path(root).read_text(encoding="utf-8"))
        return {k: (int(v[0]), v[1]) for k, v in raw.get("entries", {}).items()}
    except (OSError, ValueError, AttributeError, TypeError, IndexError, KeyError):
        return {}


def merge_into_state(root, pending: dict) -> None:
    state = _add(read_state(root), {k: v for k, v in pending.items() if k})
    atomic_write_json(state_path(root), {"version": 1, "entries": {k: list(v) for k, v in sorted(state.items())}})


def in_git_repository(root) -> bool:
    """True when the memory folder is inside a git work tree (a store shared with a team)."""
    return find_git(os.path.realpath(os.fspath(root))) is not None


def kept_apart(root) -> bool:
    """Whether access counts stay out of the chunk files: the store is shared through git, or syncs through its
    own repository (brain/sync: `sync/` in the memory root). Counts are each machine's reads, not the memory."""
    return os.path.isdir(os.path.join(os.fspath(root), "sync")) or in_git_repository(root)


def pending_lines(root) -> int:
    try:
        with open(log_path(root), "rb") as fh:
            return sum(1 for _ in fh)
    except OSError:
        return 0


def apply_pending(chunk: dict, pending: dict) -> dict:
    """Chunk dict with pending accesses added (a copy when anything changes)."""
    extra = pending.get(chunk.get("id"))
    if not extra:
        return chunk
    count, last = extra
    md = dict(chunk["metadata"])
    md["access_count"] = int(md.get("access_count") or 0) + count
    if last and (not md.get("last_accessed") or last > md["last_accessed"]):
        md["last_accessed"] = last
    return dict(chunk, metadata=md)


def take_for_fold(root) -> dict:
    """Move the log aside (new appends start a fresh log) and return what it held (state excluded).

    Call under the store lock."""
    path = log_path(root)
    folding = path.with_suffix(".folding")
    if path.exists():
        if folding.exists():  # an earlier fold was interrupted: merge its lines in first
            append_line(folding, path.read_text(encoding="utf-8", errors="replace").rstrip("\n"))
            os.unlink(path)
        else:
            os.replace(path, folding)
    return _read(folding)


def finish_fold(root) -> None:
    try:
        os.unlink(log_path(root).with_suffix(".folding"))
    except FileNotFoundError:
        pass
