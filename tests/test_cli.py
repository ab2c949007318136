"""The store's command line: exit codes, `Error:` messages, --json (issue 2)."""
import json

import pytest
from click.testing import CliRunner

from brain.cli.main import cli


@pytest.fixture
def run(isolated_memory):
    runner = CliRunner()

    def invoke(*args, input=None):
        return runner.invoke(cli, list(args), input=input, catch_exceptions=False)

    return invoke


def test_remember_get_list_roundtrip(run):
    r = run("remember", "The staging database listens on port 5433", "--tags", "db,staging", "--json")
    assert r.exit_code == 0, r.output
    (chunk,) = json.loads(r.output)
    assert chunk["tags"] == ["db", "staging"] and chunk["type"] == "fact"
    r = run("get", chunk["id"], "--json")
    assert json.loads(r.output)["content"] == "The staging database listens on port 5433"
    r = run("list", "--tags", "db", "--json")
    assert [c["id"] for c in json.loads(r.output)] == [chunk["id"]]
    r = run("get", chunk["id"], "--depth", "summary")
    assert "5433" in r.output


def test_remember_reads_stdin_and_prints_ids(run):
    r = run("remember", "--type", "decision", "--conversation", "c9", input="We decided to ship weekly\n")
    assert r.exit_code == 0
    assert r.output.strip().startswith("chunk-")


def test_supersede_stores_the_new_statement_and_marks_the_old_one_replaced(run):
    old = json.loads(run("remember", "The billing service listens on port 5433", "--type", "decision",
                         "--json").output)[0]
    r = run("supersede", old["id"][-8:], "The billing service listens on port 6432", "--json")  # the short id
    assert r.exit_code == 0, r.output
    (new,) = json.loads(r.output)
    assert new["type"] == "decision" and new["links"]["supersedes"] == [old["id"]]  # the old one's type
    replaced = json.loads(run("get", old["id"], "--json").output)
    assert replaced["metadata"]["status"] == "superseded" and replaced["links"]["superseded_by"] == [new["id"]]
    assert "6432" in run("recall", "which port does billing listen on").output
    fact = json.loads(run("remember", "Staging is on eu-west-1", "--json").output)[0]
    r = run("supersede", fact["id"], "--type", "preference", input="Staging is on eu-central-1\n")  # stdin
    assert run("get", r.output.strip(), "--json").output.count('"preference"') == 1


def test_update_forget_restore_link(run):
    a = run("remember", "Use tabs").output.strip()
    b = run("remember", "Use spaces, not tabs").output.strip()
    assert run("update", a, "--confidence", "0.4").exit_code == 0
    assert run("link", b, a, "--type", "contradicts").exit_code == 0
    assert json.loads(run("get", b, "--json").output)["links"]["contradicts"] == [a]
    assert run("forget", a).exit_code == 0
    assert run("get", a).exit_code == 1
    assert run("list", "--archived", "--json").output.count(a) == 1
    assert run("restore", a).exit_code == 0
    assert run("forget", a, "--permanent").exit_code == 0
    assert json.loads(run("get", b, "--json").output)["links"]["contradicts"] == []


@pytest.mark.parametrize("args,code,message", [
    (["get", "../../etc/passwd"], 1, "invalid chunk id"),
    (["get", "chunk-2026-01-01-00000000"], 1, "no chunk"),
    (["forget", "chunk-2026-01-01-00000000"], 1, "no chunk"),
    (["restore", "chunk-2026-01-01-00000000"], 1, "no archived chunk"),
    (["update", "chunk-2026-01-01-00000000", "--confidence", "0.5"], 1, "no chunk"),
    (["update", "chunk-2026-01-01-00000000"], 2, "nothing to change"),
    (["remember", "x", "--confidence", "2"], 2, "between 0 and 1"),
    (["remember", "x", "--type", "gossip"], 2, "Invalid value"),
    (["remember", "   "], 2, "content is empty"),
    (["list", "--since", "last tuesday"], 2, "not an ISO date"),
    (["link", "chunk-2026-01-01-00000000", "chunk-2026-01-01-00000001"], 2, "Missing option"),
    (["remember", "x", "--tags", "a" * 80], 1, "longer than 64"),
    (["nonsense"], 2, "No such command"),
])
def test_bad_input_is_an_error_line_not_a_traceback(run, args, code, message):
    r = run(*args)
    assert r.exit_code == code, r.output
    assert "Error:" in r.output and message in r.output
    assert "Traceback" not in r.output


def test_bad_input_writes_nothing(run, isolated_memory):
    run("remember", "x", "--confidence", "2")
    run("remember", "x", "--tags", "a" * 80)
    assert not list(isolated_memory.glob("chunks/*/*.json"))


def test_dir_option_overrides_env(run, tmp_path):
    other = tmp_path / "elsewhere"
    run("--dir", str(other), "remember", "kept elsewhere")
    assert len(list(other.glob("chunks/*/*.json"))) == 1
    assert json.loads(run("--dir", str(other), "where", "--json").output)["root"] == str(other)


def test_unwritable_dir_is_a_clear_error(run, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    r = run("--dir", str(blocker / "memory"), "remember", "x")
    assert r.exit_code == 1 and r.output.startswith("Error:") and "Traceback" not in r.output


def test_reindex_and_stats(run):
    run("remember", "one fact")
    run("remember", "We decided on two")
    assert "reindexed 2 chunks" in run("reindex").output
    stats = json.loads(run("stats", "--json").output)
    assert stats["chunks"] == 2 and sum(stats["by_type"].values()) == 2 and stats["by_type"]["decision"] == 1


def test_every_command_has_help_with_text(run):
    for name in cli.list_commands(None):
        command = cli.get_command(None, name)
        r = run(name, "--help")
        assert r.exit_code == 0 and (command.help or "").strip(), name


def test_sensitive_chunks_are_shown_only_when_asked(run):
    cid = run("remember", "The unseal phrase is in the red binder", "--sensitivity", "high").output.strip()
    run("remember", "The vault listens on 8200")
    assert "red binder" not in run("list").output
    assert len(json.loads(run("list", "--json").output)) == 1
    assert len(json.loads(run("list", "--json", "--sensitive").output)) == 2
    r = run("get", cid)
    assert r.exit_code == 1 and "--sensitive" in r.output
    assert "red binder" in run("get", cid, "--sensitive").output


def test_remember_records_the_project_of_the_working_directory(run, tmp_path, monkeypatch):
    import subprocess

    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    monkeypatch.chdir(repo / "sub")
    (chunk,) = json.loads(run("remember", "Project scoped fact", "--json").output)
    assert chunk["metadata"]["project_name"] == "repo" and chunk["metadata"]["project"].startswith("repo-")


def test_get_accepts_the_short_id_shown_in_recalled_context(run):
    cid = run("remember", "The staging database listens on port 5433").output.strip()
    r = run("get", cid[-8:], "--json")
    assert r.exit_code == 0 and json.loads(r.output)["id"] == cid
    assert run("get", "00000000").exit_code == 1
