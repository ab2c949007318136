"""Seed 004's lifecycle by hand: contest, retract, reinstate (audited, and seen by the real UserPromptSubmit and
SessionStart hooks), and deletion policies (auto_prune, manual_only, never) against `forget --permanent` and
gardening."""
import json
import os

from click.testing import CliRunner
from conftest import ago
from harness.claude_code import fire

from brain.cli.main import cli
from brain.garden import garden
from brain.store.audit import read_audit
from brain.store.chunk_store import ChunkStore

FACT = "The staging database listens on port 5433 behind pgbouncer."
PROMPT = "Which port does the staging database listen on?"


def run(*args):
    return CliRunner().invoke(cli, list(args), env={"RLM_MEM_ACTOR": "test"})


def injected(tmp_path, project) -> str:
    (tmp_path / "s.jsonl").write_text("")
    (hook,) = fire("UserPromptSubmit", {"session_id": "s", "transcript_path": str(tmp_path / "s.jsonl"),
                                        "cwd": str(project), "prompt": PROMPT})
    assert hook.returncode == 0, hook.stderr
    return json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"] if hook.stdout.strip() else ""


def started(tmp_path, project) -> str:
    (tmp_path / "s.jsonl").write_text("")
    (hook,) = fire("SessionStart", {"session_id": "s", "transcript_path": str(tmp_path / "s.jsonl"),
                                    "cwd": str(project), "source": "startup"},
                   env=dict(os.environ, RLM_MEM_BACKGROUND="0"))
    assert hook.returncode == 0, hook.stderr
    return json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]


def test_contest_retract_reinstate_change_what_the_prompt_hook_injects(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    store = ChunkStore(os.environ["RLM_MEM_DIR"])
    chunk = store.create_chunk(FACT, tags=["db"])
    tail = chunk.id[-8:]

    before = injected(tmp_path, project)
    assert "5433" in before and f"[{tail} fact]" in before and "contested" not in before

    assert run("contest", tail, "--reason", "the logs show 6432").exit_code == 0
    contested = injected(tmp_path, project)
    assert "5433" in contested and f"[{tail} fact, contested]" in contested
    (line,) = [line for line in started(tmp_path, project).splitlines() if chunk.id in line]
    assert "contested" in line, line
    assert "[contested]" in run("list").output and "CONTESTED" in run("get", tail).output

    assert run("retract", tail, "--reason", "it was wrong").exit_code == 0
    assert "5433" not in injected(tmp_path, project)
    assert chunk.id not in started(tmp_path, project)
    assert "[retracted]" in run("list").output  # kept for the record

    assert run("reinstate", tail, "--reason", "checked again: right after all").exit_code == 0
    after = injected(tmp_path, project)
    assert "5433" in after and "contested" not in after and "retracted" not in after
    trail = [(e["action"], e["reason"]) for e in read_audit(store.root, chunk_id=chunk.id)
             if e["action"] in ("contest", "retract", "reinstate")]
    assert trail == [("contest", "the logs show 6432"), ("retract", "it was wrong"),
                     ("reinstate", "checked again: right after all")]


def test_contest_of_an_unknown_id_is_a_clear_error(tmp_path):
    result = run("contest", "chunk-2026-01-01-00000000")
    assert result.exit_code == 1 and result.output.startswith("Error: ") and "Traceback" not in result.output


def test_a_never_memory_survives_forget_permanent_and_gardening(tmp_path):
    store = ChunkStore(os.environ["RLM_MEM_DIR"], actor="test")
    made = run("remember", "The signing key ceremony needs two officers present", "--deletion-policy", "never")
    never = made.output.strip()
    assert made.exit_code == 0 and store.get_chunk(never).metadata["deletion_policy"] == "never"

    refused = run("forget", never, "--permanent")
    assert refused.exit_code == 1 and refused.output.startswith("Error: ") and "never" in refused.output
    assert store.get_chunk(never) is not None

    # old and unused: gardening archives the auto_prune one only
    dormant = {policy: store.create_chunk(f"The old build server {policy} was called jenkins-{i}",
                                          created=ago(200), metadata={"deletion_policy": policy}
                                          if policy != "auto_prune" else None).id
               for i, policy in enumerate(("auto_prune", "manual_only", "never"))}
    plan = garden.run(store, apply=True)
    assert plan["applied"]["archived"] == [dormant["auto_prune"]]
    assert store.get_chunk(dormant["manual_only"]) and store.get_chunk(dormant["never"])

    # a person may still remove a manual_only memory; a never one only once its policy is changed
    assert run("forget", dormant["manual_only"], "--permanent").exit_code == 0
    assert run("update", dormant["never"], "--deletion-policy", "manual_only").exit_code == 0
    assert run("forget", dormant["never"], "--permanent").exit_code == 0


def test_gardening_never_folds_a_kept_memory_into_a_master(tmp_path):
    store = ChunkStore(os.environ["RLM_MEM_DIR"], actor="test")
    base = "The staging database listens on port 5433."
    extras = ["It runs Postgres 15.", "Backups run nightly at 02:00 UTC.", "Only the deploy user may connect.",
              "Connections require TLS 1.3.", "The replica lags about two seconds.", "Its disk holds 500 GB.",
              "It was migrated from MySQL in January."]
    ids = [store.create_chunk(f"{base} {extra}", tags=["db", "staging"], created=ago(20 - i),
                              metadata={"deletion_policy": "manual_only"} if i == 0 else None).id
           for i, extra in enumerate(extras)]
    plan = garden.run(store, apply=True)
    (made,) = plan["applied"]["consolidated"]
    assert ids[0] not in made["members"] and set(made["members"]) == set(ids[1:])
    assert store.get_chunk(ids[0]) is not None
