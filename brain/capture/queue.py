"""The capture queue: hooks record "this transcript has something new" here; the worker (capture.py) drains it.

One small file per session in state/queue/ (no shared file, no lock), and per-session byte offsets in
state/captured/. Hooks import this module, so it uses only os/json (no pathlib, no subprocess until a worker is
actually started). A session id names files, so it is redacted before it becomes a name (`safe_name`); what the
files hold is redacted by the writer (brain/util/files.py).
"""
import os
import stat
import time

from brain.util.fasthash import sha1
from brain.util.files import atomic_write_json, read_json, redacted

_SAFE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
STATE_FILE_LIMIT = 1024 * 1024  # a queue entry or an offset file is a few hundred bytes


def safe_name(session_id: str) -> str:
    """A file name for a session (or project) id: its safe characters, redacted, and a hash when anything changed
    (two ids that differ only in what was dropped keep apart)."""
    name = "".join(ch if ch in _SAFE_CHARS else "_" for ch in redacted(session_id))[:80]
    if name != session_id:
        name += "-" + sha1(session_id.encode("utf-8")).hexdigest()[:8]
    return name or "session"


def queue_dir(root) -> str:
    return os.path.join(os.fspath(root), "state", "queue")


def offsets_dir(root) -> str:
    return os.path.join(os.fspath(root), "state", "captured")


def enqueue(root, session_id: str, transcript_path: str, *, cwd: str | None = None, final: bool = False) -> str:
    """Record that this session's transcript has something to capture. Raises OSError if memory is unwritable."""
    path = os.path.join(queue_dir(root), f"{safe_name(session_id)}.json")
    try:
        previous = read_json(path, STATE_FILE_LIMIT)
    except (OSError, ValueError):
        previous = {}
    final = bool(final or (isinstance(previous, dict) and previous.get("final")))
    entry = {"session_id": session_id, "transcript_path": os.fspath(transcript_path), "cwd": cwd, "final": final,
             "enqueued": time.time()}
    # No fsync (SessionEnd's budget is 1.5 s for every hook, and a loaded disk can take most of it): an entry a
    # power cut loses is found again at the next session start (uncaptured_siblings), nothing is lost.
    atomic_write_json(path, entry, indent=None, fsync=False)
    return path


def pending(root) -> list:
    """(queue file, entry) pairs, oldest name first."""
    folder = queue_dir(root)
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
    except OSError:
        return []
    out = []
    for name in names:
        path = os.path.join(folder, name)
        try:
            entry = read_json(path, STATE_FILE_LIMIT)
        except (OSError, ValueError):
            continue
        if isinstance(entry, dict) and isinstance(entry.get("transcript_path"), str) and entry["transcript_path"]:
            out.append((path, entry))
    return out


def pending_count(root) -> int:
    try:
        return sum(1 for name in os.listdir(queue_dir(root)) if name.endswith(".json"))
    except OSError:
        return 0


def captured_offset(root, session_id: str) -> dict:
    try:
        value = read_json(os.path.join(offsets_dir(root), f"{safe_name(session_id)}.json"), STATE_FILE_LIMIT)
        return value if isinstance(value, dict) else {}
    except (OSError, ValueError):
        return {}


def save_offset(root, session_id: str, transcript_path, offset: int) -> None:
    atomic_write_json(os.path.join(offsets_dir(root), f"{safe_name(session_id)}.json"),
                      {"session_id": session_id, "path": os.fspath(transcript_path), "offset": offset,
                       "captured": time.time()})


def uncaptured_siblings(root, transcript_path: str, current_session: str) -> list:
    """Transcripts in the same project folder that grew past what was captured (a SessionEnd that never came)."""
    if not transcript_path:
        return []
    folder = os.path.dirname(transcript_path)
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    out = []
    for entry in entries:
        if not entry.name.endswith(".jsonl") or entry.name[:-6] == current_session:
            continue
        sid = entry.name[:-6]
        try:
            info = entry.stat()
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode):
            continue  # a FIFO or a device named *.jsonl is never queued
        try:
            if os.stat(os.path.join(offsets_dir(root), f"{safe_name(sid)}.json")).st_mtime_ns >= info.st_mtime_ns:
                continue  # captured after its last change: a stat instead of reading every offset file each start
        except OSError:
            pass  # never captured: compare with offset 0 below
        if info.st_size and captured_offset(root, sid).get("offset", 0) < info.st_size:
            out.append((sid, entry.path))
    return out


INGEST_LOCK = ".ingest.lock"


def worker_running(root) -> bool:
    """Whether a capture worker holds the ingest lock now (a lock, not a pid: a dead worker's pid can be reused)."""
    import fcntl  # only when a worker may be running; most hooks never ask

    try:
        fd = os.open(os.path.join(os.fspath(root), "state", INGEST_LOCK),
                     os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))  # never waits
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)
