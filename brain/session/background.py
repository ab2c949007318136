"""The one short-lived background process hooks may start: `rlm-mem ingest --background` (capture, index
upgrades) or `rlm-mem garden --apply --if-due`. Hooks never wait for it; `RLM_MEM_BACKGROUND=0` turns it off, and
queued work then waits for `rlm-mem ingest`. Stdlib only, and `subprocess` loads only when a process starts.
"""
import os
import sys

from brain.capture.queue import enqueue, note_session, pending_count, unfinished_sessions, worker_running
from brain.context.dependencies import ready

BUNDLE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_UNFINISHED = 20  # earlier sessions queued by one session start


def background_allowed() -> bool:
    return os.environ.get("RLM_MEM_BACKGROUND", "1").strip().lower() not in ("0", "false", "no", "off")


def spawn_detached(root, args) -> bool:
    """Start `rlm-mem --dir ROOT ARGS…` detached from the hook (it outlives it; one-shot, exits when done)."""
    if not background_allowed():
        return False
    import subprocess  # only when a process is really started (~2 ms of a hook otherwise)

    script = os.path.join(BUNDLE_ROOT, "scripts", "rlm_mem.py")
    try:
        subprocess.Popen([sys.executable, "-I", script, "--dir", os.fspath(root), *args], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                         close_fds=True, cwd=os.fspath(root))
        return True
    except OSError:
        return False


def start_worker(root) -> bool:
    """Start the capture worker unless one runs (it re-reads the queue before it leaves)."""
    return False if worker_running(root) else spawn_detached(root, ["ingest", "--background"])


def queue_capture(root, session_id: str, transcript_path: str, *, project, final: bool) -> None:
    """Queue this transcript for capture and make sure a worker will take it. OSError if memory is unwritable.
    `project`: (id, name, root) of the session's folder, for a session whose start rlm-mem did not see."""
    if transcript_path:
        session_id = session_id or os.path.basename(transcript_path)[:-6]
        note_session(root, session_id, transcript_path, project)
        enqueue(root, session_id, transcript_path, cwd=project[2], final=final)
    start_worker(root)


def at_session_start(root, transcript_path: str, session_id: str, project) -> bool:
    """Record this session (its project: `project`, (id, name, root)), queue earlier sessions rlm-mem saw whose
    end was missed, start the worker, and gardening when due. Never waits. False when memory cannot be written."""
    try:
        note_session(root, session_id, transcript_path, project, started=True)
        for sid, path in unfinished_sessions(root, session_id)[:MAX_UNFINISHED]:
            enqueue(root, sid, path, final=True)
    except OSError:
        return False  # unwritable memory: the HUD says so; capture will hand out candidates at session end
    if pending_count(root) or not ready(BUNDLE_ROOT):  # a worker installs missing packages before it captures
        start_worker(root)
    try:
        from brain.garden.schedule import garden_due  # one small file read; the rest of gardening never loads here

        if garden_due(root):
            spawn_detached(root, ["garden", "--apply", "--if-due", "--quiet"])
    except Exception:  # gardening is optional at start; a broken plan must not cost the session its context
        pass
    return True
