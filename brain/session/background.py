"""The one short-lived background process hooks may start: `rlm-mem ingest --background` (capture, index
upgrades and rebuilds, the pass that brings seed 000's JSON index files up to date: session/maintenance.py) or
`rlm-mem garden --apply --if-due`. Hooks never wait for it; `RLM_MEM_BACKGROUND=0` turns it off, and
queued work then waits for `rlm-mem ingest`. Stdlib only, without `subprocess`.
"""
import os
import sys
import time

from brain.capture.queue import enqueue, note_session, pending_count, unfinished_sessions, worker_running
from brain.context.dependencies import ready
from brain.index.fingerprint import derived_behind
from brain.sync.status import due as sync_due

BUNDLE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_UNFINISHED = 20  # earlier sessions queued by one session start
# A session start waits at most this long for the worker to capture other projects' sessions queued before it (one
# that just ended: ~0.5 s for a short session on the 2-CPU VM), so that what the person said of themselves there a
# moment ago (scope user: shown in every project) is in its brief. Well inside the hook's own 8 s limit.
CAPTURE_WAIT = 3.0
WORKER_START = 1.5  # a worker started this long ago that holds no lock yet is not coming: stop waiting
POLL = 0.05


def background_allowed() -> bool:
    return os.environ.get("RLM_MEM_BACKGROUND", "1").strip().lower() not in ("0", "false", "no", "off")


def spawn_detached(root, args) -> bool:
    """Start `rlm-mem --dir ROOT ARGS…` detached from the hook (it outlives it; one-shot, exits when done): a
    new session, in the memory root, with /dev/null for stdin, stdout and stderr (the hook's pipes must close when
    the hook exits). fork and exec by hand: `subprocess` alone costs a hook 5 to 15 ms to import (bench/run.py,
    the first SessionStart after a write), and the hook's other descriptors are not inherited (Python opens them
    close-on-exec)."""
    if not background_allowed():
        return False
    argv = [sys.executable, "-I", os.path.join(BUNDLE_ROOT, "scripts", "rlm_mem.py"), "--dir", os.fspath(root), *args]
    try:
        pid = os.fork()
    except OSError:
        return False
    if pid:
        return True
    try:  # the child: never returns into the hook
        os.setsid()
        os.chdir(os.fspath(root))
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.closerange(3, 256)
        os.execv(sys.executable, argv)
    finally:
        os._exit(127)


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
        for sid, path, ended in unfinished_sessions(root, session_id)[:MAX_UNFINISHED]:
            enqueue(root, sid, path, final=ended)
    except OSError:
        return False  # unwritable memory: the HUD says so; capture will hand out candidates at session end
    # capture to do, packages to install before it (the worker does that first), derived data to bring current, or
    # a sync due (what other machines pushed comes in while the session starts; the hook never waits for it)
    if pending_count(root) or not ready(BUNDLE_ROOT) or derived_behind(root) or sync_due(root):
        start_worker(root)
    try:
        from brain.garden.schedule import garden_due  # one small file read; the rest of gardening never loads here

        if garden_due(root):
            spawn_detached(root, ["garden", "--apply", "--if-due", "--quiet"])
    except Exception:  # gardening is optional at start; a broken plan must not cost the session its context
        pass
    return True


def wait_for_capture(root, project_id: str, *, limit: float = CAPTURE_WAIT) -> bool:
    """Wait, at most `limit` seconds, while the worker captures other projects' queued sessions: what the person
    said of themselves there (a preference, scope user) belongs in this project's brief, its first one included.
    This project's own queued sessions are not waited for (as before: the brief has them at the next start).
    True when none is left waiting. No wait when none is queued, or when no worker can run
    (RLM_MEM_BACKGROUND=0, packages still to install) or none takes the work."""
    if not pending_count(root, elsewhere_than=project_id):
        return True
    if not background_allowed() or not ready(BUNDLE_ROOT):
        return False
    start = time.monotonic()
    while time.monotonic() - start < limit:
        time.sleep(POLL)
        if not pending_count(root, elsewhere_than=project_id):
            return True
        if time.monotonic() - start > WORKER_START and not worker_running(root):
            return False  # no worker took the queue (it failed to start, or it left work it cannot do)
    return False
