"""The secrets corpus on every write path (issue 5): remember, update, jsonl import, candidates import, capture of
a transcript. No secret may reach any file under the memory folder; every look-alike must survive as written."""
import json
import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from harness.claude_code import BUNDLE_ROOT
from harness.trust_corpus import decode

from brain.cli.main import cli
from brain.scripts import ChunkStore

FIXTURES = Path(__file__).parent / "fixtures" / "secrets"


def corpus(name):
    lines = FIXTURES.joinpath(name).read_text(encoding="utf-8").splitlines()
    return [decode(line) for line in lines if line.strip() and not line.startswith("#")]


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


# --- issue 39: nothing shortens, splits or lower-cases a secret before it is redacted; errors never quote a value
AGE_KEY = "AGE-SECRET-KEY-1XZP262UP7DI0X35GQUYNHD8V8XBU4NQ3DSU7KV4HL8R60YBHOT386XCCBA"
SESSION_TOKEN = "IQoJb3JpZ2luX2VjE" + "Zm9vYmFyYmF6cXV4" * 20


def _capture(tmp_path, turns, root):
    import sys

    sys.path.insert(0, str(BUNDLE_ROOT / "scripts"))
    from demo import write_transcript

    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    path = tmp_path / "s.jsonl"
    write_transcript(path, "s", project, turns)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for line in lines:  # a tool result starting with "Exit code 1" is an error
        for block in line["message"]["content"] if isinstance(line["message"]["content"], list) else ():
            if block.get("type") == "tool_result" and str(block.get("content")).startswith("Exit code 1"):
                block["is_error"] = True
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    p = subprocess.run([str(BUNDLE_ROOT / ".venv" / "bin" / "rlm-mem"), "--dir", str(root), "ingest", str(path)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return everything_stored(root)


def test_a_secret_past_a_title_s_length_is_redacted_before_the_title_is_cut(tmp_path):
    """The session's title is the first request cut to 120 characters: a key that starts before the cut and ends
    after it was kept in part (41 of an age key's 58 characters)."""
    opening = "Please set up the deployment for the payments service in staging, and use this key for the backups: "
    stored = _capture(tmp_path, [("user", opening + AGE_KEY), ("assistant", "Done.")], tmp_path / "mem")
    assert '"title": "Session: ' in stored
    assert AGE_KEY[16:30] not in stored and "[REDACTED:private_key]" in stored


def test_a_tool_error_holding_a_secret_is_redacted_before_it_is_clipped(tmp_path):
    error = "Exit code 1\n" + "x " * 700 + f"\nError: the role session token {SESSION_TOKEN} has expired"
    turns = [("user", "Deploy it."), ("assistant", "Deploying.", [("Bash", {"command": "./deploy.sh"}, error)]),
             ("assistant", "The deploy failed because the role session token had expired: deploy.sh now reads "
              "the refreshed profile.", [("Edit", {"file_path": "deploy.sh", "old_string": "PROFILE=ci",
                                                    "new_string": "PROFILE=deploy"}, "ok"),
                                         ("Bash", {"command": "./deploy.sh"}, "ok")])]
    stored = _capture(tmp_path, turns, tmp_path / "mem")
    assert "fixed by" in stored  # the learning was kept...
    assert SESSION_TOKEN[:20] not in stored and SESSION_TOKEN[-20:] not in stored  # ...without the token


def test_a_long_result_is_shortened_where_words_end():
    from brain.capture.tool_calls import shorten_result

    token = "ghp_" + "A1b2C3d4E5" * 4
    text = "y" * 390 + " " + token + " " + "z " * 1000 + token + " end"
    short = shorten_result(text)
    for piece in short.split():
        assert piece == token or token not in piece and not (token.startswith(piece) or token.endswith(piece)) \
            or piece in ("…",) or set(piece) <= {"y", "z"} or piece == "end"


PLAIN = "conversation-about-the-" + "long-running-migration-" * 12  # no secret's shape: only the rule keeps it out


@pytest.mark.parametrize("args, stdin, value", [
    (["remember", "--conversation", PLAIN], "a note", PLAIN),  # longer than the schema allows
    (["remember", "--tags", PLAIN], "a note", PLAIN),  # a tag longer than 64 characters
    (["list", "--since", SESSION_TOKEN], None, SESSION_TOKEN),
    (["remember", "--type", SESSION_TOKEN], "a note", SESSION_TOKEN),  # click's choice error quotes what it got
    (["get", SESSION_TOKEN], None, SESSION_TOKEN),
])
def test_errors_name_the_field_and_the_reason_never_the_value(args, stdin, value, isolated_memory):
    r = CliRunner().invoke(cli, args, input=stdin)
    assert r.exit_code != 0 and "Error" in r.output
    assert value[:16] not in r.output and value[-16:] not in r.output, r.output


def test_a_secret_given_as_a_field_is_redacted_before_the_field_is_checked(isolated_memory):
    """A session token given as a conversation id (longer than the 200 characters an id may have) is redacted first:
    the memory is saved under [REDACTED:token], and the token is nowhere."""
    r = CliRunner().invoke(cli, ["remember", "--conversation", SESSION_TOKEN, "--tags", SESSION_TOKEN], input="x")
    assert r.exit_code == 0, r.output
    assert SESSION_TOKEN[:16] not in everything_stored(isolated_memory) + r.output


def test_an_import_error_never_quotes_the_rejected_value(tmp_path, isolated_memory):
    records = tmp_path / "r.jsonl"
    records.write_text(json.dumps({"content": "x", "created": SESSION_TOKEN}) + "\n"
                       + json.dumps({"content": "y", "conversation_id": SESSION_TOKEN + SESSION_TOKEN}) + "\n")
    r = CliRunner().invoke(cli, ["import", "--format", "jsonl", str(records)])
    assert SESSION_TOKEN[:16] not in r.output, r.output
    assert SESSION_TOKEN[:16] not in everything_stored(isolated_memory)


def test_a_hook_s_stderr_line_is_redacted_before_it_is_cut(capsys):
    from brain.hooks.io import stderr_line

    stderr_line("could not read " + "p" * 250 + " " + AGE_KEY)
    err = capsys.readouterr().err
    assert AGE_KEY[:24] not in err and len(err.strip()) <= 300 + len("rlm-mem: ")


def test_schema_errors_say_what_is_wrong_without_the_value():
    from brain.store.validation import schema_errors

    chunk = {"id": "chunk-2026-01-01-0123abcd", "content": "x", "tokens": 1, "type": "note", "tags": [],
             "links": {k: [] for k in ("context_of", "follows", "related_to", "supports", "contradicts")},
             "metadata": {"created": "2026-01-01T00:00:00Z", "conversation_id": SESSION_TOKEN, "source": "import",
                          "confidence": 0.5, "access_count": 0, "last_accessed": None}}
    errors = schema_errors("chunk", chunk)
    assert errors and all(SESSION_TOKEN[:16] not in e for e in errors)
    assert any("conversation_id" in e and "longer than 200" in e for e in errors)
