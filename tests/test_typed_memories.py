"""Typed memories as a later session reads them (issue 34): each links the turn it was said in, test runs are the
session record's, and a learning holds the failure's line and the change that fixed it. Through the real capture
worker, on a real transcript, into a real store."""
from datetime import datetime, timedelta, timezone

from harness.transcripts import Assistant, Bash, Edit, User, write_session

from brain.capture.ingest import capture_transcript
from brain.scripts import ChunkStore


def _captured(tmp_path, isolated_memory, turns):
    project = tmp_path / "proj"
    project.mkdir()
    path = write_session(tmp_path / "s1.jsonl", "s1", project, datetime.now(timezone.utc) - timedelta(days=1), turns)
    store = ChunkStore(isolated_memory)
    report = capture_transcript(store, path, session_id="s1", final=True)
    assert report.skipped_reason is None
    return {c["id"]: c for c in store.layout.iter_chunks()}


def test_a_typed_memory_links_the_turn_it_was_said_in(tmp_path, isolated_memory):
    chunks = _captured(tmp_path, isolated_memory, [
        User("Let's go with SQLite for the first version. Postgres can wait until we have users."),
        Assistant("SQLite it is.")])
    (decision,) = [c for c in chunks.values() if c["metadata"].get("kind") == "decision"]
    (turn_id,) = decision["links"]["derived_from"]
    turn = chunks[turn_id]
    assert turn["metadata"]["kind"] == "turn" and "Postgres can wait" in turn["content"]
    assert "Postgres can wait" not in decision["content"]  # the sentence, not the turn again


def test_test_runs_are_in_the_session_record_and_a_learning_holds_its_cause_and_fix(tmp_path, isolated_memory):
    chunks = _captured(tmp_path, isolated_memory, [
        User("Add the users migration and run the tests."),
        Assistant("Generating the revision.", [Bash("alembic revision --autogenerate -m users",
                                                    "FAILED: Target database is not up to date.", ok=False)]),
        Assistant("Autogenerate refuses to run while the database is behind, so I applied the pending revisions "
                  "first with `alembic upgrade head`.",
                  [Bash("alembic upgrade head && alembic revision --autogenerate -m users", "done"),
                   Edit("app/models.py", "class User: ...", "class User(Base): ..."),
                   Bash("pytest -q", "41 passed in 2.1s")]),
        Assistant("Flaky run, trying again.", [Bash("npm run lint", "17 checks passed. 1 checks failed", ok=False),
                                              Bash("npm run lint", "18 checks passed")])])
    typed = [c for c in chunks.values() if c["metadata"].get("kind") not in ("turn", "session")]
    assert not any("Tests passed" in c["content"] for c in typed)
    (learning,) = [c for c in typed if c["metadata"]["kind"] == "learning"]  # not the lint re-run: no cause, no fix
    assert learning["content"].startswith("Error: FAILED: Target database is not up to date. — fixed by: ")
    assert "alembic upgrade head" in learning["content"]
    (record,) = [c for c in chunks.values() if c["metadata"].get("kind") == "session"]
    assert "Tests passed: `pytest -q` (41 passed)" in record["content"]
    assert any("Bash: pytest -q (41 passed)" in c["content"] for c in chunks.values() if c["metadata"]["kind"] == "turn")
