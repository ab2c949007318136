"""The secrets corpus on every write path (issue 5): remember, update, jsonl import, candidates import, capture of
a transcript. No secret may reach any file under the memory folder; every look-alike must survive as written."""
import json
import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from harness.claude_code import BUNDLE_ROOT

from brain.cli.main import cli
from brain.scripts import ChunkStore

FIXTURES = Path(__file__).parent / "fixtures" / "secrets"


def corpus(name):
    lines = FIXTURES.joinpath(name).read_text(encoding="utf-8").splitlines()
    return [line.replace("\\n", "\n") for line in lines if line.strip() and not line.startswith("#")]


POSITIVES = [(line.split("\t", 1)[1].replace("«", "").replace("»", ""), re.findall("«([^»]*)»", line))
             for line in corpus("positives.txt")]
LOOKALIKES = corpus("lookalikes.txt")


def everything_stored(root: Path) -> str:
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in root.rglob("*") if p.is_file())


def assert_clean(root: Path):
    stored = everything_stored(root)
    leaked = [s for _, secrets in POSITIVES for s in secrets if len(s) >= 6 and s in stored]
    assert not leaked, leaked[:5]


@pytest.fixture
def run(isolated_memory):
    runner = CliRunner()
    return lambda *args, input=None: runner.invoke(cli, list(args), input=input, catch_exceptions=False)


def test_remember_and_update(run, isolated_memory):
    ids = []
    for text, _ in POSITIVES:
        r = run("remember", "--json", input=f"Config note:\n{text}")
        assert r.exit_code == 0, r.output
        ids.append(json.loads(r.output)[0]["id"])
    for (text, _), cid in zip(POSITIVES, ids):
        assert run("update", cid, "--content", f"Updated:\n{text}").exit_code == 0
    assert_clean(isolated_memory)


def test_jsonl_and_candidates_import(run, isolated_memory, tmp_path):
    jsonl = tmp_path / "records.jsonl"
    jsonl.write_text("".join(json.dumps({"content": f"imported:\n{text}", "tags": ["x"]}) + "\n"
                             for text, _ in POSITIVES))
    assert run("import", "--format", "jsonl", str(jsonl)).exit_code == 0
    block = "## System Notes\n\n[MEMORY_CANDIDATES]\n" + "\n".join(
        f"{i}. secret_case_number_{i}.md — category: past — tags: [x]\n   ---\n   {text.replace(chr(10), ' ')}\n"
        for i, (text, _) in enumerate(POSITIVES, 1))
    assert run("import", "--format", "candidates", "-", input=block).exit_code == 0
    assert_clean(isolated_memory)


def test_capture_of_a_transcript(isolated_memory, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    path = tmp_path / "leaky.jsonl"
    with open(path, "w") as fh:
        for i, (text, _) in enumerate(POSITIVES):
            for role in ("user", "assistant"):
                content = text if role == "user" else [{"type": "text", "text": f"I saw this:\n{text}"}]
                fh.write(json.dumps({"type": role, "uuid": f"{role}-{i}", "sessionId": "leaky", "cwd": str(project),
                                     "timestamp": f"2026-11-20T10:{i % 60:02d}:00Z",
                                     "message": {"role": role, "content": content}}) + "\n")
    p = subprocess.run([str(BUNDLE_ROOT / ".venv" / "bin" / "rlm-mem"), "ingest", str(path)], capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
    assert list(ChunkStore(isolated_memory).layout.iter_chunk_paths())
    assert_clean(isolated_memory)


def test_lookalikes_survive_every_path(run, isolated_memory):
    for text in LOOKALIKES:
        r = run("remember", "--json", input=f"Kept as is: {text}")
        assert r.exit_code == 0, r.output
    stored = "\n".join(c["content"] for c in ChunkStore(isolated_memory).layout.iter_chunks())
    missing = [t for t in LOOKALIKES if " ".join(t.split()) not in " ".join(stored.split())]
    assert not missing, missing[:5]
