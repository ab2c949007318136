"""The hooks that run on every session start and every prompt load only what they need (issue 8's targets depend
on it). Checked with `python -X importtime` on the real hook entry, as Claude Code runs it."""
import json
import os
import subprocess
import sys

import pytest
from harness.claude_code import BUNDLE_ROOT, fire

from brain.scripts import ChunkStore

sys.path.insert(0, str(BUNDLE_ROOT / "scripts"))
from demo import SESSION_1, write_transcript  # noqa: E402

NEVER = {"pathlib", "dataclasses", "logging", "typing", "tempfile", "subprocess", "inspect", "jsonschema", "yaml",
         "click", "filelock", "frontmatter", "brain.store.chunk_store", "brain.garden.garden",
         "mcp", "pydantic", "anyio", "brain.mcp"}  # the MCP server's SDK: `rlm-mem mcp` only
START_ALSO_NEVER = {"re", "json", "sqlite3", "enum", "datetime", "collections", "functools", "brain.recall",
                    "brain.recall.core", "brain.recall.recall", "brain.recall.prompt", "brain.recall.candidates",
                    "brain.recall.gate", "brain.recall.scoring", "brain.recall.render", "brain.recall.weights",
                    "brain.recall.depth"}


def imported(event, payload, env) -> set:
    python = BUNDLE_ROOT / ".venv" / "bin" / "python"
    p = subprocess.run([str(python), "-I", "-S", "-X", "importtime", str(BUNDLE_ROOT / "scripts" / "hook.py"), event],
                       input=json.dumps(payload), capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0
    return {line.rsplit("|", 1)[1].strip() for line in p.stderr.splitlines() if line.startswith("import time:")}


@pytest.fixture
def captured(tmp_path, isolated_memory, monkeypatch):
    monkeypatch.setenv("RLM_MEM_BACKGROUND", "0")
    project = tmp_path / "project"
    project.mkdir()
    path = tmp_path / "s1.jsonl"
    write_transcript(path, "s1", project, SESSION_1)
    capture = subprocess.run([str(BUNDLE_ROOT / ".venv" / "bin" / "rlm-mem"), "ingest", str(path)],
                             capture_output=True, text=True)
    assert capture.returncode == 0, capture.stderr
    return {"session_id": "s2", "transcript_path": "", "cwd": str(project)}


def test_session_start_reuses_its_brief_without_sqlite_or_regex(captured):
    first = fire("SessionStart", dict(captured, source="startup"))[0]
    assert "5433" in first.context
    mods = imported("session-start", dict(captured, source="startup"), os.environ.copy())
    assert "brain.session.brief" in mods
    assert not mods & (NEVER | START_ALSO_NEVER), sorted(mods & (NEVER | START_ALSO_NEVER))
    again = fire("SessionStart", dict(captured, source="startup"))[0]
    assert again.context == first.context


def test_a_cached_start_loads_no_secret_check(captured):
    """What a start served from its cached brief writes or names (a session id as Claude Code makes them, the
    brief's file named by a hash) holds no string the trigger tables would have to judge (~0.3 ms a start)."""
    start = dict(captured, session_id="0f8fad5b-d9cb-469f-a165-70867728950e", source="startup")
    fire("SessionStart", start)
    mods = imported("session-start", start, os.environ.copy())
    assert "brain.session.brief" in mods and not {m for m in mods if m.startswith("brain.safety.")}, sorted(mods)


def test_the_brief_is_recomputed_when_memory_changes(captured, isolated_memory):
    before = fire("SessionStart", dict(captured, source="startup"))[0].context
    store = ChunkStore(isolated_memory)
    pinned = store.create_chunk("Always deploy from the release branch", metadata={"pinned": True})
    after = fire("SessionStart", dict(captured, source="startup"))[0].context
    assert "release branch" not in before and "release branch" in after and pinned.id in after


def test_prompt_hook_loads_no_heavy_modules(captured):
    mods = imported("user-prompt-submit", dict(captured, prompt="which port does the staging database use?"),
                    os.environ.copy())
    assert "brain.recall.recall" in mods and "brain.safety.fence" in mods  # it did recall something
    assert not mods & NEVER, sorted(mods & NEVER)
    # A prompt without a date needs no date parsing: timeref (with `re`) and `datetime` stay unloaded.
    assert not mods & {"datetime", "brain.util.timeref"}, sorted(mods & {"datetime", "brain.util.timeref"})
    # SQLite's C module is given lru_cache without functools (and the collections it brings): ~4 ms a prompt.
    assert "_sqlite3" in mods and not mods & {"functools", "collections"}, sorted(mods & {"functools", "collections"})
    # Modules only other hooks, writers or other depths use (~0.3 ms of every prompt at 10k memories, bench/run.py).
    elsewhere = {"brain.hud", "brain.hud.sliders", "brain.recall.depth", "brain.index.fingerprint",
                 "brain.util.fasthash",
                 "brain.safety.triggers", "brain.safety.families"}  # the access line: ids and a time (~0.4 ms)
    assert not mods & elsewhere, sorted(mods & elsewhere)


def test_a_prompt_that_recalls_nothing_loads_no_secret_check(captured):
    """It writes nothing (no access to count), so the check that spares writes the redactor never loads either."""
    mods = imported("user-prompt-submit", dict(captured, prompt="zorblax quintessa frobnicate wibbleton"),
                    os.environ.copy())
    assert "brain.recall.recall" in mods and "brain.safety.fence" not in mods  # it recalled nothing
    assert not mods & {"brain.safety.triggers", "brain.safety.families"}, sorted(mods & {"brain.safety.triggers",
                                                                                        "brain.safety.families"})


def test_prompt_hook_without_a_date_loads_no_regex_engine(captured):
    mods = imported("user-prompt-submit", dict(captured, prompt="which port does the staging database use?"),
                    os.environ.copy())
    assert "brain.safety.fence" in mods  # it did recall something
    assert not mods & {"re", "enum", "json"}, sorted(mods & {"re", "enum", "json"})


def test_capture_refreshes_the_brief_so_the_next_start_needs_no_sqlite(captured, tmp_path):
    fire("SessionStart", dict(captured, source="startup"))  # asks for this project's brief once
    project = captured["cwd"]
    path = tmp_path / "s3.jsonl"
    write_transcript(path, "s3", project, [("user", "Remember that the cache TTL is 300 seconds.")])
    capture = subprocess.run([str(BUNDLE_ROOT / ".venv" / "bin" / "rlm-mem"), "ingest", str(path)],
                             capture_output=True, text=True)
    assert capture.returncode == 0, capture.stderr
    mods = imported("session-start", dict(captured, source="startup"), os.environ.copy())
    assert "sqlite3" not in mods and "_sqlite3" not in mods and "brain.recall.core" not in mods
    assert "cache TTL is 300 seconds" in fire("SessionStart", dict(captured, source="startup"))[0].context


def test_the_recall_legend_is_given_once_per_session_not_in_every_prompt(captured):
    from brain.recall.recall import RecallResult

    start = fire("SessionStart", dict(captured, source="startup"))[0].context
    assert RecallResult.LEGEND in start
    prompt = fire("UserPromptSubmit", dict(captured, prompt="which port does the staging database use?"))[0].context
    assert "5433" in prompt and RecallResult.LEGEND not in prompt
    body = prompt.split(">\n", 1)[1]  # after the fence's opening tag: a day line, then items
    day, item = body.splitlines()[:2]
    assert len(day) == 10 and day[4] == day[7] == "-" and item.startswith("- [")


def test_sqlite_loaded_without_functools_caches_statements_and_leaves_functools_whole():
    """brain.cpython.fast hands SQLite's C module a stand-in functools for its statement cache; in a fresh
    interpreter the cache must work (statements reused, many distinct ones) and a later `import functools` must
    give the real module."""
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(BUNDLE_ROOT)!r})\n"
        "from brain.cpython.fast import sqlite3\n"
        "assert 'functools' not in sys.modules and 'collections' not in sys.modules\n"
        "conn = sqlite3.connect(':memory:', cached_statements=16)\n"
        "conn.execute('CREATE TABLE t (n)')\n"
        "for i in range(500):\n"
        "    conn.execute('INSERT INTO t VALUES (?)', (i,))\n"
        "    conn.execute(f'SELECT {i % 40} + count(*) FROM t').fetchone()\n"
        "assert conn.execute('SELECT sum(n) FROM t').fetchone() == (sum(range(500)),)\n"
        "import functools\n"
        "assert functools.reduce(lambda a, b: a + b, [1, 2, 3]) == 6 and hasattr(functools, 'partial')\n"
        "print('ok')\n")
    python = BUNDLE_ROOT / ".venv" / "bin" / "python"
    run = subprocess.run([str(python), "-I", "-S", "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr
