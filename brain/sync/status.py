"""Where sync keeps its things in a memory root, and what the last sync left: read by the LiveHud, the background
worker and `rlm-mem doctor`. Stdlib only and a single small read: SessionStart asks whether sync is behind.

    sync/                  rlm-mem's own bare git repository (never a work tree, never shared itself)
    state/sync.json        the last attempt: remote, when, whether it failed and why, what was held back
    state/sync-files.txt   size, mtime and blob id of each file last committed (a stat cache: only files whose
                           size or mtime changed are read again)
"""
import os
import time

from brain.util.files import atomic_write_json, read_json

REPO_DIR = "sync"
STATUS_FILE = "sync.json"  # in state/
FILES_CACHE = "sync-files.txt"  # in state/
LOCK_FILE = ".sync.lock"  # in state/
BACKGROUND_INTERVAL = 300  # seconds between the background worker's syncs while sessions run (ends always sync)


def repo_path(root) -> str:
    return os.path.join(os.fspath(root), REPO_DIR)


def status_path(root) -> str:
    return os.path.join(os.fspath(root), "state", STATUS_FILE)


def read_status(root) -> dict:
    """The last attempt's record ({} when sync was never set up here, or its file cannot be read)."""
    try:
        value = read_json(status_path(root), 64 * 1024)
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    return value if isinstance(value, dict) else {}


def write_status(root, status: dict) -> None:
    atomic_write_json(status_path(root), status)


def behind_note(root) -> str | None:
    """A few words for the LiveHud when the last sync failed ("sync behind"), else None."""
    status = read_status(root)
    if not status.get("remote") or not status.get("error"):
        return None
    return "sync behind"


def due(root, *, final: bool = False, now: float | None = None) -> bool:
    """Whether the background worker should sync now: sync is set up, and a session ended (`final`) or the last
    attempt is BACKGROUND_INTERVAL seconds old (a session start pulls what other machines pushed)."""
    status = read_status(root)
    if not status.get("remote") or not os.path.isdir(repo_path(root)):
        return False
    if final:
        return True
    last = status.get("attempted_at")
    now = time.time() if now is None else now
    return not isinstance(last, (int, float)) or now - last >= BACKGROUND_INTERVAL
