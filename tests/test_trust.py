"""Issue 13: no secret stored in any field, nothing written outside the store, hostile inputs refused.

- The redaction boundary: no module writes a file except through brain/util/files.py, whose writers redact every
  string at any depth; its two non-redacting writers have named callers (checked on the source with `ast`).
- The project's corpus (tests/fixtures/secrets/) through every write path and field, every stored byte searched
  (search.db included), look-alikes and the store's own ids kept.
- No write or append through a symbolic link anywhere in the memory folder; doctor finds each one.
- Devices and FIFOs as transcript_path or import source: refused before any read, hooks exit 0 with one line.
- doctor reads every file of the store, audit/ and state/ included.
"""
import ast
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from click.testing import CliRunner
from harness.claude_code import BUNDLE_ROOT, fire
from harness.trust_corpus import FIXTURES, alone_cases, corpus, leaked, lookalikes_changed, positives, run_paths

from brain.cli.main import cli
from brain.safety.redact import find_secrets, redact, redact_value
from brain.safety.triggers import may_hold_secret
from brain.scripts import ChunkStore
from brain.store.doctor import check_store, repair_store
from brain.util.errors import NotRegularFile, StoreUnwritable
from brain.util.files import atomic_write_json

BRAIN = BUNDLE_ROOT / "brain"
RLM = [str(BUNDLE_ROOT / ".venv" / "bin" / "python"), str(BUNDLE_ROOT / "scripts" / "rlm_mem.py")]

# ---------------------------------------------------------------- the boundary, on the source
WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"}
WRITING_CALLS = {"write_text", "write_bytes", "symlink_to", "hardlink_to", "copy", "copy2", "copyfile", "copytree",
                 "move"}
OS_CALLS = {"write", "symlink", "link", "truncate"}  # os.<name>
# Modules that may open a file for writing themselves, and why.
RAW_WRITERS = {
    "brain/util/files.py": "the boundary itself",
    "brain/index/search_index.py": "SQLite's own file: rows made from chunk files the boundary wrote",
    "brain/store/doctor.py": "opens search.db for SQLite's integrity check (reads only)",
    "brain/setup/install.py": "copies the person's settings.json before editing it; links the skill folder",
    "brain/session/background.py": "/dev/null as the detached worker's stdin, stdout and stderr",
    # outside any memory folder, files that are Claude Code's or the installation's own
    "brain/hooks/handlers.py": "appends the plugin's data folder to Claude Code's CLAUDE_ENV_FILE",
    "brain/setup/provision.py": "rlm-mem's Python packages, pip's lock and log in rlm-mem's cache folder",
    "brain/context/dependencies.py": "a link to the interpreter in rlm-mem's cache folder",
}
NON_REDACTING = {  # the writers that say in their names that they do not redact, and who may call them
    "derived_stream": {"brain/index/json_indexes.py"},
    "write_user_bytes": {"brain/setup/install.py", "brain/util/files.py"},
    "write_user_text": {"brain/setup/install.py", "brain/interop/jsonl.py",
                        "brain/util/files.py",  # (write_user_json is written with it)
                        "brain/interop/markdown.py"},
    "write_user_json": {"brain/setup/install.py", "brain/context/project.py"},
}

# Who may tell the chunk writer that a value is redacted already (files.BatchWriter.write(clean=True)): the bulk
# path, for a chunk store/build has just made (build redacts every string of it at any depth).
CLEAN_CALLERS = {"brain/store/chunk_store.py"}


def _calls(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            yield name, node


def _owner(node: ast.Call) -> str:
    return getattr(node.func.value, "id", "") if isinstance(node.func, ast.Attribute) else ""


def _writes(name: str, node: ast.Call) -> bool:
    if name in ("open", "fdopen"):
        modes = [a for a in node.args[1:2]] + [k.value for k in node.keywords if k.arg in ("mode", "flags")]
        for mode in modes:
            if isinstance(mode, ast.Constant) and isinstance(mode.value, str) and set(mode.value) & set("wax+"):
                return True
            names = {n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", "") for n in ast.walk(mode)}
            if names & WRITE_FLAGS:
                return True
        return False
    if name in OS_CALLS and _owner(node) == "os":
        return True
    if name == "connect" and _owner(node) == "sqlite3":
        return True
    return name in WRITING_CALLS


def test_no_module_writes_a_file_except_through_the_boundary():
    found = []
    for path in sorted(BRAIN.rglob("*.py")):
        rel = path.relative_to(BUNDLE_ROOT).as_posix()
        for name, node in _calls(path):
            if _writes(name, node) and rel not in RAW_WRITERS:
                found.append(f"{rel}:{node.lineno} {name}(...)")
    assert not found, "write through brain/util/files.py instead:\n" + "\n".join(found)


def test_the_non_redacting_writers_have_named_callers():
    found = []
    for path in sorted(BRAIN.rglob("*.py")):
        rel = path.relative_to(BUNDLE_ROOT).as_posix()
        for name, node in _calls(path):
            if name in NON_REDACTING and rel not in NON_REDACTING[name]:
                found.append(f"{rel}:{node.lineno} {name}")
            says_clean = any(k.arg == "clean" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
                             and not (isinstance(k.value, ast.Name) and k.value.id == "clean") for k in node.keywords)
            if says_clean and rel not in CLEAN_CALLERS:  # (passing a caller's own `clean` on is the chain itself)
                found.append(f"{rel}:{node.lineno} {name}(clean=...)")
    assert not found, found


# ---------------------------------------------------------------- the corpus through every write path
def test_the_corpus_is_big_enough():
    kinds = {line.split("\t", 1)[0] for line in corpus("positives.txt")}
    assert len(corpus("positives.txt")) >= 240 and len(kinds) >= 30
    assert len(corpus("lookalikes.txt")) >= 160 and len(corpus("alone.txt")) >= 150


def _no_secret_stored(tmp_path, one_per_kind):
    rows = run_paths(tmp_path, one_per_kind=one_per_kind)
    paths = {path for path, *_ in rows}
    assert {"remember, update", "import (6 formats)", "library and imports", "remember", "update, forget", "capture",
            "hooks", "SessionEnd, memory unwritable", "alone"} <= paths
    fields = {field for path, field, *_ in rows if path == "alone"}
    assert fields == {"tag", "conversation id", "ids in metadata", "quoted command argument",
                      "value given to a secret store or login"}
    found = [(path, field, kinds) for path, field, written, root, others in rows
             if (kinds := leaked(root, others, written))]
    assert not found, found
    # Something was stored on each path: a store left empty would pass the search above for nothing.
    for path, field, written, root, others in rows:
        if path not in ("hooks", "SessionEnd, memory unwritable"):
            assert list(root.glob("**/chunk-*.json")), (path, field)  # (chunks/ or archive/)
    hooks_root = next(root for path, _, _, root, _ in rows if path == "hooks")
    assert (hooks_root / "state" / "hud.json").exists() and list((hooks_root / "state" / "queue").glob("*.json"))


def test_no_secret_of_any_kind_reaches_any_stored_byte_on_any_write_path(tmp_path):
    _no_secret_stored(tmp_path, one_per_kind=True)


@pytest.mark.slow
def test_no_secret_of_the_whole_corpus_reaches_any_stored_byte_on_any_write_path(tmp_path):
    _no_secret_stored(tmp_path, one_per_kind=False)  # (bench/trust.py --only redaction prints its table)


def test_a_secret_cut_before_it_was_redacted_counts_as_leaked(tmp_path):
    """The search finds pieces: a token clipped to length before redaction (41 of an age key's 58 characters)."""
    secret = "AGE-SECRET-KEY-1XZP262UP7DI0X35GQUYNHD8V8XBU4NQ3DSU7KV4HL8R60YBHOT386XCCBA"
    root = tmp_path / "m"
    root.mkdir()
    (root / "a.json").write_text(json.dumps({"title": "Session: " + secret[:41] + "…"}))
    assert leaked(root, [], [("age", [secret])]) == ["age"]
    assert leaked(root, [secret[:10]], [("age", [secret])]) == ["age"]  # (stored in the root already)
    (root / "a.json").write_text(json.dumps({"title": "Session: [REDACTED:private_key]"}))
    assert leaked(root, [secret[:10]], [("age", [secret])]) == []


def test_look_alikes_are_kept_on_every_field(tmp_path):
    changed = lookalikes_changed(tmp_path)
    assert not any(changed.values()), {field: lines[:5] for field, lines in changed.items() if lines}


def test_redaction_keeps_the_store_own_ids_hashes_and_paths(tmp_path):
    store = ChunkStore(tmp_path / "mem")
    made = store.create_chunk("a captured memory", key="turn:7f3c9e2a-41d8-4b6e-9a0f-2c5d8e1b3a47:u1:1",
                              conversation_id="7f3c9e2a-41d8-4b6e-9a0f-2c5d8e1b3a47",
                              metadata={"provenance": {"kind": "event", "file": str(tmp_path / "a-token.jsonl")}})
    data = json.loads(store.layout.chunk_path(made.id).read_text())
    assert data["id"] == made.id and data["metadata"]["provenance"]["hash"].startswith("key:")
    assert len(data["metadata"]["provenance"]["hash"]) == 20 and "[REDACTED" not in json.dumps(data)
    library_made = [made.id, data["metadata"]["provenance"]["hash"], data["metadata"]["created"],
                    "sha1:3f786850e387550fdab836ed7e6dc881de23001b", "7f3c9e2a-41d8-4b6e-9a0f-2c5d8e1b3a47",
                    "/home/dev/.claude/projects/-home-dev-app/7f3c9e2a-41d8-4b6e-9a0f-2c5d8e1b3a47.jsonl"]
    assert [redact(v) for v in library_made] == library_made


LOOKALIKES = corpus("lookalikes.txt")


def test_look_alikes_survive_every_field(tmp_path):
    store = ChunkStore(tmp_path / "mem")
    specs = [{"content": f"Kept as is: {text}", "conversation_id": " ".join(text.split())[:200],
              "metadata": {"title": text, "extra": {"nested": [text]}, "provenance": {"ref": text}}}
             for text in LOOKALIKES]
    store.create_many(specs)
    chunks = list(store.layout.iter_chunks())
    assert len(chunks) == len(LOOKALIKES)
    for text in LOOKALIKES:
        chunk = next(c for c in chunks if c["metadata"]["title"] == text)
        assert chunk["metadata"]["extra"]["nested"] == [text] and chunk["metadata"]["provenance"]["ref"] == text
        assert " ".join(text.split()) in " ".join(chunk["content"].split())


def test_redact_value_reaches_every_depth_and_keys():
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    value = {"a": [{"b": (secret, 1)}], secret: {"c": f"token={secret}"}, "n": 3, "t": True}
    out = redact_value(value)
    assert out is value and secret not in json.dumps(out)
    assert out["n"] == 3 and out["t"] is True


@pytest.mark.parametrize("text, secrets", positives(), ids=range(len(positives())))
def test_every_secret_trips_the_cheap_check_writers_ask_first(text, secrets):
    # brain/util/files.py skips the regex engine for strings that trip no trigger: that must never skip a secret.
    assert may_hold_secret(text)


def test_every_secret_alone_trips_the_cheap_check_too():
    # Short strings skip the rules when the cheap check says no (brain/safety/redact.py): a token alone, of either
    # corpus, must still trip it whenever a rule would find it.
    tokens = [token for folder in (FIXTURES, FIXTURES.with_name("secrets-heldout")) for _, token, _ in alone_cases(folder)]
    assert len(tokens) > 200
    assert not [t for t in tokens if not may_hold_secret(t) and find_secrets(t)]


def test_what_hooks_write_on_every_prompt_never_loads_the_regex_engine():
    # The prompt hook appends ids and a time to the access log; SessionStart and SessionEnd write queue entries.
    # None of it may trip the cheap check, or `re` (and the redactor) would load on every prompt.
    import random

    rng = random.Random(13)
    for _ in range(2000):
        stamp = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:" \
                f"{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z"
        ids = [f"chunk-{stamp[:10]}-{rng.getrandbits(32):08x}" for _ in range(3)]
        session = "-".join(f"{rng.getrandbits(b):0{b // 4}x}" for b in (32, 16, 16, 16, 48))
        line = json.dumps({"t": stamp, "ids": ids})
        entry = json.dumps({"session_id": session, "transcript_path": f"/home/dev/.claude/projects/-home-dev-app/"
                            f"{session}.jsonl", "cwd": "/home/dev/app", "final": True, "enqueued": 1.5e9})
        assert not may_hold_secret(line) and not may_hold_secret(entry), (line, entry)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcdefABCDEF0123456789-:TZchunkxyz =", min_size=0, max_size=30))
def test_what_the_writer_takes_as_plainly_clean_holds_no_secret(text):
    """The writer lets chunk ids, UTC times and words of five letters through without the trigger check; each of
    those shapes must be one redaction leaves alone."""
    from brain.util.files import _plainly_clean

    if _plainly_clean(text):
        assert redact(text) == text


def test_the_plainly_clean_shapes_are_exact():
    from brain.util.files import _plainly_clean

    assert _plainly_clean("chunk-2026-11-28-1a2b3c4d") and _plainly_clean("2026-11-28T12:00:00Z")
    assert _plainly_clean("ids")
    assert _plainly_clean("0f8fad5b-d9cb-469f-a165-70867728950e")
    for text in ("chunk-2026-11-28-1A2B3C4D", "chunk-2026-11-28-1a2b3c4g", "chunk-2026x11-28-1a2b3c4d",
                 "2026-11-28T12:00:00+0", "hunter2", "pa55", "sk-ab", "chunk-2026-11-28-1a2b3c4d5",
                 "0f8fad5b-d9cb-469f-a165-70867728950g", "0f8fad5bd9cb-469f-a165-70867728950e-"):
        assert not _plainly_clean(text), text


def test_text_without_a_trigger_is_never_changed_by_redaction():
    for text in LOOKALIKES + ["chunk-2026-02-10-a1b2c3d4", "2026-11-20T10:00:00Z", "/tmp/x/s1.jsonl"]:
        if not may_hold_secret(text):
            assert redact(text) == text


# ---------------------------------------------------------------- symbolic links
def _store_with_memory(tmp_path):
    store = ChunkStore(tmp_path / "mem", actor="test")
    store.create_chunk("The staging database listens on port 5433", tags=["db"], key="turn:s0:u1:1")
    return store


LINKED_FILES = ["audit/{month}.jsonl", "state/hud.json", "state/deleted-keys.txt", "episodes/{day}.md",
                "index/access_log.jsonl", "index/metadata_index.json", "index/search.db-wal", "index/.store.lock",
                "CORE.md"]
LINKED_FOLDERS = ["audit", "state", "episodes", "state/queue", "state/brief", "state/captured", "quarantine"]


def _plant(store, rel, outside):
    from brain.util.timestamps import utc_now

    now = utc_now()
    rel = rel.format(month=now[:7], day=now[:10])
    target = store.root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_dir():
        os.replace(target, outside / ("moved-" + target.name))
    elif target.exists():
        target.unlink()
    target.symlink_to(outside / target.name, target_is_directory=target.suffix == "")
    return target


def _every_write(store, tmp_path):
    """What people and hooks do, in-process: remember, update, forget with a reason, access counts, the HUD, an
    episode, a brief, a queued and captured session, CORE.md, gardening and a repair."""
    from brain.capture.ingest import capture_transcript
    from brain.capture.queue import enqueue
    from brain.hud.state import apply_prompt_commands
    from brain.index.access import record_access
    from brain.store.episodes import append_episode

    sys.path.insert(0, str(BUNDLE_ROOT / "scripts"))
    from demo import SESSION_1, write_transcript

    outcomes = []

    def attempt(what, call):
        try:
            call()
            outcomes.append((what, None))
        except (StoreUnwritable, NotRegularFile, sqlite3.Error) as exc:  # (SQLite refuses a linked WAL to a reader)
            outcomes.append((what, str(exc)))

    chunk = store.list_chunks()[0]
    transcript = tmp_path / "s1.jsonl"
    (tmp_path / "project").mkdir(exist_ok=True)
    write_transcript(transcript, "s1", tmp_path / "project", SESSION_1)
    attempt("remember", lambda: store.remember("another memory", tags=["x"]))
    attempt("update", lambda: store.revise_chunk(chunk.id, tags=["db", "y"], reason="why"))
    attempt("access", lambda: record_access(store.root, [chunk.id]))  # (get_chunk would swallow the refusal)
    attempt("hud", lambda: apply_prompt_commands(store.root, "Set Humor to 70%"))
    attempt("episode", lambda: append_episode(store.root, None, "a title", chunk.id))
    attempt("forget", lambda: store.delete_chunk(chunk.id, permanent=True, reason="gone"))
    attempt("brief", lambda: atomic_write_json(store.root / "state" / "brief" / "p.medium.json", {"memory": "x"}))
    attempt("queue", lambda: enqueue(store.root, "s1", str(transcript)))
    attempt("capture", lambda: capture_transcript(store, transcript, final=True))
    for args in (["core", "--write"], ["garden", "--apply"], ["doctor", "--repair"]):
        result = CliRunner().invoke(cli, ["--dir", str(store.root), *args])
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
        outcomes.append((args[0], result.output if result.exit_code else None))
    return outcomes


@pytest.mark.parametrize("rel", LINKED_FILES + LINKED_FOLDERS)
def test_no_write_follows_a_link_anywhere_in_the_memory_folder(tmp_path, rel, caplog):
    store = _store_with_memory(tmp_path)
    store.get_chunk(store.list_chunks()[0].id)  # an access log to link
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim").write_text("the person's own file\n")
    link = _plant(store, rel, outside)
    if link.suffix:  # a link to a file: its target is the victim
        os.replace(outside / "victim", outside / link.name)
    before = {p.name: p.read_bytes() for p in outside.rglob("*") if p.is_file()}
    outcomes = _every_write(store, tmp_path)
    after = {p.name: p.read_bytes() for p in outside.rglob("*") if p.is_file()}
    assert after == before, f"written through {rel}: {set(after) ^ set(before) or 'changed content'}"
    refusals = [msg for _, msg in outcomes if msg]
    # a saved write whose audit line was refused says so in a warning instead of failing (a retry would duplicate it)
    refusals += [r.getMessage() for r in caplog.records if "symbolic link" in r.getMessage()]
    assert refusals, "nothing tried to write there: the test would prove nothing"
    assert any(link.name in m and "symbolic link" in m for m in refusals), refusals
    if link.is_symlink():  # (a link the store only renames away, such as the access log's, may be gone)
        assert "symlink" in {p.code for p in check_store(store).problems}


def test_hooks_never_write_through_a_linked_state_folder(tmp_path):
    store = _store_with_memory(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (store.root / "state").mkdir(exist_ok=True)
    (store.root / "state").rename(outside / "state")
    (store.root / "state").symlink_to(outside / "state", target_is_directory=True)
    before = sorted(p.relative_to(outside).as_posix() for p in outside.rglob("*"))
    sys.path.insert(0, str(BUNDLE_ROOT / "scripts"))
    from demo import SESSION_1, write_transcript

    (tmp_path / "project").mkdir()
    write_transcript(tmp_path / "s1.jsonl", "s1", tmp_path / "project", SESSION_1)
    env = dict(os.environ, RLM_MEM_DIR=str(store.root), RLM_MEM_BACKGROUND="0")
    base = {"session_id": "s1", "transcript_path": str(tmp_path / "s1.jsonl"), "cwd": str(tmp_path / "project")}
    for event, extra in (("SessionStart", {"source": "startup"}), ("UserPromptSubmit", {"prompt": "Set Humor to 70%"}),
                         ("Stop", {}), ("SessionEnd", {"reason": "exit"})):
        run = fire(event, dict(base, **extra), env=env)[0]
        assert run.returncode in (0, 2) and "Traceback" not in run.stderr, run.stderr
    assert sorted(p.relative_to(outside).as_posix() for p in outside.rglob("*")) == before


def test_a_refused_link_is_one_clear_warning(tmp_path, caplog):
    store = _store_with_memory(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (store.root / "audit").rename(outside / "audit")
    (store.root / "audit").symlink_to(outside / "audit", target_is_directory=True)
    result = CliRunner().invoke(cli, ["--dir", str(store.root), "remember", "one more memory"])
    # the memory is saved (a failed write would be retried into a duplicate); the refused audit line is one warning
    assert result.exit_code == 0 and "Traceback" not in result.output
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and "symbolic link" in warnings[0] and "rlm-mem doctor" in warnings[0]
    assert any(c.content == "one more memory" for c in store.list_chunks())
    assert not any((outside / "audit").iterdir()) or all(
        "one more memory" not in p.read_text() for p in (outside / "audit").iterdir())


# ---------------------------------------------------------------- devices and FIFOs
@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "nobody-writes.jsonl"
    os.mkfifo(path)
    return path


def _hook_cpu(event, payload, env):
    """Run one hook as Claude Code does; (its run, CPU seconds, peak kB of its process tree). The peak is the
    hook's own, measured by a small /usr/bin/time around it: this process's RUSAGE_CHILDREN keeps the largest
    child it ever waited for (pip in another test), and a child forked from pytest starts at pytest's size."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.NamedTemporaryFile("r") as peak:
        run = fire(event, payload, env=env, prefix=("/usr/bin/time", "-q", "-f", "%M", "-o", peak.name))[0]
        peak_kb = int(peak.read().split()[-1])
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return run, cpu, peak_kb


@pytest.mark.skipif(not os.path.exists("/usr/bin/time"), reason="measures the hook's peak with /usr/bin/time")
@pytest.mark.parametrize("event", ["SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "SessionEnd"])
def test_a_transcript_that_is_not_a_file_is_refused_before_any_read(tmp_path, fifo, isolated_memory, event):
    env = dict(os.environ, RLM_MEM_BACKGROUND="0")
    project = tmp_path / "project"
    project.mkdir()
    for target in ("/dev/zero", "/dev/urandom", str(fifo)):
        payload = {"session_id": "x", "transcript_path": target, "cwd": str(project), "prompt": "port?",
                   "source": "startup", "reason": "exit"}
        run, cpu, peak_kb = _hook_cpu(event, payload, env)
        assert run.returncode == 0, run.stderr
        assert len(run.stderr.splitlines()) == 1 and "not a regular file" in run.stderr, run.stderr
        assert cpu < 2.0 and peak_kb < 200_000  # reading /dev/zero took 24 GB; a FIFO held the hook 8 s
    assert not list((isolated_memory / "state" / "queue").glob("*.json"))


def test_a_queued_entry_that_fails_is_dropped_at_once_with_one_log_line(tmp_path, fifo, isolated_memory):
    from brain.capture.queue import enqueue, pending

    enqueue(isolated_memory, "dev", "/dev/zero")
    enqueue(isolated_memory, "fifo", str(fifo))
    enqueue(isolated_memory, "gone", str(tmp_path / "missing.jsonl"))
    p = subprocess.run(RLM + ["--dir", str(isolated_memory), "ingest"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert pending(isolated_memory) == []
    log = (isolated_memory / "state" / "capture-failures.log").read_text().splitlines()
    assert len(log) == 3 and all("dropped" in line for line in log)
    again = subprocess.run(RLM + ["--dir", str(isolated_memory), "ingest"], capture_output=True, text=True)
    assert again.returncode == 0 and "nothing pending" in again.stdout


@pytest.mark.parametrize("fmt", ["jsonl", "markdown", "legacy", "auto"])
def test_import_of_a_device_or_fifo_is_an_error_before_any_read(fifo, fmt):
    for source in ("/dev/zero", str(fifo)):
        p = subprocess.run(RLM + ["import", "--format", fmt, source], capture_output=True, text=True, timeout=30)
        assert p.returncode == 1 and p.stderr.startswith("Error: ") and "not a regular file" in p.stderr, p.stderr


def test_stdin_and_lines_are_read_with_a_bound(tmp_path):
    from brain.interop import jsonl

    big = tmp_path / "long-line.jsonl"
    with open(big, "wb") as fh:
        fh.write(b'{"content": "' + b"x" * (jsonl.MAX_LINE + 10) + b'"}\n{"content": "a short one"}\n')
    result = CliRunner().invoke(cli, ["--dir", str(tmp_path / "m"), "import", "--format", "jsonl", str(big)])
    assert result.exit_code == 0 and "longer than" in result.output and "imported 1 chunk" in result.output


# ---------------------------------------------------------------- doctor reads every file
def test_doctor_finds_links_devices_and_broken_logs_and_state(tmp_path, fifo):
    store = _store_with_memory(tmp_path)
    root = store.root
    audit_file = next((root / "audit").glob("*.jsonl"))
    with open(audit_file, "a") as fh:
        fh.write("{not json\n")
        fh.write(json.dumps({"time": "yesterday", "action": "dance"}) + "\n")
    (root / "state" / "queue").mkdir(parents=True)
    (root / "state" / "queue" / "s1.json").write_text("[1, 2]")
    (root / "state" / "hud.json").write_text("{broken")
    (root / "state" / "deleted-keys.txt").write_text("key:0123456789abcdef\nnot-a-key\n")
    os.replace(fifo, root / "state" / "captured.json")
    (tmp_path / "elsewhere.txt").write_text("x")
    (root / "episodes").mkdir()
    (root / "episodes" / "2026-01-01.md").symlink_to(tmp_path / "elsewhere.txt")
    (root / "state" / "notes.txt").write_text("left by a person")
    for path in root.rglob("*"):
        if not path.is_symlink() and not path.is_fifo():
            os.chmod(path, 0o700 if path.is_dir() else 0o600)
    report = check_store(store)
    found = {(p.code, p.path) for p in report.problems}
    assert ("audit_log", audit_file.relative_to(root).as_posix()) in found
    assert {("state_file", "state/queue/s1.json"), ("state_file", "state/hud.json"),
            ("state_file", "state/deleted-keys.txt"), ("not_a_file", "state/captured.json"),
            ("symlink", "episodes/2026-01-01.md")} <= found
    assert any("state/notes.txt" in note for note in report.notes)
    repaired = repair_store(store)
    assert repaired.ok, repaired.problems
    lines = audit_file.read_text().splitlines()
    assert lines and all(json.loads(line)["action"] for line in lines)
    assert (root / "state" / "deleted-keys.txt").read_text() == "key:0123456789abcdef\n"
    assert (tmp_path / "elsewhere.txt").read_text() == "x"
