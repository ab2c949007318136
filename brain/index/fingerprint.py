"""Whether chunk files came, went or changed since derived data was made: one stat per month folder.

Writing, renaming or deleting a file in chunks/YYYY-MM/ changes that folder's mtime, so comparing every month
folder's mtime with the values recorded when an index or a brief was made tells whether it is stale. And whether
the detached worker has derived work to do (`derived_behind`): a few stats and a 16-byte read. Stdlib only: every
session start asks.
"""
import os
import time

from brain.util import fastjson


def month_fingerprint(root) -> dict:
    """Each chunks/YYYY-MM folder's mtime (ns)."""
    out = {}
    try:
        entries = os.scandir(os.path.join(os.fspath(root), "chunks"))
    except OSError:
        return out
    with entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                out[entry.name] = entry.stat(follow_symlinks=False).st_mtime_ns
    return out


SQLITE_HEADER = b"SQLite format 3\x00"
# The JSON index files are rewritten at most this often while only writes made them behind (at 100,000 memories
# they hold ~40 MB: a session that writes after every turn must not rewrite them after every turn).
JSON_PASS_INTERVAL = 600
JSON_STATE_NAME = "json_indexes.state"  # in index/: what the JSON index files were written from (json_indexes.py)


def index_readable(root) -> bool:
    """Whether index/search.db exists and starts like an SQLite database."""
    try:
        with open(os.path.join(os.fspath(root), "index", "search.db"), "rb") as fh:
            return fh.read(16) == SQLITE_HEADER
    except OSError:
        return False


def index_signature(root) -> list:
    """[mtime_ns, size] of index/search.db and of its WAL: every committed write and every checkpoint changes it.
    A missing or empty WAL counts as zeros (a reader that opens the index creates an empty one)."""
    out = []
    for name in ("search.db", "search.db-wal"):
        try:
            st = os.stat(os.path.join(os.fspath(root), "index", name))
        except OSError:
            st = None
        out += [st.st_mtime_ns, st.st_size] if st is not None and st.st_size else [0, 0]
    return out


def derived_behind(root, now_ns: int | None = None) -> bool:
    """Whether derived data needs the background worker: the search index missing or not a database while there
    are chunk files, or seed 000's JSON index files missing or changed since their pass wrote them, or behind the
    search index and due for the worker's pass: written (or last found current) when it looked otherwise than now (their state file records index_signature as
    it was just before the snapshot they were written from), more than JSON_PASS_INTERVAL ago (the pass is
    coalesced: sooner, the worker would leave them as they are). A hint, never a verdict: the worker compares
    generations before it rewrites anything."""
    root = os.fspath(root)
    if not index_readable(root):
        return os.path.isdir(os.path.join(root, "chunks"))
    path = os.path.join(root, "index", JSON_STATE_NAME)
    try:
        with open(path, "rb") as fh:
            state = fastjson.loads(fh.read().decode("utf-8"))
            written = os.fstat(fh.fileno()).st_mtime_ns
    except (OSError, ValueError, UnicodeDecodeError):
        return True
    if not isinstance(state, dict) or _touched(root, state.get("files")):
        return True  # missing, damaged or edited: at once
    if state.get("index") == index_signature(root):
        return False
    return (time.time_ns() if now_ns is None else now_ns) - written >= JSON_PASS_INTERVAL * 1e9


def _touched(root, files) -> bool:
    """Whether any JSON index file differs from the [size, mtime_ns] its pass recorded."""
    if not isinstance(files, dict):
        return True
    for name, recorded in files.items():
        try:
            st = os.stat(os.path.join(root, "index", name))
        except OSError:
            return True
        if recorded != [st.st_size, st.st_mtime_ns]:
            return True
    return False
