"""Whether chunk files came, went or changed since derived data was made: one stat per month folder.

Writing, renaming or deleting a file in chunks/YYYY-MM/ changes that folder's mtime, so comparing every month
folder's mtime with the values recorded when an index or a brief was made tells whether it is stale. And whether
the detached worker has derived work to do (`derived_behind`): a few stats and a 16-byte read. Stdlib only: every
session start asks.
"""
import os

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


def derived_behind(root) -> bool:
    """Whether derived data needs the background worker: the search index missing or not a database while there
    are chunk files, or seed 000's JSON index files written (or last found current) when the search index looked
    otherwise than now (their state file records index_signature as it was just before the snapshot they were
    written from). A hint, never a verdict: the worker compares generations before it rewrites anything."""
    root = os.fspath(root)
    if not index_readable(root):
        return os.path.isdir(os.path.join(root, "chunks"))
    try:
        with open(os.path.join(root, "index", JSON_STATE_NAME), "rb") as fh:
            state = fastjson.loads(fh.read().decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return True
    return not isinstance(state, dict) or state.get("index") != index_signature(root)
