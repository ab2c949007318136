"""Seed 002's structures made from real-shaped transcripts through the real hooks (SessionStart, Stop, SessionEnd
fired as Claude Code fires them, then the capture worker): causal links and `why`, chapters, five layers on every
session record, wisdom. Each session below is a few minutes of work in a small web app."""
import json
import os
import subprocess
from datetime import datetime, timedelta, timezone

from harness.claude_code import BUNDLE_ROOT, fire
from harness.transcripts import Assistant, Bash, Edit, Read, User, Write, write_session

from brain.store.chunk_store import ChunkStore

RLM = str(BUNDLE_ROOT / ".venv" / "bin" / "rlm-mem")
START = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
FAILING = ("FAILED tests/test_dates.py::test_iso_format - AssertionError: assert '03/02/2026' == '2026-03-02'\n"
           "1 failed, 11 passed in 0.41s")


def cli(*args, cwd=None):
    p = subprocess.run([RLM, *args], capture_output=True, text=True, env=os.environ.copy(), timeout=120, cwd=cwd)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def live_session(tmp_path, project, sid, turns, start, **kw):
    """One session as Claude Code runs it: start, the transcript written as it goes, Stop, SessionEnd; then the
    capture worker (what SessionEnd started, finished here by `rlm-mem ingest`)."""
    path = tmp_path / f"{sid}.jsonl"
    base = {"session_id": sid, "transcript_path": str(path), "cwd": str(project)}
    path.write_text("")
    (started,) = fire("SessionStart", dict(base, source="startup"), env=dict(os.environ, RLM_MEM_BACKGROUND="0"))
    assert started.returncode == 0, started.stderr
    write_session(path, sid, project, start, turns, **kw)
    for event, extra in (("Stop", {"stop_hook_active": False}), ("SessionEnd", {"reason": "prompt_input_exit"})):
        (run,) = fire(event, dict(base, **extra), env=dict(os.environ, RLM_MEM_BACKGROUND="0"))
        assert run.returncode == 0, run.stderr
    cli("ingest", cwd=project)


def date_fix(rerun="pytest -q"):
    """A failing test, reported; the person asks for a fix; an edit; the test passes."""
    return [User("Run the test suite please."),
            Assistant("Running the tests.", tools=[Bash("pytest -q", FAILING, ok=False)]),
            Assistant("One test fails: test_iso_format expects ISO dates but the formatter writes US dates."),
            User("The date test is failing, fix the formatter. Keep the public API unchanged."),
            Assistant("The formatter hard-codes a US pattern. I'll switch it to ISO 8601.",
                      tools=[Read("src/dates/formatter.py", "def fmt(d):\n    return d.strftime('%m/%d/%Y')"),
                             Edit("src/dates/formatter.py", "d.strftime('%m/%d/%Y')", "d.isoformat()")]),
            Assistant("", tools=[Bash(rerun, "12 passed in 0.38s")]),
            Assistant("Fixed: the formatter writes ISO 8601 dates and all 12 tests pass.")]


def test_a_failing_test_fixed_by_an_edit_is_causally_linked_and_why_shows_the_chain(tmp_path, project):
    live_session(tmp_path, project, "fix-1", date_fix(), START)
    store = ChunkStore(os.environ["RLM_MEM_DIR"])
    turns = {c.content.split("\n")[0][:40]: c for c in store.list_chunks(kind="turn")}
    error = next(c for c in turns.values() if "Bash: pytest -q (failed)" in c.content)
    fix = next(c for c in turns.values() if "Edit: src/dates/formatter.py" in c.content)
    report = next(c for c in turns.values() if c.content.startswith("The date test is failing"))
    assert set(fix.links["solves"]) == {error.id, report.id}
    assert fix.id in error.links["led_to"]
    (learning,) = store.list_chunks(kind="learning")
    assert learning.links["caused_by"] == [error.id]

    answer = json.loads(cli("why", learning.id[-8:], "--json"))
    (cause,) = answer["causes"]
    assert (cause["id"], cause["link"]) == (error.id, "caused_by")
    assert fix.id in {n["id"] for n in answer["effects"]} | {n["id"] for n in cause["then"]} or \
        fix.id in {n["id"] for n in json.loads(cli("why", error.id, "--json"))["effects"]}
    from_fix = json.loads(cli("why", fix.id, "--json"))
    assert {(n["id"], n["link"]) for n in from_fix["causes"]} == {(error.id, "solves"), (report.id, "solves")}
    text = cli("why", fix.id)
    assert f"← (solves) {error.id}" in text and f"← (solves) {report.id}" in text


def test_a_session_left_failing_blocks_its_task(tmp_path, project):
    live_session(tmp_path, project, "stuck-1",
                 [User("Add a CSV export of invoices."),
                  Assistant("Writing the exporter.", tools=[Edit("billing/export.py", "", "def export(rows): ..."),
                                                            Bash("pytest -q tests/test_export.py",
                                                                 "E   ModuleNotFoundError: No module named 'csvkit'",
                                                                 ok=False)]),
                  Assistant("The export needs csvkit, which is not installed here; I stopped there.")], START)
    store = ChunkStore(os.environ["RLM_MEM_DIR"])
    (record,) = store.list_chunks(kind="session")
    (blocker,) = record.links["blocked_by"]
    assert "(failed)" in store.get_chunk(blocker).content
    assert record.metadata["layers"]["outcome"]["success"] is False


def auth_session(n):
    return [User(f"Fix the token refresh in the auth interceptor, step {n}: retries must stop after one attempt."),
            Assistant("Reading the interceptor.",
                      tools=[Read("src/auth/interceptor.ts", "export function intercept() {}"),
                             Edit("src/auth/interceptor.ts", "retry()", "retryOnce()"),
                             Edit("src/auth/refresh.ts", "queue", "refreshQueue")]),
            Assistant(f"The interceptor now retries once (step {n}).")]


def billing_session(n):
    return [User(f"Add the invoice CSV export to the billing page, part {n}."),
            Assistant("Adding the exporter.", tools=[Edit("billing/export.py", "", f"def export_{n}(rows): ..."),
                                                     Edit("billing/views.py", "", "path('export')")]),
            Assistant(f"Invoices export as CSV (part {n}).")]


def test_sessions_on_two_topics_give_two_chapters_and_every_record_has_five_layers(tmp_path, project):
    sessions = [("auth-1", auth_session(1)), ("auth-2", auth_session(2)),
                ("bill-1", billing_session(1)), ("bill-2", billing_session(2))]
    for i, (sid, turns) in enumerate(sessions):
        live_session(tmp_path, project, sid, turns, START + timedelta(hours=3 * i))
    store = ChunkStore(os.environ["RLM_MEM_DIR"])
    assert (store.root / "index" / "narrative.json").is_file()  # made by the capture worker, not a hook

    chapters = json.loads(cli("chapters", "--json", cwd=project))
    assert len(chapters) == 2
    records = {c.conversation_id: c.id for c in store.list_chunks(kind="session")}
    assert [c["sessions"] for c in chapters] == [[records["auth-1"], records["auth-2"]],
                                                [records["bill-1"], records["bill-2"]]]
    auth, billing = chapters
    assert "interceptor" in auth["summary"] and "CSV" not in auth["summary"]
    assert "CSV" in billing["summary"] and "interceptor" not in billing["summary"]
    assert auth["start"] == "2026-03-02T09:00:20Z" and auth["end"] < billing["start"] <= billing["end"]
    assert billing["title"].startswith("Add the invoice CSV export")

    for record in store.list_chunks(kind="session"):
        layers = record.metadata["layers"]
        assert set(layers) == {"intent", "perception", "reasoning", "actions", "outcome"}
        assert layers["intent"]["goal"] and layers["actions"]["files_changed"] and layers["outcome"]["summary"]
        assert record.metadata["ended"] > record.created
        assert "layers" not in record.content and "task_type" not in record.content  # the text stays as it was
    auth_record = store.get_chunk(records["auth-1"])
    assert auth_record.metadata["layers"]["intent"]["task_type"] == "bug_fix"
    assert auth_record.metadata["layers"]["intent"]["constraints"] == [
        "Fix the token refresh in the auth interceptor, step 1: retries must stop after one attempt."]
    assert auth_record.metadata["layers"]["perception"]["files_read"] == []  # read, then edited: a change
    shown = cli("get", records["auth-1"], "--depth", "full")
    for layer in ("intent:", "perception:", "reasoning:", "actions:", "outcome:"):
        assert f"  {layer}" in shown
    assert "changed src/auth/interceptor.ts; src/auth/refresh.ts" in shown
    # what the hooks inject stays the records' short text: the layers are for `get`
    path = tmp_path / "later.jsonl"
    path.write_text("")
    later = {"session_id": "later", "transcript_path": str(path), "cwd": str(project)}
    (start,) = fire("SessionStart", dict(later, source="startup"), env=dict(os.environ, RLM_MEM_BACKGROUND="0"))
    (prompt,) = fire("UserPromptSubmit", dict(later, prompt="What did we change in the auth interceptor?"))
    for hook in (start, prompt):
        context = json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
        assert "task_type" not in context and "perception" not in context and "files_read" not in context


def test_chapters_part_on_feature_branches(tmp_path, project):
    live_session(tmp_path, project, "pay-1", billing_session(1), START, branch="payments-rework")
    live_session(tmp_path, project, "pay-2", billing_session(2), START + timedelta(hours=1), branch="docs-fixes")
    chapters = json.loads(cli("chapters", "--json", cwd=project))
    assert [c["branch"] for c in chapters] == ["payments-rework", "docs-fixes"]


def test_wisdom_lists_a_fix_that_recurred(tmp_path, project):
    live_session(tmp_path, project, "fix-1", date_fix(), START)
    live_session(tmp_path, project, "other", billing_session(1), START + timedelta(days=1))
    live_session(tmp_path, project, "fix-2", date_fix(), START + timedelta(days=2))
    found = json.loads(cli("wisdom", "--json", cwd=project))
    (recurring,) = found["recurring_errors"]
    assert recurring["times"] == 2 and len(recurring["chapters"]) == 2
    assert any("formatter" in fix for fix in recurring["fixes"])
    assert "1 recurring error" in found["summary"]
    assert "recurring (2×)" in cli("wisdom", cwd=project)


def test_a_decision_is_linked_to_the_one_it_replaced(tmp_path, project):
    # (decided in words: a decision an edit carried out is held by the change's memory, which chains the same way)
    live_session(tmp_path, project, "d1", [
        User("We decided to use Redis for the session cache."),
        Assistant("Decision: use Redis for the session cache."),
        Assistant("Noted, the cache backend will be redis.")], START)
    live_session(tmp_path, project, "d2", [
        User("Let's switch the session cache from Redis to Memcached."),
        Assistant("Switching the plan."),
        Assistant("Decision: use Memcached for the session cache instead of Redis.")], START + timedelta(days=1))
    store = ChunkStore(os.environ["RLM_MEM_DIR"])
    (old,) = [c for c in store.list_chunks(kind="decision") if "Redis for" in c.content]
    (new,) = [c for c in store.list_chunks(kind="decision") if "Memcached" in c.content]
    assert old.status == "superseded" and new.links["supersedes"] == [old.id]
    (cause,) = json.loads(cli("why", new.id, "--json"))["causes"]
    assert (cause["id"], cause["link"], cause["status"]) == (old.id, "supersedes", "superseded")


def test_a_decision_an_edit_carried_out_is_its_change_and_chains_as_one(tmp_path, project):
    """The person's sentence the change quotes whole is no decision of its own: the change's memory holds it with
    the key and both values, supersedes the change it replaced, and `why` walks back to it."""
    live_session(tmp_path, project, "e1", [
        User("Set up the cache config."),
        Assistant("Written.", tools=[Write("config/cache.yaml", "backend: memory\n")])], START)
    live_session(tmp_path, project, "e2", [
        User("Use Redis for the session cache."),
        Assistant("Done.", tools=[Edit("config/cache.yaml", "backend: memory", "backend: redis")])],
        START + timedelta(days=1))
    live_session(tmp_path, project, "e3", [
        User("Switch the session cache to Memcached."),
        Assistant("Done.", tools=[Edit("config/cache.yaml", "backend: redis", "backend: memcached")])],
        START + timedelta(days=2))
    store = ChunkStore(os.environ["RLM_MEM_DIR"])
    assert not store.list_chunks(kind="decision")
    (old,) = [c for c in store.list_chunks(kind="change") if "backend = redis" in c.content]
    (new,) = [c for c in store.list_chunks(kind="change") if "backend = memcached" in c.content]
    assert 'asked: "Switch the session cache to Memcached."' in new.content and old.status == "superseded"
    assert old.id in [cause["id"] for cause in json.loads(cli("why", new.id, "--json"))["causes"]]


def test_capturing_a_session_again_changes_nothing(tmp_path, project):
    live_session(tmp_path, project, "fix-1", date_fix(), START)
    store = ChunkStore(os.environ["RLM_MEM_DIR"])
    before = {c.id: c.to_dict() for c in store.list_chunks()}
    files = {p: p.stat().st_mtime_ns for p in store.layout.iter_chunk_paths()}
    audit_lines = sum(len(path.read_text().splitlines()) for path in (store.root / "audit").glob("*.jsonl"))
    cli("ingest", str(tmp_path / "fix-1.jsonl"), cwd=project)
    assert {c.id: c.to_dict() for c in store.list_chunks()} == before
    assert {p: p.stat().st_mtime_ns for p in store.layout.iter_chunk_paths()} == files
    assert sum(len(path.read_text().splitlines()) for path in (store.root / "audit").glob("*.jsonl")) == audit_lines
