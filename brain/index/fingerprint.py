"""Whether chunk files came, went or changed since derived data was made: one stat per month folder.

Writing, renaming or deleting a file in chunks/YYYY-MM/ changes that folder's mtime, so comparing every month
folder's mtime with the values recorded when an index or a brief was made tells whether it is stale. Stdlib only:
every session start asks.
"""
import os


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
