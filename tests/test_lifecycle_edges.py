"""Edge cases of the session lifecycle found in review: a busy store at session start, archived session records,
relative transcript paths, a stale worker pid, a bad timeout setting, a huge transcript with unwritable memory."""
import json
import os
import subprocess
import sys

from harness.claude_code import BUNDLE_ROOT, fire

from brain.capture.queue import worker_running
from brain.scripts import ChunkStore
from brain.util.files import store_lock

sys.path.insert(0, str(BUNDLE_ROOT / "scripts"))
from demo import SESSION_1, write_transcript  # noqa: E402

RLM = str(BUNDLE_ROOT / ".venv" / "bin" / "rlm-mem")


def ingest(*args, cwd=None):
    p = subprocess.run([RLM, "ingest", *args], capture_output=True, text=True, cwd=cwd)
    assert p.returncode == 0, p.stderr
    return p


def ended_and_captured(tmp_path):
    """A session (tmp_path/s1.jsonl) that ended, SessionEnd fired from hooks.json, and was captured by the worker."""
    project = tmp_path / "project"
    project.mkdir()
    path = tmp_path / "s1.jsonl"
    write_transcript(path, "s1", project, SESSION_1)
    fire("SessionEnd", {"session_id": "s1", "transcript_path": str(path), "cwd": str(project), "reason": "other"})
    ingest()


def test_session_start_does_not_wait_for_a_busy_writer(tmp_path, isolated_memory, monkeypatch):
    monkeypatch.setenv("RLM_MEM_BACKGROUND", "0")
    project = tmp_path / "project"
    project.mkdir()
    store = ChunkStore(isolated_memory)
    store.create_chunk("The staging database listens on port 5433", created="2026-11-01T00:00:00Z")
    other = ChunkStore(tmp_path / "other").create_chunk("arrived behind the store's back", created="2026-11-02T00:00:00Z")
    (isolated_memory / "chunks" / "2026-11" / f"{other.id}.json").write_bytes(
        (tmp_path / "other" / "chunks" / "2026-11" / f"{other.id}.json").read_bytes())  # the index is now stale
    with store_lock(isolated_memory):  # a writer (the capture worker, a reindex) holds the store
        run = fire("SessionStart", {"session_id": "s", "cwd": str(project), "source": "clear"})[0]
    # had it waited for the writer, its 8 s limit would have ended it without any context
    assert run.returncode == 0 and "RLM-MEM LIVEHUD" in run.context and "5433" in run.context
    assert not list((isolated_memory / "state" / "brief").glob("*.json"))  # a brief from a stale index is not kept
    later = fire("SessionStart", {"session_id": "s", "cwd": str(project), "source": "startup"})[0]
    assert "arrived behind" in later.context


def test_an_archived_session_record_is_not_captured_again(tmp_path, isolated_memory):
    project = tmp_path / "project"
    project.mkdir()
    path = tmp_path / "s1.jsonl"
    write_transcript(path, "s1", project, SESSION_1[:3])
    ingest(str(path))
    store = ChunkStore(isolated_memory)
    (record,) = [c for c in store.list_chunks() if c.kind == "session"]
    store.delete_chunk(record.id)
    write_transcript(path, "s1", project, SESSION_1)  # the session went on
    ingest(str(path))
    ingest(str(path))
    assert [c.kind for c in store.list_chunks()].count("session") == 0
    assert store.layout.is_archived(record.id)


def test_a_relative_path_and_the_hooks_absolute_one_are_the_same_transcript(tmp_path, isolated_memory):
    ended_and_captured(tmp_path)
    store = ChunkStore(isolated_memory)
    turn = next(c for c in store.list_chunks() if c.kind == "turn")
    store.delete_chunk(turn.id, permanent=True)
    report = ingest("s1.jsonl", "--json", cwd=str(tmp_path))
    assert json.loads(report.stdout)[0]["created"] == 0  # nothing re-parsed from offset 0


def test_worker_detection_uses_the_lock_not_a_pid(isolated_memory):
    state = isolated_memory / "state"
    state.mkdir(parents=True)
    (state / "worker.pid").write_text(str(os.getpid()))  # a pid that is alive, but no worker
    assert not worker_running(isolated_memory)
    from filelock import FileLock

    with FileLock(str(state / ".ingest.lock")):
        holder = subprocess.run([sys.executable, "-c", "import sys; from brain.capture.queue import "
                                 f"worker_running; sys.exit(0 if worker_running({str(isolated_memory)!r}) else 1)"],
                                cwd=str(BUNDLE_ROOT))
    assert holder.returncode == 0


def test_a_bad_timeout_setting_falls_back_to_the_default(tmp_path, monkeypatch):
    for value in ("abc", "-1", "0"):
        monkeypatch.setenv("RLM_MEM_HOOK_TIMEOUT", value)
        run = fire("UserPromptSubmit", {"cwd": str(tmp_path), "prompt": "hello"})[0]
        assert run.returncode == 0 and "Traceback" not in run.stderr


def test_unwritable_memory_and_a_large_transcript_still_hand_out_candidates(tmp_path, monkeypatch):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the memory folder should be")
    monkeypatch.setenv("RLM_MEM_DIR", str(blocker / "memory"))
    project = tmp_path / "project"
    project.mkdir()
    path = tmp_path / "big.jsonl"
    filler = [("user", "Let's keep going with the refactor. " * 40), ("assistant", "Done with that part. " * 40)] * 2000
    write_transcript(path, "big", project, filler + SESSION_1)
    assert path.stat().st_size > 5 * 1024 * 1024
    run = fire("SessionEnd", {"session_id": "big", "transcript_path": str(path), "cwd": str(project),
                              "reason": "other"})[0]
    assert run.returncode == 2 and "[MEMORY_CANDIDATES]" in run.stderr and "5433" in run.stderr


def test_a_turn_deleted_for_good_stays_deleted_when_captured_again(tmp_path, isolated_memory):
    import shutil

    project = tmp_path / "project"
    project.mkdir()
    path = tmp_path / "s1.jsonl"
    write_transcript(path, "s1", project, SESSION_1)
    ingest(str(path))
    store = ChunkStore(isolated_memory)
    turn = next(c for c in store.list_chunks() if c.kind == "turn")
    store.delete_chunk(turn.id, permanent=True)
    shutil.rmtree(isolated_memory / "state" / "captured")  # capture state lost: the whole transcript again
    ingest(str(path))
    assert store.get_chunk(turn.id, include_archived=True) is None
    assert turn.content not in [c.content for c in store.list_chunks()]


def test_capture_and_gardening_leave_no_readable_lock_files(tmp_path, isolated_memory):
    ended_and_captured(tmp_path)
    assert subprocess.run([RLM, "garden", "--apply"], capture_output=True).returncode == 0
    locks = list(isolated_memory.rglob("*.lock"))
    assert {p.name for p in locks} >= {".ingest.lock", "garden.lock", ".store.lock"}
    assert all(p.stat().st_mode & 0o077 == 0 for p in locks), [(p.name, oct(p.stat().st_mode)) for p in locks]
    doctor = subprocess.run([RLM, "doctor"], capture_output=True, text=True)
    assert doctor.returncode == 0, doctor.stdout
