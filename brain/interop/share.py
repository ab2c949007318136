"""Sharing a memory folder through git.

Chunk files are the source of truth and one file per chunk means two people's new memories never touch the same
file. What is derived (index/) or personal runtime state (state/, locks, temp files) stays out of git and is rebuilt
by `store.sync_derived()` (any write does it too) once a pull has changed the month folders. The append-only logs
merge by union, so concurrent appends never conflict.
"""
from pathlib import Path

from brain.util.files import atomic_write_text, ensure_dir, read_bytes

GITIGNORE = ("index/", "state/", "*.lock", ".tmp-*")
GITATTRIBUTES = ("audit/*.jsonl merge=union", "episodes/*.md merge=union")
_HEADER = "# rlm-mem: derived indexes and runtime state are rebuilt locally, never shared"
_ATTR_HEADER = "# rlm-mem: append-only logs merge by keeping both sides' lines"


def init_share(root) -> dict:
    """Write (or complete) the memory root's .gitignore and .gitattributes. Returns the lines added per file.

    Existing lines are kept; running it again adds nothing.
    """

    root = Path(root).expanduser()
    ensure_dir(root)
    added = {}
    for name, lines, header in ((".gitignore", GITIGNORE, _HEADER), (".gitattributes", GITATTRIBUTES, _ATTR_HEADER)):
        path = root / name
        current = read_bytes(path).decode("utf-8") if path.is_file() else ""
        present = {line.strip() for line in current.splitlines()}
        missing = [line for line in lines if line not in present]
        if missing:
            text = current + ("\n" if current and not current.endswith("\n") else "")
            if header not in present:
                text += ("\n" if current.strip() else "") + header + "\n"
            text += "\n".join(missing) + "\n"
            atomic_write_text(path, text)
            path.chmod(0o644)  # git-tracked project files, not memories: readable like the rest of the repo
        added[name] = missing
    return added
