"""The session lifecycle through real hooks (issue 3): every hook fired as a subprocess from hooks/hooks.json,
with JSON on stdin, the way Claude Code runs them."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SHARED_TRANSCRIPTS
from harness.claude_code import BUNDLE_ROOT, fire, hook_commands

from brain.hud.textwidth import display_width
from brain.scripts import ChunkStore

RLM = str(BUNDLE_ROOT / ".venv" / "bin" / "rlm-mem")
EVENTS = ("SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "SessionEnd")

sys.path.insert(0, str(BUNDLE_ROOT / "scripts"))
from demo import SESSION_1, write_transcript  # noqa: E402


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def ingest(*args):
    p = subprocess.run([RLM, "ingest", *args], capture_output=True, text=True, env=os.environ.copy(), timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    return p


def one(runs):
    assert len(runs) == 1
    return runs[0]


def session(tmp_path, project, sid="s1", turns=SESSION_1):
    path = tmp_path / f"{sid}.jsonl"
    write_transcript(path, sid, project, turns)
    return {"session_id": sid, "transcript_path": str(path), "cwd": str(project)}


def test_hooks_json_is_plugin_format_and_works_from_a_path_with_spaces(tmp_path, project):
    spec = json.loads((BUNDLE_ROOT / "hooks" / "hooks.json").read_text())
    assert set(spec["hooks"]) == set(EVENTS)
    plugin = json.loads((BUNDLE_ROOT / ".claude-plugin" / "plugin.json").read_text())
    assert plugin["name"] == "rlm-mem"
    spaced = tmp_path / "My Plugins" / "rlm mem"
    spaced.parent.mkdir()
    spaced.symlink_to(BUNDLE_ROOT)
    for event in EVENTS:
        (command, _), = hook_commands(event, {}, spaced)
        assert f'"{spaced}/scripts/run-python" -I -S' in command
        run = one(fire(event, {"session_id": "x", "cwd": str(project), "prompt": "hi", "source": "startup"},
                       bundle_root=spaced))
        assert run.returncode == 0 and run.stderr == "", (event, run.stderr)


def test_full_lifecycle_fact_comes_back_in_a_later_session(tmp_path, project, isolated_memory):
    base = session(tmp_path, project)
    assert one(fire("SessionStart", dict(base, source="startup"))).returncode == 0
    assert one(fire("Stop", dict(base, stop_hook_active=False))).returncode == 0
    end = one(fire("SessionEnd", dict(base, reason="prompt_input_exit")))
    assert end.returncode == 0 and end.stdout == ""
    ingest()
    later = {"session_id": "s2", "transcript_path": str(tmp_path / "s2.jsonl"), "cwd": str(project)}
    (tmp_path / "s2.jsonl").write_text("")
    start = one(fire("SessionStart", dict(later, source="startup")))
    envelope = json.loads(start.stdout)
    ctx = envelope["hookSpecificOutput"]["additionalContext"]
    assert envelope["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "RLM-MEM LIVEHUD" in ctx and "<rlm-mem-context" in ctx and len(ctx) < 10_000
    assert "Add retry handling for failed webhooks" in ctx  # last session's open work reaches the Future gauge
    prompt = one(fire("UserPromptSubmit", dict(later, prompt="Which port does the staging database listen on?")))
    recalled = json.loads(prompt.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "5433" in recalled and "<rlm-mem-context" in recalled


def test_the_last_sessions_open_work_is_in_full_however_many_pins_and_corrections(tmp_path, project,
                                                                                  isolated_memory):
    """A long-time user's store holds pinned memories and corrections, which the start brief shows in full first;
    the last session's record (what is left open) must still be shown in full, not as a one-line index entry, and
    its open work must not be cut off behind a long list of the commands it ran."""
    store = ChunkStore(os.environ["RLM_MEM_DIR"])
    for i in range(10):
        store.create_chunk(f"Pinned rule {i}: the {i}th service keeps its own schema and never shares tables.",
                           metadata={"pinned": True})
        store.create_chunk(f"Actually, the service number {i} listens on port {7000 + i}, not {8000 + i}.",
                           metadata={"kind": "correction"})
    commands = "; ".join(f"`go test ./internal/waitlist/... -run TestCase{i} -count=1 -race`" for i in range(12))
    store.create_chunk("Session 2026-11-20 09:30-09:38 UTC (s7). Intent: waitlist for berths. Files changed: "
                       f"waitlist.go. Commands: {commands}. Outcome: waitlist works. Follow-ups: Send waitlist "
                       "emails through Postmark; Per-token rate limiting on the booking API.", chunk_type="note",
                       conversation_id="s7", metadata={"kind": "session"})
    (tmp_path / "s8.jsonl").write_text("")
    start = one(fire("SessionStart", {"session_id": "s8", "transcript_path": str(tmp_path / "s8.jsonl"),
                                      "cwd": str(project), "source": "startup"}))
    ctx = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    full = ctx.split("Most important:", 1)[1].split("Index (", 1)[0]
    assert "Per-token rate limiting on the booking API" in full, ctx
    assert full.count("pinned") >= 5  # the pins are still there


def test_the_session_start_says_when_to_record_and_with_which_command(tmp_path, project):
    """One instruction outside the fence, at most 300 characters, naming commands SKILL.md gives (issue 34)."""
    import re

    from brain.cli.main import cli

    base = session(tmp_path, project)
    ctx = json.loads(one(fire("SessionStart", dict(base, source="startup"))).stdout)[
        "hookSpecificOutput"]["additionalContext"]
    (line,) = [line for line in ctx.split("\n\n") if line.startswith("rlm-mem: when a decision is made")]
    assert len(line) <= 300 and "<rlm-mem-context" not in line
    commands = set(re.findall(r"`(remember|supersede|[a-z]+) ", line))
    assert commands == {"remember", "supersede"} and commands <= set(cli.list_commands(None))
    skill = (BUNDLE_ROOT / "SKILL.md").read_text()
    assert all(f"`rlm-mem {command} " in skill for command in commands)


def test_after_compaction_the_context_is_injected_again(tmp_path, project):
    base = session(tmp_path, project)
    fire("SessionEnd", dict(base, reason="other"))
    ingest()
    again = one(fire("SessionStart", dict(base, source="compact")))
    ctx = json.loads(again.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Session: Active" in ctx and "5433" in ctx


def test_unrelated_prompt_gets_nothing(tmp_path, project):
    base = session(tmp_path, project)
    fire("SessionEnd", dict(base, reason="other"))
    ingest()
    run = one(fire("UserPromptSubmit", dict(base, prompt="Convert this loop into a list comprehension")))
    assert run.returncode == 0
    ctx = run.context
    assert len(ctx) <= 500


def test_capture_is_idempotent_and_incremental(tmp_path, project, isolated_memory):
    base = session(tmp_path, project, turns=SESSION_1[:3])
    fire("Stop", dict(base, stop_hook_active=False))
    ingest()
    store = ChunkStore(isolated_memory)
    partial = {p.name for p in store.layout.iter_chunk_paths()}
    ingest(base["transcript_path"])  # captured in full now: only the session record is new
    first = {p.name for p in store.layout.iter_chunk_paths()}
    assert len(first - partial) == 1
    ingest(base["transcript_path"])  # the same transcript again: nothing new
    assert {p.name for p in store.layout.iter_chunk_paths()} == first
    write_transcript(Path(base["transcript_path"]), "s1", project, SESSION_1)  # the session grew
    fire("SessionEnd", dict(base, reason="other"))
    ingest()
    grown = {p.name for p in store.layout.iter_chunk_paths()}
    assert first < grown
    ingest(base["transcript_path"])
    assert {p.name for p in store.layout.iter_chunk_paths()} == grown
    contents = [c["content"] for c in store.layout.iter_chunks()]
    assert len(contents) == len(set(contents))  # each thing stored once


def test_timestamps_come_from_the_transcript(tmp_path, project, isolated_memory):
    base = session(tmp_path, project)
    fire("SessionEnd", dict(base, reason="other"))
    ingest()
    created = {c["metadata"]["created"][:10] for c in ChunkStore(isolated_memory).layout.iter_chunks()}
    assert created == {"2026-11-20"}


def test_private_spans_reminders_and_own_context_are_never_stored(tmp_path, project, isolated_memory):
    turns = [
        ("user", "Deploy the app. <private>my home address is 12 Elm Street</private> Use the blue-green setup."),
        ("assistant", "Deploying with blue-green now."),
        ("user", "<system-reminder>The todo list is empty.</system-reminder>Also remember that the cache TTL is 300s."),
        ("user", '<rlm-mem-context fence="abc" note="x">\n- [2026-01-01 · chunk-2026-01-01-aaaaaaaa] an old memory '
                 'about kumquats\n</rlm-mem-context fence="abc">\nThanks.'),
    ]
    base = session(tmp_path, project, turns=turns)
    fire("SessionEnd", dict(base, reason="other"))
    ingest()
    text = "\n".join(c["content"] for c in ChunkStore(isolated_memory).layout.iter_chunks())
    assert "Elm Street" not in text and "todo list is empty" not in text and "kumquats" not in text
    assert "blue-green" in text and "cache TTL is 300s" in text


def test_secrets_in_a_conversation_are_redacted(tmp_path, project, isolated_memory):
    key = "AKIA" + "Q3EXAMPLE7ABCDEF"
    turns = [("user", f"Here is the config: AWS_ACCESS_KEY_ID={key} and password=hunter2hunter2")]
    base = session(tmp_path, project, turns=turns)
    fire("SessionEnd", dict(base, reason="other"))
    ingest()
    stored = "\n".join(p.read_text() for p in Path(isolated_memory).rglob("*") if p.is_file() and p.suffix == ".json")
    assert key not in stored and "hunter2hunter2" not in stored and "[REDACTED:" in stored


def test_per_project_off_switch(tmp_path, project, isolated_memory):
    (project / ".rlm-mem.json").write_text('{"enabled": false}')
    base = session(tmp_path, project)
    assert one(fire("SessionStart", dict(base, source="startup"))).stdout == ""
    fire("SessionEnd", dict(base, reason="other"))
    ingest()
    assert list(ChunkStore(isolated_memory).layout.iter_chunk_paths()) == []
    assert one(fire("UserPromptSubmit", dict(base, prompt="staging database port?"))).stdout == ""


def test_session_start_captures_only_sessions_it_saw_start(tmp_path, project, isolated_memory):
    lost = session(tmp_path, project, sid="lost-session")  # rlm-mem saw it start; its SessionEnd never came
    assert one(fire("SessionStart", dict(lost, source="startup"))).returncode == 0
    older = session(tmp_path, project, sid="before-install")  # a transcript from before rlm-mem: never seen
    current = {"session_id": "new", "transcript_path": str(tmp_path / "new.jsonl"), "cwd": str(project)}
    (tmp_path / "new.jsonl").write_text("")
    assert one(fire("SessionStart", dict(current, source="startup"))).returncode == 0
    ingest()
    convs = {c["metadata"]["conversation_id"] for c in ChunkStore(isolated_memory).layout.iter_chunks()}
    assert lost["session_id"] in convs and older["session_id"] not in convs
    ingest("--backfill", str(tmp_path))  # older transcripts only on request
    convs = {c["metadata"]["conversation_id"] for c in ChunkStore(isolated_memory).layout.iter_chunks()}
    assert older["session_id"] in convs


@pytest.mark.parametrize("event", EVENTS)
@pytest.mark.parametrize("stdin", [b"", b"not json at all", b"[1, 2, 3]", b'{"session_id": 42, "prompt": ["x"]}',
                                   b"\xff\xfe\x00garbage", b'{"prompt": "' + b"x" * 3_000_000 + b'"}'])
def test_garbage_stdin_fails_open(event, stdin, project):
    run = one(fire(event, {"cwd": str(project)}, stdin=stdin))
    assert run.returncode == 0
    assert len(run.stderr.strip().splitlines()) <= 1
    assert len(run.stdout) < 10_000


@pytest.mark.parametrize("event", EVENTS)
def test_missing_transcript_fails_open(event, tmp_path, project):
    payload = {"session_id": "gone", "transcript_path": str(tmp_path / "nope.jsonl"), "cwd": str(project),
               "source": "startup", "prompt": "hello there", "reason": "other"}
    run = one(fire(event, payload))
    assert run.returncode == 0 and len(run.stderr.strip().splitlines()) <= 1
    ingest()


def test_unwritable_memory_gives_memory_candidates(tmp_path, project, monkeypatch):
    if os.geteuid() == 0:
        blocker = tmp_path / "blocker"  # root ignores permissions: make the memory path impossible instead
        blocker.write_text("a file where a folder should be")
        memory = blocker / "memory"
    else:
        memory = tmp_path / "readonly"
        memory.mkdir()
        memory.chmod(0o500)
    monkeypatch.setenv("RLM_MEM_DIR", str(memory))
    base = session(tmp_path, project)
    end = one(fire("SessionEnd", dict(base, reason="other")))
    assert end.returncode == 2  # Claude Code shows stderr to the person
    assert "[MEMORY_CANDIDATES]" in end.stderr and "5433" in end.stderr and "nothing was saved" in end.stderr
    kept = list((tmp_path / "xdg-state" / "rlm-mem" / "candidates").glob("*.md"))
    assert kept and "[MEMORY_CANDIDATES]" in kept[0].read_text()
    start = one(fire("SessionStart", dict(base, source="startup")))
    assert start.returncode == 0
    p = subprocess.run([RLM, "ingest", base["transcript_path"]], capture_output=True, text=True)
    assert p.returncode == 1 and "Error:" in p.stderr and "Traceback" not in p.stderr


def test_candidates_block_imports_back(tmp_path, project, monkeypatch, isolated_memory):
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    monkeypatch.setenv("RLM_MEM_DIR", str(blocker / "memory"))
    base = session(tmp_path, project)
    end = one(fire("SessionEnd", dict(base, reason="other")))
    kept = list((tmp_path / "xdg-state" / "rlm-mem" / "candidates").glob("*.md"))[0]
    monkeypatch.setenv("RLM_MEM_DIR", str(isolated_memory))
    p = subprocess.run([RLM, "import", "--format", "candidates", str(kept)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    text = "\n".join(c["content"] for c in ChunkStore(isolated_memory).layout.iter_chunks())
    assert "5433" in text and end.returncode == 2


def test_session_end_is_fast_on_a_5mb_transcript(tmp_path, project):
    big = tmp_path / "big.jsonl"
    line = {"type": "user", "uuid": "u", "sessionId": "big", "timestamp": "2026-11-20T10:00:00Z",
            "cwd": str(project), "message": {"role": "user", "content": "word " * 200}}
    with open(big, "w") as fh:
        for i in range(5 * 1024 * 1024 // 1100 + 1):
            fh.write(json.dumps(dict(line, uuid=f"u{i}")) + "\n")
    assert big.stat().st_size >= 5 * 1024 * 1024
    runs = [one(fire("SessionEnd", {"session_id": "big", "transcript_path": str(big), "cwd": str(project),
                                    "reason": "other"})) for _ in range(3)]
    assert all(r.returncode == 0 for r in runs)
    assert min(r.seconds for r in runs) < 1.5


def test_real_claude_code_transcripts(tmp_path, project, isolated_memory):
    paths = sorted(SHARED_TRANSCRIPTS.glob("*.jsonl"))
    assert paths, f"the shared transcripts are missing ({SHARED_TRANSCRIPTS}: the workplace's data beside the clone)"
    for path in paths:
        base = {"session_id": path.stem, "transcript_path": str(path), "cwd": str(project)}
        for event, extra in (("SessionStart", {"source": "startup"}), ("UserPromptSubmit", {"prompt": "decorators"}),
                             ("Stop", {}), ("PreCompact", {"trigger": "auto"}), ("SessionEnd", {"reason": "other"})):
            run = one(fire(event, dict(base, **extra)))
            assert run.returncode == 0 and run.stderr == "", (path.name, event, run.stderr)
    ingest()
    chunks = list(ChunkStore(isolated_memory).layout.iter_chunks())
    assert chunks
    text = "\n".join(c["content"] for c in chunks)
    assert "<system-reminder>" not in text and "decorator" in text.lower()


def test_slider_commands_in_a_prompt(tmp_path, project, isolated_memory):
    base = session(tmp_path, project)
    run = one(fire("UserPromptSubmit", dict(base, prompt="Set Humor to 70%")))
    assert run.returncode == 0 and "70%" in run.context
    hud = subprocess.run([RLM, "hud"], capture_output=True, text=True).stdout
    assert "Humor" in hud and "70%" in hud
    fire("UserPromptSubmit", dict(base, prompt="Technical mode"))
    hud = subprocess.run([RLM, "hud"], capture_output=True, text=True).stdout
    assert "Mode: Technical" in hud
    fire("UserPromptSubmit", dict(base, prompt="Reset sliders"))
    hud = subprocess.run([RLM, "hud"], capture_output=True, text=True).stdout
    assert "Mode: Base" in hud
    assert all(display_width(line) == 80 for line in hud.strip().splitlines())


def test_high_sensitivity_memories_are_not_injected(tmp_path, project, isolated_memory):
    from brain.context.project import project_id

    store = ChunkStore(isolated_memory)
    pid = project_id(project).id
    store.create_chunk("The vault unseal phrase is kept in the red binder", metadata={"sensitivity": "high",
                                                                                      "project": pid})
    store.create_chunk("The vault service runs on port 8200", metadata={"project": pid})
    base = {"session_id": "x", "transcript_path": "", "cwd": str(project)}
    ctx = one(fire("UserPromptSubmit", dict(base, prompt="where is the vault unseal phrase kept?"))).context
    assert "red binder" not in ctx
    start = one(fire("SessionStart", dict(base, source="startup"))).context
    assert "red binder" not in start


def test_install_and_uninstall_merge_settings(tmp_path):
    proj = tmp_path / "app"
    (proj / ".claude").mkdir(parents=True)
    settings = proj / ".claude" / "settings.local.json"  # a project's hooks name this machine's paths
    original = {"model": "opus", "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}]}}
    settings.write_text(json.dumps(original))
    before = settings.read_bytes()
    first = subprocess.run([RLM, "install", "--project", str(proj)], capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    merged = json.loads(settings.read_text())
    assert merged["model"] == "opus" and len(merged["hooks"]["SessionStart"]) == 2
    assert set(merged["hooks"]) >= set(EVENTS)
    assert (proj / ".claude" / "skills" / "rlm-mem").exists()
    again = subprocess.run([RLM, "install", "--project", str(proj)], capture_output=True, text=True)
    assert again.returncode == 0 and json.loads(settings.read_text()) == merged
    assert sorted(p.name for p in (proj / ".claude").iterdir()) == ["settings.local.json", "skills"]  # no backups
    out = subprocess.run([RLM, "uninstall", "--project", str(proj)], capture_output=True, text=True)
    assert out.returncode == 0 and settings.read_bytes() == before
    assert sorted(p.name for p in (proj / ".claude").iterdir()) == ["settings.local.json"]


def test_where_explains_the_folder(isolated_memory):
    p = subprocess.run([RLM, "where", "--json"], capture_output=True, text=True)
    info = json.loads(p.stdout)
    assert info["root"] == str(isolated_memory) and "RLM_MEM_DIR" in info["reason"]


def test_skill_md_is_lean_and_names_only_real_commands():
    import re

    import yaml
    from click.testing import CliRunner

    from brain.cli.main import cli

    text = (BUNDLE_ROOT / "SKILL.md").read_text()
    front = yaml.safe_load(text.split("---")[1])
    assert front["name"] == "rlm-mem" and 50 < len(front["description"]) <= 1024
    assert len(text.splitlines()) < 500
    named = set(re.findall(r"`rlm-mem ([a-z][a-z-]+)", text))
    assert {"remember", "recall", "get", "pin", "forget", "restore", "link", "hud", "ingest", "supersede"} <= named
    for command in named:
        assert command in cli.list_commands(None), command
        assert CliRunner().invoke(cli, [command, "--help"]).exit_code == 0
    for ref in ("brain/MEMORY_SCHEMA.md", "ARCHITECTURE.md", "README.md"):
        assert (BUNDLE_ROOT / ref).is_file()


@pytest.mark.parametrize("event", ["SessionStart", "UserPromptSubmit"])
def test_a_reading_hook_whose_output_cannot_be_written_still_exits_0(event, tmp_path, project):
    """The reading hooks leave without the interpreter's teardown once their answer is flushed; a stdout that
    refuses the answer (a full device here, a reader gone in Claude Code) must not turn that into a traceback."""
    store = ChunkStore(os.environ["RLM_MEM_DIR"])
    store.create_chunk("The staging database listens on port 5433.")
    payload = {"session_id": "s", "transcript_path": "", "cwd": str(project), "source": "startup",
               "prompt": "which port does the staging database listen on?", "hook_event_name": event}
    ((command, _),) = hook_commands(event, payload)
    with open("/dev/full", "w") as full:
        run = subprocess.run(command, shell=True, input=json.dumps(payload).encode(), stdout=full,
                             stderr=subprocess.PIPE, cwd=project, timeout=60)
    assert run.returncode == 0
    assert len(run.stderr.strip().splitlines()) <= 1, run.stderr
