"""The coding histories as data (bench/coding/*.yaml through bench/coding/histories.py) and the benchmark's --check.

The project's own histories all pass the check; a broken file is refused with every problem named and no
traceback; MultiEdit and NotebookEdit calls are written in Claude Code's shapes and read back by rlm-mem's own
transcript parser; and a history from outside the project runs through the real hooks with the benchmark's
metrics (changed values, null prompts, the typed memories' dump).
"""
import json
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench" / "coding_memory.py"
sys.path.insert(0, str(ROOT / "bench"))

import ceilings  # noqa: E402
from coding.histories import HistoryError, available, load  # noqa: E402
from harness.transcripts import write_session  # noqa: E402

from brain.capture.transcript import parse_transcript  # noqa: E402

TINY = """\
name: tinyapp
project: tinyapp
about: A made-up project, two sessions, for the loader's tests.
sessions:
  - id: t1-start
    days_ago: 9
    turns:
      - user: "Serve the API on port 7001 and keep the job timeout at 30 seconds."
      - assistant: "Done: the API listens on port 7001."
        tools:
          - write: config/app.yaml
            content: |
              port: 7001
              job_timeout: 30
          - bash: "make run"
            output: "listening on :7001"
          - read: config/app.yaml
            output: "port: 7001"
          - todo:
              - ["Add a health check", "pending"]
  - id: t2-change
    days_ago: 2
    turns:
      - user: "Move the API to port 7450 and raise the job timeout to 90."
      - assistant: ""
        tools:
          - multiedit: config/app.yaml
            edits:
              - {old: "port: 7001", new: "port: 7450"}
              - {old: "job_timeout: 30", new: "job_timeout: 90"}
          - notebook: notebooks/load.ipynb
            cell: cell-3
            source: "df = load(timeout=90)"
          - edit: Makefile
            old: "--port 7001"
            new: "--port 7450"
          - bash: "make check"
            output: "FAILED: 1 check"
            ok: false
questions:
  - ask: "Which port does the API use?"
    answers: ["7450"]
    stale: ["7001"]
changes:
  - what: "the API port"
    old: "port: 7001"
    new: "port: 7450"
    how: edit
brief:
  holds: ["7450", ["health check", "Health check"]]
  stale: ["port 7001"]
"""


def check(*paths, cwd=ROOT):
    return subprocess.run([sys.executable, str(BENCH), "--check", *map(str, paths)], check=False,
                          capture_output=True, text=True, cwd=cwd, timeout=60)


def test_every_history_of_the_project_passes_the_check():
    names = available()
    assert len(names) >= 11
    proc = check(*names)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("ok: ") == len(names)


def test_a_broken_history_is_refused_naming_each_problem(tmp_path):
    broken = (TINY.replace("days_ago: 2", "days_ago: 12")  # after the first session's 9: out of time order
              .replace('answers: ["7450"]', "answers: [7450]")  # a number, not a string
              .replace("    how: edit", "    how: by hand")
              .replace("          - read: config/app.yaml", "          - raed: config/app.yaml")
              .replace('stale: ["port 7001"]', 'stale: ["port 7002"]'))  # said nowhere in the history
    path = tmp_path / "tinyapp.yaml"
    path.write_text(broken)
    proc = check(path)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    err = proc.stderr
    assert err.startswith(f"Error: {path}:"), err
    for wanted in ("session t2-change.days_ago 12 is not before the previous session's 9",
                   "questions[0].answers[0] should be a string, not a number (7450: quote it)",
                   "changes[0].how should be one of edit, new file, command output, words, not 'by hand'",
                   "should name exactly one tool", "not none (its keys: raed, output)"):
        assert wanted in err, (wanted, err)
    # the text check runs once the file is well formed
    path.write_text(TINY.replace('stale: ["port 7001"]', 'stale: ["port 7002"]'))
    proc = check(path)
    assert proc.returncode == 1
    assert "brief.stale 'port 7002' occurs nowhere in the history's turns or tool calls" in proc.stderr
    assert check(tmp_path / "missing.yaml").stderr.startswith(f"Error: {tmp_path / 'missing.yaml'}: 1 problem")
    path.write_text("name: [unclosed")
    assert "not readable as YAML" in check(path).stderr


def test_strings_match_case_and_whitespace_insensitively(tmp_path):
    path = tmp_path / "tinyapp.yaml"
    path.write_text(TINY.replace('old: "port: 7001"', 'old: "PORT:   7001"'))
    assert load(str(path)).changes[0].old == "PORT:   7001"
    with pytest.raises(HistoryError) as caught:
        load(str(tmp_path / "tiny"), folder=tmp_path / "elsewhere")
    assert "no such history file" in str(caught.value)
    path.rename(tmp_path / "other.yaml")
    with pytest.raises(HistoryError) as caught:
        load(str(tmp_path / "other.yaml"))
    assert caught.value.problems == [
        "name 'tinyapp' should be the file's name (other.yaml holds tinyapp.yaml's history)"]


def test_multiedit_and_notebook_calls_are_written_as_claude_code_writes_them(tmp_path):
    path = tmp_path / "tinyapp.yaml"
    path.write_text(TINY)
    history = load(str(path))
    sid, _, turns = history.sessions[1]
    out = write_session(tmp_path / f"{sid}.jsonl", sid, tmp_path, datetime.now(timezone.utc), turns)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    uses = [b for r in records if r["type"] == "assistant" for b in r["message"]["content"] if b["type"] == "tool_use"]
    assert [u["name"] for u in uses] == ["MultiEdit", "NotebookEdit", "Edit", "Bash"]
    assert uses[0]["input"] == {"file_path": "config/app.yaml", "edits": [
        {"old_string": "port: 7001", "new_string": "port: 7450"},
        {"old_string": "job_timeout: 30", "new_string": "job_timeout: 90"}]}
    assert uses[1]["input"] == {"notebook_path": "notebooks/load.ipynb", "cell_id": "cell-3",
                                "new_source": "df = load(timeout=90)", "cell_type": "code", "edit_mode": "replace"}
    results = [b for r in records if r["type"] == "user" and isinstance(r["message"]["content"], list)
               for b in r["message"]["content"]]
    assert results[0]["content"].startswith("Applied 2 edits to config/app.yaml:\n1. Replaced \"port: 7001\"")
    assert results[1]["content"] == "Updated cell cell-3 with df = load(timeout=90)"
    assert results[3]["is_error"] is True
    # rlm-mem's own parser reads what the multiedit replaced and which notebook was changed
    tools = [t for turn in parse_transcript(out).turns for t in turn.tool_uses]
    assert tools[0].edit == ("port: 7001\njob_timeout: 30", "port: 7450\njob_timeout: 90")
    assert tools[1].file_path == "notebooks/load.ipynb" and tools[3].ok is False


def test_a_history_outside_the_project_runs_with_every_metric(tmp_path):
    path = tmp_path / "tinyapp.yaml"
    path.write_text(TINY)
    prompts = tmp_path / "none.txt"
    prompts.write_text("How do I reverse a string in JavaScript?\nWrite a haiku about autumn leaves\n")
    out, dump = tmp_path / "out.json", tmp_path / "dump"
    kept = tmp_path / "kept"
    proc = subprocess.run([sys.executable, str(BENCH), "--history", str(path), "--json", str(out), "--dump-typed",
                           str(dump), "--null-prompts", str(prompts), "--keep", str(kept)], check=False,
                          capture_output=True, text=True, cwd=ROOT, timeout=110)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text())[0]
    assert report["history"] == "tinyapp" and report["nonzero_hook_exits"] == 0
    assert report["answered_count"] == 1 and report["stale_shown_as_current"] == 0, report
    changed = report["changed_values"]
    assert changed["total"] == 1 and changed["passed"] + len(changed["failing"]) == 1
    assert isinstance(report["null_prompt_chars"], float)
    typed = json.loads((dump / "tinyapp" / "typed.json").read_text())
    assert typed["history"] == "tinyapp" and typed["changed_values"][0]["old"] == "port: 7001"
    for memory in typed["typed_memories"]:  # no verbatim turn or session record among them
        assert memory["kind"] not in ("turn", "session") and memory["session"] in ("t1-start", "t2-change")
    assert sorted(p.name for p in (dump / "tinyapp" / "transcripts").iterdir()) == ["t1-start.jsonl",
                                                                                  "t2-change.jsonl"]
    assert (dump / "tinyapp" / "tinyapp.yaml").read_text() == TINY
    assert "## Changed values: " in (dump / "tinyapp" / "typed.md").read_text()
    assert "changed values stated as current" in proc.stdout
    # asked again in-process of the store the run kept: the same contexts as through the hook
    again = tmp_path / "again.json"
    proc = subprocess.run([sys.executable, str(BENCH), "--history", str(path), "--json", str(again), "--null-prompts",
                           str(prompts), "--reuse", str(kept)], check=False, capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    reused = json.loads(again.read_text())[0]
    for key in ("answered_count", "stale_shown_as_current", "mean_injected_chars", "null_prompt_chars",
                "changed_values", "typed_memories"):
        assert reused[key] == report[key], key
    assert reused["brief_held"] is None and "brief holds" not in proc.stdout
    # bench/ceilings.py on the same store: each miss sorted by what would answer it, each stale value by its change
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "ceilings.py"), str(kept), str(out), "--history",
                           str(path)], check=False, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("1 histories, 1 questions: answered 1 (100.0%); with every cut off, at most 1")
    question = SimpleNamespace(ask="Which port does the API use?", answers=["7450"])
    nowhere = SimpleNamespace(ask="What is the deploy host?", answers=["deploy.tinyapp.example"])
    history = SimpleNamespace(name="tinyapp", project="tinyapp", questions=[question, nowhere],
                              changes=load(str(path)).changes)
    made_up = dict(report, answered_count=0, questions=2, misses=[question.ask, nowhere.ask],
                   stale=[(question.ask, ["port: 7001"]), (nowhere.ask, ["a value no change names"])])
    row = ceilings.measure(history, kept, made_up)
    assert row["misses"] == {"uncut rank 1": 1, "answer stored nowhere": 1}
    assert row["stale"] == {"edit": 1, "no change names it (words)": 1}


def test_an_unknown_history_is_an_error_before_anything_runs():
    proc = subprocess.run([sys.executable, str(BENCH), "--history", "ledger,nosuchhistory"], check=False,
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("Error: ") and "nosuchhistory.yaml: no such history file" in proc.stderr


def test_a_value_changed_again_later_is_checked_as_replaced_not_as_current():
    from coding.histories import Change
    from coding_memory import changed_values

    changes = [Change("ruby", "ruby 3.2", "ruby 3.3", "edit"), Change("ruby again", "ruby 3.3", "ruby 3.4", "edit")]
    memory = {"live": True, "id": "m1", "content": "ruby = 3.4 (was 3.3): ruby 3.4"}
    assert changed_values(changes, [memory])["passed"] == 2
    stale = {"live": True, "id": "m2", "content": "We run ruby 3.3 now"}
    result = changed_values(changes, [memory, stale])
    assert result["passed"] == 0 and [row["old_stated_by"] for row in result["failing"]] == [["m2"], ["m2"]]
