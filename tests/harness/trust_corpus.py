"""Every secret of tests/fixtures/secrets/positives.txt, pushed through every way a string reaches the memory folder.

`write_everywhere(root, tmp)` stores each secret line through each (write path, field) of WRITE_PATHS, as a person,
a hook or an import would, and returns what it stored where. `leaks(root, extra_texts)` then reads every byte the
memory folder holds (chunk files, JSON indexes, search.db and its WAL, audit/, episodes/, state/, file names) plus
any other text given (a hook's stderr, the candidates fallback file) and says which secret is found in which of
them. tests/test_trust.py asserts there is none; bench/trust.py --only redaction prints the table per path and
field. Every value here is synthetic.
"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

BUNDLE = Path(__file__).resolve().parents[2]
FIXTURES = BUNDLE / "tests" / "fixtures" / "secrets"
PYTHON = BUNDLE / ".venv" / "bin" / "python"
RLM = [str(PYTHON), str(BUNDLE / "scripts" / "rlm_mem.py")]
MIN_SECRET = 6  # shorter secrets ("abc") could be found by chance in unrelated text


def corpus(name):
    lines = FIXTURES.joinpath(name).read_text(encoding="utf-8").splitlines()
    return [line.replace("\\n", "\n") for line in lines if line.strip() and not line.startswith("#")]


def positives(one_per_kind: bool = False):
    """[(text with the secret, [the secret parts])] from positives.txt (only the first line of each kind when
    `one_per_kind`: every family, at a quarter of the cost)."""
    out, kinds = [], set()
    for line in corpus("positives.txt"):
        kind, marked = line.split("\t", 1)
        if one_per_kind and kind in kinds:
            continue
        kinds.add(kind)
        secrets = [s for s in re.findall("«([^»]*)»", marked) if len(s) >= MIN_SECRET]
        out.append((marked.replace("«", "").replace("»", ""), secrets))
    return out


def _cli(root, *args, stdin=None):
    """The command line in-process (click's runner): what a person types, without an interpreter start each."""
    from click.testing import CliRunner

    from brain.cli.main import cli

    return CliRunner().invoke(cli, ["--dir", str(root), *args], input=stdin)


def _one_line(text):
    return " ".join(text.split())


def _tags(text):
    """The line as one tag when it can be one (a tag holds at most 64 characters and no comma); cutting it would
    cut the secret from what makes it one, which no person's tag does either."""
    one = _one_line(text)
    return [one] if len(one) <= 64 and "," not in one else []


# ---------------------------------------------------------------- the write paths
def library_fields(root, cases):
    """ChunkStore.create_many with the secret in every field a caller can set."""
    from brain.scripts import ChunkStore

    store = ChunkStore(root, actor="trust-test")
    specs = []
    for i, (text, _) in enumerate(cases):
        specs.append({"content": f"Library note {i}.", "tags": _tags(text),
                      "conversation_id": _one_line(text)[:200],
                      "metadata": {"title": text, "project_name": _one_line(text)[:200],
                                   "files": [text], "provenance": {"kind": "import", "ref": text, "file": text},
                                   "extra": {"deep": [{"deeper": {"deepest": [text]}}], _one_line(text)[:80]: 1}},
                      "key": f"library:{i}"})
    errors = []
    store.create_many(specs, reason="trust corpus", on_error=lambda i, exc: errors.append(i), bulk=True)
    return {("library", f): len(cases) for f in ("tags", "conversation_id", "title", "project_name", "files",
                                                  "provenance", "extra (any depth, keys too)")}


def cli_paths(root, cases):
    """remember (content, --tags, --conversation), update (--content, --tags, --reason), forget --reason."""
    ids = []
    for text, _ in cases:
        p = _cli(root, "remember", "--json", "--tags", ",".join(_tags(text)),
                 "--conversation", _one_line(text)[:200], stdin=f"Config note:\n{text}")
        if p.exit_code == 0:
            ids.append(json.loads(p.stdout)[0]["id"])
    for (text, _), cid in zip(cases, ids):
        _cli(root, "update", cid, "--content", f"Updated:\n{text}", "--tags", ",".join(_tags(text)),
             "--reason", text)
    for (text, _), cid in zip(cases, ids[: len(ids) // 2]):
        _cli(root, "forget", cid, "--reason", text)
    n = len(cases)
    return {("remember", "content"): n, ("remember", "tags"): n, ("remember", "conversation id"): n,
            ("update", "content"): n, ("update", "tags"): n, ("update", "audit reason"): n,
            ("forget", "audit reason"): n // 2}


def capture_paths(root, tmp, cases):
    """A transcript carrying every secret (user and assistant words, a Bash command, an edit's new line, a small
    file written whole, a file path, "remember that" memories), its session id and project folder named after a
    secret, captured by the real worker."""
    sys.path.insert(0, str(BUNDLE / "scripts"))
    from demo import write_transcript

    token = next(s for _, secrets in positives() for s in secrets if s.startswith("ghp_"))
    project = tmp / f"project-{token}"
    project.mkdir(exist_ok=True)
    turns = []
    for text, _ in cases:
        turns.append(("user", f"Remember that the config is:\n{text}"))
        turns.append(("assistant", f"I saw this:\n{text}",
                      [("Bash", {"command": _one_line(text)}, "ok"), ("Read", {"file_path": f"/etc/{token}.conf"},
                                                                     "ok"),
                       ("Edit", {"file_path": "app/settings.py", "old_string": "KEY = None",  # its summary names it
                                 "new_string": _one_line(text)[:150]}, "ok"),
                       ("Write", {"file_path": "app/.env.local", "content": _one_line(text)[:150]}, "ok")]))
    session = f"session-{token}"
    transcript = tmp / f"{session}.jsonl"
    write_transcript(transcript, session, project, turns)
    p = subprocess.run(RLM + ["--dir", str(root), "ingest", str(transcript)], capture_output=True, text=True,
                       timeout=300)  # the worker as hooks start it: its own process
    assert p.returncode == 0, p.stderr
    n = len(cases)
    return {("capture", "user words"): n, ("capture", "assistant words"): n, ("capture", "Bash command"): n,
            ("capture", "an edit's new line, a small file's"): n, ("capture", "typed memory + episode log"): n,
            ("capture", "session id, project folder, file path"): 1}


def _frontmatter(meta: dict, body: str) -> str:
    return "---\n" + yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, width=10_000) + "---\n\n" + body + "\n"


def import_paths(root, tmp, cases):
    """Every import format, the secret in content, titles, frontmatter, metadata at any depth, file names."""
    folder = tmp / "imports"
    folder.mkdir(exist_ok=True)
    n = len(cases)
    # jsonl: records and whole chunks
    records = []
    for i, (text, _) in enumerate(cases):
        records.append({"content": f"imported {i}:\n{text}", "tags": _tags(text),
                        "conversation_id": _one_line(text)[:200],
                        "metadata": {"title": text, "files": [text], "provenance": {"ref": text},
                                     "custom": {"nested": [text, {"again": text}]}, "notes": text}})
        records.append({"id": f"chunk-2026-03-01-{i:08x}", "content": f"restored {i}:\n{text}", "tokens": 20,
                        "type": "note", "tags": _tags(text), "links": {},
                        "metadata": {"created": "2026-03-01T10:00:00Z", "conversation_id": _one_line(text)[:200],
                                     "source": "import", "confidence": 0.8, "access_count": 0,
                                     "last_accessed": None, "title": text, "extra": {"x": [text]}}})
    (folder / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    # markdown (hand-written: frontmatter fields), legacy, cognitive, claude-memory, candidates
    md, legacy, cog, cm = (folder / name for name in ("markdown", "legacy", "cognitive/graph/general", "cm"))
    for d in (md, legacy, cog, cm):
        d.mkdir(parents=True, exist_ok=True)
    index = ["# Memory index", ""]
    blocks = []
    for i, (text, secrets) in enumerate(cases):
        one = _one_line(text)
        (md / f"note{i}.md").write_text(_frontmatter({"type": "note", "title": one, "tags": _tags(text),
                                                      "metadata": {"extra": {"why": text}}}, f"body {i}: {text}"))
        # the file named after the whole line (a bare "hunter22" is no secret without its "password=")
        name = f"{i} {one}.md" if "/" not in one and len(one.encode()) < 200 else f"legacy{i}.md"
        (legacy / name).write_text(f"# {one}\n**Created:** 2026-02-08 14:30\n**Category:** {one}\n"
                                   f"**Tags:** [{', '.join(_tags(text))}]\n---\nlegacy body {i}: {text}\n")
        (cog / f"cog{i}.md").write_text(_frontmatter({"id": f"cog-{i}", "type": "solution", "title": one,
                                                      "importance": 0.5, "steps": [text], "owner": text},
                                                     f"cognitive body {i}: {text}"))
        (cm / f"topic{i}.md").write_text(_frontmatter({"name": one, "description": one, "type": "reference"},
                                                      f"topic body {i}: {text}"))
        index.append(f"- note {i}: {one}")
        blocks.append(f"{i + 1}. candidate_note_{i}.md — category: present — tags: [{', '.join(_tags(text))}]\n"
                      f"   ---\n   {one}\n")
    (cm / "MEMORY.md").write_text("\n".join(index) + "\n")
    (folder / "block.txt").write_text("## System Notes\n\n[MEMORY_CANDIDATES]\n" + "\n".join(blocks))
    for fmt, path in (("jsonl", folder / "records.jsonl"), ("markdown", md), ("legacy", legacy),
                      ("cognitive", folder / "cognitive"), ("claude-memory", cm), ("candidates", folder / "block.txt")):
        p = _cli(root, "import", "--format", fmt, str(path))
        assert p.exception is None or isinstance(p.exception, SystemExit), p.exception
    return {("import jsonl", "content, tags, conversation id"): n, ("import jsonl", "metadata at any depth"): n,
            ("import jsonl", "whole chunk restored"): n, ("import markdown", "frontmatter"): n,
            ("import legacy", "title, fields, file name"): n, ("import cognitive", "frontmatter, steps"): n,
            ("import claude-memory", "MEMORY.md line (provenance.ref), topic"): n,
            ("import candidates", "name, tags, content"): n}


def hook_paths(root, tmp, cases):
    """Hooks: Stop and SessionEnd queue a session whose id and transcript name hold a secret; SessionStart keeps
    a brief; a slider command moves the HUD. Returns the hooks' stderr (it must be clean too)."""
    sys.path.insert(0, str(BUNDLE / "tests"))
    sys.path.insert(0, str(BUNDLE / "scripts"))
    from demo import write_transcript
    from harness.claude_code import fire

    token = next(s for _, secrets in positives() for s in secrets if s.startswith("sk_live_"))
    project = tmp / "hook-project"
    project.mkdir(exist_ok=True)
    transcript = tmp / f"{token}.jsonl"
    write_transcript(transcript, token, project, [("user", text) for text, _ in cases[:10]])
    env = dict(os.environ, RLM_MEM_DIR=str(root), RLM_MEM_BACKGROUND="0")
    base = {"session_id": token, "transcript_path": str(transcript), "cwd": str(project)}
    stderr = []
    for event, extra in (("SessionStart", {"source": "startup"}), ("UserPromptSubmit", {"prompt": "Set Humor to 70%"}),
                         ("UserPromptSubmit", {"prompt": cases[0][0]}), ("Stop", {}), ("SessionEnd", {"reason": "exit"})):
        stderr += [r.stderr for r in fire(event, dict(base, **extra), env=env)]
    return {("hooks", "queue entry and file name (session id)"): 1, ("hooks", "brief, HUD state"): 1}, stderr


def candidates_fallback(tmp, cases):
    """SessionEnd with memory unwritable: the MEMORY_CANDIDATES block on stderr and in the fallback file."""
    sys.path.insert(0, str(BUNDLE / "tests"))
    sys.path.insert(0, str(BUNDLE / "scripts"))
    from demo import write_transcript
    from harness.claude_code import fire

    blocker = tmp / "blocker"
    blocker.write_text("a file where the memory folder should be")
    project = tmp / "fallback-project"
    project.mkdir(exist_ok=True)
    transcript = tmp / "fallback.jsonl"
    write_transcript(transcript, "fallback", project,
                     [("user", f"Remember that {_one_line(text)}") for text, _ in cases])
    state = tmp / "xdg-fallback"
    env = dict(os.environ, RLM_MEM_DIR=str(blocker / "memory"), XDG_STATE_HOME=str(state),
               RLM_MEM_HOOK_TIMEOUT="60")
    run = fire("SessionEnd", {"session_id": "fallback", "transcript_path": str(transcript), "cwd": str(project),
                              "reason": "exit"}, env=env)[0]
    assert run.returncode == 2 and "[MEMORY_CANDIDATES]" in run.stderr, run.stderr[-500:]
    kept = "".join(p.read_text(encoding="utf-8") for p in state.rglob("*.md"))
    assert kept, "no fallback file was kept"
    return {("candidates fallback", "stderr and fallback file"): len(cases)}, [run.stderr, kept]


def write_everywhere(tmp: Path, cases=None) -> list:
    """Push the corpus (all of it unless `cases` says) through every write path, each into a memory folder of its
    own (so a leak names its path). Returns [(memory folder, {(path, field): secrets written}, other texts that
    must be clean)]."""
    cases = positives() if cases is None else cases
    out = []
    for name, write in (("library", lambda root: (library_fields(root, cases), [])),
                        ("cli", lambda root: (cli_paths(root, cases), [])),
                        ("capture", lambda root: (capture_paths(root, tmp, cases), [])),
                        ("import", lambda root: (import_paths(root, tmp, cases), [])),
                        ("hooks", lambda root: hook_paths(root, tmp, cases)),
                        ("fallback", lambda root: candidates_fallback(tmp, cases))):
        root = tmp / f"memory-{name}"
        counts, texts = write(root)
        out.append((root, counts, texts))
    return out


def stored_bytes(root: Path) -> dict:
    """Every file under the memory folder (search.db and its WAL included, read as raw bytes) and every name."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        out[f"name:{rel}"] = rel.encode("utf-8")
        if path.is_file() and not path.is_symlink():
            out[rel] = path.read_bytes()
    return out


def leaks(root: Path, texts=(), cases=None) -> list:
    """(secret, where) for each secret of the corpus (or of `cases`) found in the memory folder or in `texts`."""
    stored = stored_bytes(root)
    stored.update({f"text {i}": t.encode("utf-8") for i, t in enumerate(texts)})
    found = []
    for _, secrets in positives() if cases is None else cases:
        for secret in secrets:
            forms = {secret.encode("utf-8"), secret.lower().encode("utf-8"), json.dumps(secret)[1:-1].encode("utf-8")}
            for where, data in stored.items():
                if any(form in data for form in forms):
                    found.append((secret, where))
    return found
