"""The capture queue: hooks record "this transcript has something new" here; the worker (ingest.py) drains it.

One small file per session in state/queue/ (no shared file, no lock); per-session byte offsets (and the active
branch's end, the project the session is filed under) in state/captured/; and in state/sessions/ one file per
session rlm-mem saw start (or saw at work), kept until its final capture: only those sessions are ever captured
without being asked, their missed ends included. Hooks import this module, so it uses only os and fastjson (no
pathlib, no subprocess until a worker is actually started). A session id names files, so it is redacted before it
becomes a name (`safe_name`); what the files hold is redacted by the writer (brain/util/files.py).
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


def sessions_dir(root) -> str:
    return os.path.join(os.fspath(root), "state", "sessions")


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
    # power cut loses is found again at the next session start (unfinished_sessions), nothing is lost.
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


def pending_count(root, *, elsewhere_than: str | None = None) -> int:
    """Sessions waiting for capture with something left to write: a queued transcript that still exists and
    either grew past what was captured or awaits its final capture (the session record). `elsewhere_than`: a
    project id; only sessions of other projects count (by the project each was filed under at its start; one
    rlm-mem did not see start counts as another project's)."""
    count = 0
    for _, entry in pending(root):
        if elsewhere_than is not None and (seen_session(root, entry.get("session_id") or "").get("project")
                                           or [None])[0] == elsewhere_than:
            continue
        try:
            size = os.stat(entry["transcript_path"]).st_size
        except OSError:
            continue  # gone: the worker drops it, nothing can be written from it
        if entry.get("final") or size > captured_offset(root, entry.get("session_id") or "").get("offset", 0):
            count += 1
    return count


def captured_offset(root, session_id: str) -> dict:
    """{"path", "offset", "leaf", "project", ...} of the session's last capture ({} if never captured)."""
    try:
        value = read_json(os.path.join(offsets_dir(root), f"{safe_name(session_id)}.json"), STATE_FILE_LIMIT)
        return value if isinstance(value, dict) else {}
    except (OSError, ValueError):
        return {}


def save_offset(root, session_id: str, transcript_path, offset: int, *, leaf=None, project=None) -> None:
    """Where capture stopped; `leaf`: the active branch's last record then; `project`: [id, name, root] it was
    filed under (every later part of the session goes there too)."""
    atomic_write_json(os.path.join(offsets_dir(root), f"{safe_name(session_id)}.json"),
                      {"session_id": session_id, "path": os.fspath(transcript_path), "offset": offset, "leaf": leaf,
                       "project": project, "captured": time.time()})


# ---------------------------------------------------------------- sessions rlm-mem has seen
SESSION_IDLE = 3600  # seconds without a change after which a session whose end never came counts as ended


def _session_file(root, session_id: str) -> str:
    return os.path.join(sessions_dir(root), f"{safe_name(session_id)}.json")


def note_session(root, session_id: str, transcript_path: str, project, *, started: bool = False) -> None:
    """Record that rlm-mem sees this session (SessionStart; any later hook when the record is gone) and which
    project it belongs to: `project` is (id, name, root) of its start folder. Raises OSError if memory is
    unwritable. A session already recorded keeps its record (and its project)."""
    if not session_id or not transcript_path:
        return
    path = _session_file(root, session_id)
    if os.path.exists(path):
        return
    atomic_write_json(path, {"session_id": session_id, "transcript_path": os.fspath(transcript_path),
                             "project": list(project)[:3], "seen": time.time(), "started": started},
                      fsync=False)  # losing it in a crash loses only the missed-end sweep of one session


def seen_session(root, session_id: str) -> dict:
    """The record note_session wrote ({} if rlm-mem never saw this session or it was captured to its end)."""
    try:
        value = read_json(_session_file(root, session_id), STATE_FILE_LIMIT)
        return value if isinstance(value, dict) else {}
    except (OSError, ValueError):
        return {}


def end_session(root, session_id: str) -> None:
    """The session was captured to its end: no sweep needs to look at it again."""
    try:
        os.unlink(_session_file(root, session_id))
    except FileNotFoundError:
        pass


def seen_sessions(root) -> list:
    """Every session record (dicts), oldest name first."""
    folder = sessions_dir(root)
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
    except OSError:
        return []
    out = []
    for name in names:
        try:
            record = read_json(os.path.join(folder, name), STATE_FILE_LIMIT)
        except (OSError, ValueError):
            continue
        if isinstance(record, dict) and isinstance(record.get("transcript_path"), str):
            out.append(record)
    return out


def unfinished_sessions(root, current_session: str, now: float | None = None) -> list:
    """(session id, transcript path, ended) of sessions rlm-mem saw that are not captured to their end: grown past
    what was captured (perhaps still going in another terminal: ended False), or quiet for SESSION_IDLE seconds
    without a SessionEnd (Ctrl+C, a crash, a closed terminal: ended True, so its session record is made). The
    record of a session whose transcript is gone is dropped: nothing is left to capture."""
    now = time.time() if now is None else now
    out = []
    for record in seen_sessions(root):
        sid, path = record.get("session_id"), record["transcript_path"]
        if not sid or sid == current_session:
            continue
        try:
            info = os.stat(path)
        except FileNotFoundError:
            end_session(root, sid)  # Claude Code deleted it (cleanupPeriodDays)
            continue
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode):
            continue  # a FIFO or a device named *.jsonl is never queued
        ended = now - info.st_mtime >= SESSION_IDLE
        if ended or captured_offset(root, sid).get("offset", 0) < info.st_size:
            out.append((sid, path, ended))
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
