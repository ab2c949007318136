"""Chapters, wisdom and why over stored memories (seed 002): grouping, incremental upkeep, rebuild by reindex.
(tests/test_capture_structures.py shows them through the real hooks on transcripts.)"""
import json

from click.testing import CliRunner

from brain.cli.main import cli
from brain.narrative import chapters as narrative
from brain.narrative.causes import why
from brain.store.chunk_store import ChunkStore

PROJECT = "proj-1"


def record(store, sid, when, intent, files, outcome="Done.", branch=None):
    """A session record as capture writes one (its layers hold the branch)."""
    layers = {"intent": {"goal": intent, "task_type": "other", "branch": branch},
              "actions": {"files_changed": files}, "outcome": {"summary": outcome}}
    return store.create_chunk(f"Session {when[:16]} UTC ({sid}). Intent: {intent} Files changed: {', '.join(files)}. "
                              f"Outcome: {outcome}", chunk_type="note", conversation_id=sid, created=when,
                              tags=["session"], metadata={"kind": "session", "project": PROJECT, "files": files,
                                                          "layers": layers})


def learning(store, sid, when, error, fix):
    return store.create_chunk(f"Error: {error} — fixed by: {fix}", chunk_type="pattern", conversation_id=sid,
                              created=when, metadata={"kind": "learning", "project": PROJECT})


def two_topics(store):
    auth = [record(store, "a1", "2026-03-02T09:00:00Z", "Fix the token refresh in the auth interceptor",
                   ["src/auth/interceptor.ts", "src/auth/refresh.ts"]),
            record(store, "a2", "2026-03-02T14:00:00Z", "The interceptor retries forever when refresh fails",
                   ["src/auth/interceptor.ts"], "Refresh retries are capped at one."),
            record(store, "a3", "2026-03-03T10:00:00Z", "Add tests for the refresh queue in the interceptor",
                   ["src/auth/interceptor.test.ts", "src/auth/refresh.ts"])]
    export = [record(store, "e1", "2026-03-04T09:00:00Z", "Add a CSV export of invoices to the billing page",
                     ["billing/export.py", "billing/views.py"]),
              record(store, "e2", "2026-03-04T15:00:00Z", "Invoice CSV export must quote commas in names",
                     ["billing/export.py"], "Names are quoted.")]
    return auth, export


def test_two_topics_give_two_chapters_that_do_not_mix(tmp_path):
    store = ChunkStore(tmp_path / "memory", actor="test")
    auth, export = two_topics(store)
    found = narrative.chapters(store.root, PROJECT)
    assert [c["sessions"] for c in found] == [[c.id for c in auth], [c.id for c in export]]
    first, second = found
    assert first["title"].startswith("Fix the token refresh")
    assert "Refresh retries are capped" not in second["summary"] and "CSV" in second["summary"]
    assert (first["start"], first["end"]) == ("2026-03-02T09:00:00Z", "2026-03-03T10:00:00Z")
    assert "interceptor" in first["topics"] and "export" in second["topics"]


def test_a_feature_branch_keeps_sessions_together_and_another_one_parts_them(tmp_path):
    store = ChunkStore(tmp_path / "memory", actor="test")
    a = record(store, "b1", "2026-03-02T09:00:00Z", "Start the payments rework", ["pay/a.py"], branch="payments")
    b = record(store, "b2", "2026-03-02T11:00:00Z", "Rename things", ["misc/b.py"], branch="payments")
    c = record(store, "b3", "2026-03-02T12:00:00Z", "Rename things", ["misc/b.py"], branch="docs-cleanup")
    assert [c_["sessions"] for c_ in narrative.chapters(store.root, PROJECT)] == [[a.id, b.id], [c.id]]


def test_chapters_are_kept_incrementally_and_rebuilt_by_reindex(tmp_path):
    store = ChunkStore(tmp_path / "memory", actor="test")
    auth, _ = two_topics(store)
    before = narrative.chapters(store.root, PROJECT)
    cache = json.loads((store.root / "index" / "narrative.json").read_text())
    later = record(store, "e3", "2026-03-05T09:00:00Z", "Export invoices as CSV per customer",
                   ["billing/export.py"])
    learning(store, "a2", "2026-03-02T14:10:00Z", "TypeError: queue is undefined", "initialise the queue")
    after = narrative.chapters(store.root, PROJECT)
    assert after[0]["learnings"] == ["Error: TypeError: queue is undefined — fixed by: initialise the queue"]
    assert after[1]["sessions"][-1] == later.id and after[0]["sessions"] == before[0]["sessions"]
    assert json.loads((store.root / "index" / "narrative.json").read_text())["rowid"] > cache["rowid"]
    (store.root / "index" / "narrative.json").write_text("{damaged")
    assert narrative.chapters(store.root, PROJECT) == after  # made again from the store
    result = CliRunner().invoke(cli, ["--dir", str(store.root), "reindex"])
    assert result.exit_code == 0, result.output
    assert json.loads((store.root / "index" / "narrative.json").read_text())["projects"][PROJECT]["chapters"]
    assert narrative.chapters(store.root, PROJECT) == after


def test_a_memory_deleted_for_good_leaves_no_trace_in_chapters(tmp_path):
    store = ChunkStore(tmp_path / "memory", actor="test")
    two_topics(store)
    secret = learning(store, "a2", "2026-03-02T14:10:00Z", "the pager rota lives in ops-private", "asked Dana")
    assert "ops-private" in (store.root / "index" / "narrative.json").read_text() if \
        narrative.chapters(store.root, PROJECT) else False
    assert store.delete_chunk(secret.id, permanent=True)
    assert not (store.root / "index" / "narrative.json").exists()
    assert "ops-private" not in json.dumps(narrative.chapters(store.root, PROJECT))
    archived = narrative.chapters(store.root, PROJECT)[1]["sessions"][-1]
    store.delete_chunk(archived)  # archived: chapters are made again without it
    assert archived not in json.dumps(narrative.chapters(store.root, PROJECT))


def test_wisdom_lists_a_fix_that_recurred_and_what_held(tmp_path):
    store = ChunkStore(tmp_path / "memory", actor="test")
    two_topics(store)
    learning(store, "a1", "2026-03-02T09:30:00Z",
             "FAILED tests/test_refresh.py::test_queue - AssertionError: expected 1 retry, got 3",
             "editing src/auth/refresh.ts")
    learning(store, "e2", "2026-03-04T15:20:00Z",
             "FAILED tests/test_refresh.py::test_queue - AssertionError: expected 1 retry, got 2",
             "capping retries in src/auth/refresh.ts")
    learning(store, "e1", "2026-03-04T09:20:00Z", "ModuleNotFoundError: No module named 'csvkit'", "pip install")
    rule = store.create_chunk("Always quote CSV fields", created="2026-03-02T08:00:00Z",
                              metadata={"kind": "preference", "project": PROJECT})
    decided = store.create_chunk("We use Postgres for invoices", chunk_type="decision",
                                 created="2026-03-01T08:00:00Z", metadata={"kind": "decision", "project": PROJECT})
    found = narrative.wisdom(store.root, PROJECT)
    (recurring,) = found["recurring_errors"]
    assert recurring["times"] == 2 and recurring["error"].startswith("FAILED tests/test_refresh.py::test_queue")
    assert recurring["fixes"] == ["editing src/auth/refresh.ts", "capping retries in src/auth/refresh.ts"]
    assert len(recurring["chapters"]) == 2
    assert [c["id"] for c in found["conventions"]] == [rule.id]
    assert [d["id"] for d in found["decisions"]] == [decided.id]
    assert "1 recurring error" in found["summary"]
    text = CliRunner().invoke(cli, ["--dir", str(store.root), "wisdom", "--project", PROJECT]).output
    assert "recurring (2×)" in text and "fixed by: editing src/auth/refresh.ts" in text


def test_why_walks_the_chain_both_ways(tmp_path):
    store = ChunkStore(tmp_path / "memory", actor="test")
    error = store.create_chunk("Bash: pytest -q (failed): AssertionError in test_dates")
    fix = store.create_chunk("Edit: parser.py → return date.isoformat()")
    learned = store.create_chunk("Error: AssertionError in test_dates — fixed by: editing parser.py")
    blocked = store.create_chunk("Release 1.4 waits for the date fix")
    store.link_chunks(fix.id, error.id, "solves", strength=0.9)
    store.link_chunks(learned.id, error.id, "caused_by")
    store.link_chunks(blocked.id, fix.id, "blocked_by")
    answer = why(store.root, fix.id)
    assert [(n["id"], n["link"]) for n in answer["causes"]] == [(error.id, "solves")]
    assert [(n["id"], n["link"]) for n in answer["effects"]] == [(blocked.id, "blocked_by")]
    # the error's other effect, the learning, lies beyond it
    from_error = why(store.root, error.id)
    assert {n["id"] for n in from_error["effects"]} == {fix.id, learned.id}
    assert from_error["effects"][0]["then"] or from_error["effects"][1]["then"]
    shown = CliRunner().invoke(cli, ["--dir", str(store.root), "why", fix.id[-8:]])
    assert shown.exit_code == 0
    assert "because of:" in shown.output and f"← (solves) {error.id}" in shown.output
    assert f"→ (blocked_by) {blocked.id}" in shown.output
    missing = CliRunner().invoke(cli, ["--dir", str(store.root), "why", "chunk-2026-01-01-00000000"])
    assert missing.exit_code == 1 and missing.output.startswith("Error: ")
