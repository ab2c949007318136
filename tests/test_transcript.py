"""Transcript parsing: shared real-format transcripts, cleaning, incremental reads, robustness, speed."""
import json
import time
from pathlib import Path

import pytest
from conftest import SHARED_TRANSCRIPTS

from brain.capture.tool_calls import MAX_FILE_TEXT, read_output_text
from brain.capture.transcript import clean_text, parse_transcript
from brain.util.timestamps import normalize_timestamp, timestamp_or_none

SHARED = SHARED_TRANSCRIPTS
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "transcripts"
CODING = FIXTURES / "coding_session.jsonl"

needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="shared transcripts not available")


def user(text, uuid, **extra):
    rec = {"type": "user", "uuid": uuid, "sessionId": "s1", "timestamp": "2026-01-05T10:00:00Z",
           "message": {"role": "user", "content": text}}
    rec.update(extra)
    return rec


def assistant(blocks, uuid, **extra):
    rec = {"type": "assistant", "uuid": uuid, "sessionId": "s1", "timestamp": "2026-01-05T10:00:05Z",
           "message": {"role": "assistant", "content": blocks}}
    rec.update(extra)
    return rec


def write_jsonl(path, records, tail=b""):
    with open(path, "wb") as f:
        for rec in records:
            f.write(json.dumps(rec).encode() + b"\n")
        f.write(tail)
    return path


# --- the shared transcripts --------------------------------------------------------------------------------------

@needs_shared
@pytest.mark.parametrize("name", ["edge_cases", "representative_messages", "session_b", "todowrite_examples"])
def test_shared_transcripts_parse_completely(name):
    path = SHARED / f"{name}.jsonl"
    parsed = parse_transcript(path)
    assert parsed.end_offset == path.stat().st_size
    assert parsed.turns
    assert all(t.role in ("user", "assistant") for t in parsed.turns)
    assert all(t.timestamp is None or t.timestamp.endswith("Z") for t in parsed.turns)
    offsets = [t.offset for t in parsed.turns]
    assert offsets == sorted(offsets) and len(set(offsets)) == len(offsets)


@needs_shared
def test_edge_cases_skip_noise_and_count_broken_lines():
    parsed = parse_transcript(SHARED / "edge_cases.jsonl")
    # Four lines are not usable records: a string message, a JSON string, a number and a list.
    assert parsed.errors == 4
    texts = [t.text for t in parsed.turns]
    assert not any("Caveat:" in t or "command-name" in t or "Line 1 of output" in t for t in texts)
    assert not any("--verbose" in t for t in texts)
    # Tool results are not turns of their own; the failed one is attached to the assistant's call.
    failing = [t for t in parsed.turns if any(u.name == "FailingTool" for u in t.tool_uses)]
    assert failing and failing[0].tool_errors == ("Error: Tool execution failed with error: Command not found",)
    assert failing[0].tool_uses[0].ok is False
    assert "wow error" in texts  # a plain string inside a content list still counts as text
    assert any("中文" in t and "🎉" in t for t in texts)
    broken_todo = [u for t in parsed.turns for u in t.tool_uses if u.name == "TodoWrite"][0]
    assert [todo.content for todo in broken_todo.todos][0] == "Implement core functionality"


@needs_shared
def test_representative_tool_summaries():
    parsed = parse_transcript(SHARED / "representative_messages.jsonl")
    uses = [u for t in parsed.turns for u in t.tool_uses]
    assert [u.summary for u in uses] == ["Edit: /tmp/decorator_example.py", "Bash: python /tmp/decorator_example.py"]
    assert uses[0].file_path == "/tmp/decorator_example.py" and uses[0].ok is True
    assert uses[1].command == "python /tmp/decorator_example.py" and "Hello, Alice!" in uses[1].result
    # Tool output stays out of the turn text.
    assert not any("Hello, Alice!\nHello, Alice!" in t.text for t in parsed.turns)
    assert parsed.session_id == "test_session" and parsed.cwd == "/tmp"


@needs_shared
def test_last_line_without_newline_is_taken_when_complete():
    parsed = parse_transcript(SHARED / "session_b.jsonl")
    assert [t.uuid for t in parsed.turns] == ["session_b_001", "session_b_002", "session_b_003"]


@needs_shared
def test_todowrite_todos_are_read():
    parsed = parse_transcript(SHARED / "todowrite_examples.jsonl")
    todo_calls = [u for t in parsed.turns for u in t.tool_uses if u.name == "TodoWrite"]
    assert len(todo_calls) == 3
    assert todo_calls[-1].summary == "TodoWrite: 6 todos"
    assert [(t.content, t.status) for t in todo_calls[1].todos][:2] == [
        ("Design the feature architecture", "completed"), ("Implement core functionality", "in_progress")]
    assert not any(t.role == "user" and "Todos have been modified" in t.text for t in parsed.turns)


# --- the hand-made fixture ---------------------------------------------------------------------------------------

def test_fixture_turns_are_clean_and_flagged():
    parsed = parse_transcript(CODING)
    assert (parsed.session_id, parsed.cwd, parsed.git_branch) == ("fixture-session-1", "/home/dev/uploader",
                                                                  "feature/retry")
    assert parsed.errors == 0 and parsed.compactions == 1
    everything = "\n".join(t.text for t in parsed.turns)
    for gone in ("current date", "hunter2", "injected fact", "fenced fact", "rlm-mem-context", "Caveat",
                 "/model", "Set model to", "Todos have been modified", "12 passed"):
        assert gone not in everything
    assert parsed.turns[0].text.startswith("Please add a retry limit")
    assert parsed.turns[0].timestamp == "2026-03-02T09:01:00.250Z"
    assert [t.text for t in parsed.turns if t.is_sidechain] == [
        "Remember that subagents see a different bucket.", "Searching the config for bucket names."]
    summaries = [t for t in parsed.turns if t.is_compact_summary]
    assert len(summaries) == 1 and summaries[0].role == "user"
    assert parsed.turns[-2].text == "Thanks, that is all for today."
    failed = [t for t in parsed.turns if t.tool_errors]
    assert len(failed) == 1 and "No module named 'responses'" in failed[0].tool_errors[0]


# --- cleaning ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("raw, expected", [
    ("<system-reminder>ignore me</system-reminder>Fix the bug", "Fix the bug"),
    ("a <system-reminder>x\ny</system-reminder> b", "a b"),
    ("keep <private>secret</private> this", "keep this"),
    ("keep <PRIVATE>secret</Private>", "keep"),
    ("before <private>unclosed secret\nand more", "before"),
    ("x\n<rlm-mem-context fence=\"x7Q\">\nfact </rlm-mem-context fence=\"no\"> still fenced\n"
     "</rlm-mem-context fence=\"x7Q\">\ny", "x\n\ny"),
    ("x\n<rlm-mem-context>\nfact\n</rlm-mem-context>\ny", "x\n\ny"),
    ("x\n<rlm-mem-context-v2 id=1>\nfact\n</rlm-mem-context-v2 id=1>\ny", "x\n\ny"),
    ("x <rlm-mem-context fence=\"a\">never closed", "x"),
    ("<command-name>/clear</command-name><command-message>clear</command-message><command-args></command-args>", ""),
    ("<local-command-stdout>output</local-command-stdout>", ""),
    ("Caveat: The messages below were generated by the user while running local commands. DO NOT respond.", ""),
    ("[Request interrupted by user for tool use]", ""),
    ("<command-name>unclosed wrapper only loses its tag", "unclosed wrapper only loses its tag"),
    ("plain text\n\n\n\nwith gaps  ", "plain text\n\nwith gaps"),
    ("", ""),
])
def test_clean_text(raw, expected):
    assert clean_text(raw) == expected


def test_clean_text_cannot_be_tricked_into_rebuilding_markers():
    out = clean_text("<priv<private>x</private>ate>secret<sys<system-reminder>r</system-reminder>tem-reminder>z")
    assert "secret" not in out and "<private" not in out.lower() and "<system-reminder" not in out


def test_clean_text_tolerates_non_strings_and_lone_surrogates():
    assert clean_text(None) == ""
    assert clean_text(42) == ""
    assert clean_text("a\ud800b").encode("utf-8")


@pytest.mark.parametrize("value, expected", [
    ("2025-06-14T10:00:00Z", "2025-06-14T10:00:00Z"),
    ("2025-06-14T10:00:00.123Z", "2025-06-14T10:00:00.123Z"),
    ("2025-06-14T12:00:00+02:00", "2025-06-14T10:00:00Z"),
    ("2025-06-14T10:00:00.123456789Z", "2025-06-14T10:00:00.123Z"),
    ("2025-06-14 10:00", "2025-06-14T10:00:00Z"),
    (1749895200, "2025-06-14T10:00:00Z"),
    (1749895200000, "2025-06-14T10:00:00Z"),
    ("yesterday", None), ("2025-13-45T10:00:00Z", None), (None, None), (True, None), ([1], None),
    # the stored form is taken as it is only when it is a real time written in ASCII digits
    ("2024-02-29T23:59:59Z", "2024-02-29T23:59:59Z"), ("2025-02-29T10:00:00Z", None),
    ("2025-06-14T24:00:00Z", None), ("0000-06-14T10:00:00Z", None),
    ("\uff12025-06-14T10:00:00Z", "2025-06-14T10:00:00Z"), ("2025-06-14T10:00:0\uff13Z", "2025-06-14T10:00:03Z"),
    ("2025-06-14T10:00.5ZZ", None), ("2025-06-14T10:00+0Z", None),
])
def test_normalize_timestamp(value, expected):
    assert timestamp_or_none(value, millis=True) == expected
    if expected is not None:
        assert normalize_timestamp(value) == expected[:19] + "Z"


# --- incremental reading -----------------------------------------------------------------------------------------

def test_incremental_parse_returns_only_new_turns(tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", [user("first question", "u1"), assistant([{"type": "text",
                                                                                      "text": "first answer"}], "a1")])
    first = parse_transcript(path)
    assert [t.uuid for t in first.turns] == ["u1", "a1"]
    assert first.end_offset == path.stat().st_size

    half = json.dumps(user("third, still being written", "u3")).encode()
    with open(path, "ab") as f:
        f.write(json.dumps(user("second question", "u2")).encode() + b"\n")
        f.write(half[:25])
    second = parse_transcript(path, first.end_offset)
    assert [t.uuid for t in second.turns] == ["u2"]
    assert second.end_offset == path.stat().st_size - 25

    with open(path, "ab") as f:
        f.write(half[25:] + b"\n")
    third = parse_transcript(path, second.end_offset)
    assert [t.uuid for t in third.turns] == ["u3"] and third.errors == 0
    assert parse_transcript(path, third.end_offset).turns == []


def test_max_bytes_reads_in_pieces_without_losing_turns(tmp_path):
    records = [user(f"question number {i}", f"u{i}") for i in range(40)]
    path = write_jsonl(tmp_path / "t.jsonl", records)
    seen, offset, calls = [], 0, 0
    while offset < path.stat().st_size:
        parsed = parse_transcript(path, offset, max_bytes=700)
        assert parsed.end_offset > offset
        seen += [t.uuid for t in parsed.turns]
        offset, calls = parsed.end_offset, calls + 1
    assert seen == [f"u{i}" for i in range(40)] and calls > 5


def test_line_longer_than_max_bytes_is_skipped_not_stuck(tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", [user("x" * 5000, "big"), user("after the big one", "small")])
    parsed = parse_transcript(path, 0, max_bytes=1000)
    assert parsed.turns == [] and parsed.errors == 1 and parsed.end_offset > 5000
    assert [t.uuid for t in parse_transcript(path, parsed.end_offset).turns] == ["small"]


def test_offset_past_end_reads_nothing(tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", [user("hello there", "u1")])
    parsed = parse_transcript(path, 10_000)
    assert parsed.turns == [] and parsed.end_offset == 10_000


def test_missing_file_raises_oserror(tmp_path):
    with pytest.raises(OSError):
        parse_transcript(tmp_path / "nope.jsonl")


# --- robustness --------------------------------------------------------------------------------------------------

def test_hostile_lines_never_raise(tmp_path):
    path = tmp_path / "t.jsonl"
    lines = [
        b"{not json",
        b"[" * 100_000 + b"]" * 100_000,  # deeper than the JSON decoder's recursion limit
        json.dumps(user("caf\xe9 ok", "u1")).encode().replace(b"caf", b"caf\xff\xfe"),  # non-UTF-8 bytes
        json.dumps({"type": "user", "message": {"role": "user", "content": {"weird": 1}}}).encode(),
        json.dumps({"type": "assistant", "message": {"content": [{"type": "tool_use", "input": "x"},
                                                                 {"type": "tool_use", "name": 7}]}}).encode(),
        json.dumps({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": ["x"]}]}}).encode(),
        json.dumps({"type": "mystery", "message": {"content": "unknown record type"}}).encode(),
        json.dumps({"type": "user", "isMeta": True, "message": {"content": "meta text"}}).encode(),
        json.dumps(user("x", "u2", timestamp={"no": 1}, isSidechain="yes", sessionId=5)).encode(),
        json.dumps(assistant("plain string content", "a1")).encode(),
        json.dumps(user("final", "u3")).encode(),
    ]
    path.write_bytes(b"\n".join(lines) + b"\n")
    parsed = parse_transcript(path)
    assert parsed.errors == 2
    by_uuid = {t.uuid: t for t in parsed.turns}
    assert set(by_uuid) == {"u1", "u2", "a1", "u3", None}
    assert "ok" in by_uuid["u1"].text and "\ufffd" in by_uuid["u1"].text
    assert by_uuid["u2"].timestamp is None and by_uuid["u2"].is_sidechain is False and by_uuid["u2"].session_id is None
    assert by_uuid["a1"].text == "plain string content"
    names = [u.name for t in parsed.turns for u in t.tool_uses]
    assert names == ["tool", "tool"]
    assert "meta text" not in [t.text for t in parsed.turns]


def test_benchmark_style_transcript(tmp_path):
    """The benchmark writes string user content and text-block assistant content, each "Speaker: text"."""
    records = []
    for i, (speaker, text) in enumerate([("Ana", "I moved to Lisbon in May."), ("Ben", "How is the new flat?"),
                                         ("Ana", "Small but bright.")]):
        rec = (user(f"{speaker}: {text}", f"s-{i:04d}") if speaker == "Ana"
               else assistant([{"type": "text", "text": f"{speaker}: {text}"}], f"s-{i:04d}"))
        rec.update({"parentUuid": None, "isSidechain": False, "cwd": "/w", "version": "2.1.0"})
        records.append(rec)
    parsed = parse_transcript(write_jsonl(tmp_path / "b.jsonl", records))
    assert [(t.role, t.text) for t in parsed.turns] == [
        ("user", "Ana: I moved to Lisbon in May."), ("assistant", "Ben: How is the new flat?"),
        ("user", "Ana: Small but bright.")]


def test_five_megabytes_parse_in_linear_work(tmp_path):
    block = CODING.read_bytes()
    path = tmp_path / "big.jsonl"
    path.write_bytes(block * (5_000_000 // len(block) + 1))
    started = time.process_time()  # CPU time: a loaded machine must not fail this
    parsed = parse_transcript(path)
    elapsed = time.process_time() - started
    assert parsed.errors == 0 and len(parsed.turns) > 1000
    assert elapsed < 3.0, f"parsing 5 MB took {elapsed:.2f}s of CPU"


def test_an_edit_adding_a_few_short_lines_names_them_in_its_summary():
    from brain.capture.tool_calls import tool_use

    def summary(name, tool_input):
        return tool_use({"name": name, "input": tool_input}).summary

    assert summary("Edit", {"file_path": "Dockerfile", "old_string": "FROM node:18-alpine",
                            "new_string": "FROM node:20-alpine"}) == "Edit: Dockerfile → FROM node:20-alpine"
    profiles = {"file_path": "dbt/profiles.yml", "old_string": "  project: old\n  dataset: analytics\n  location: EU\n",
                "new_string": "  project: old\n  dataset: marts\n  location: EU\n"}
    assert summary("Edit", profiles) == "Edit: dbt/profiles.yml → dataset: marts"  # the unchanged lines are not news
    multi = {"file_path": "app.yml", "edits": [{"old_string": "port: 3000", "new_string": "port: 4100"},
                                               {"old_string": "ttl: 14d", "new_string": "ttl: 7d"}]}
    assert summary("MultiEdit", multi) == "MultiEdit: app.yml → port: 4100; ttl: 7d"
    block = "\n".join(f"    step_{i}()" for i in range(4))  # a block of code: the file only
    assert summary("Edit", {"file_path": "a.py", "old_string": "", "new_string": block}) == "Edit: a.py"
    long_line = "x = " + "1 + " * 60 + "1"
    assert summary("Edit", {"file_path": "a.py", "old_string": "x = 1", "new_string": long_line}) == "Edit: a.py"
    assert summary("Edit", {"file_path": "a.py", "old_string": "x = 1\ny = 2", "new_string": "y = 2"}) == "Edit: a.py"
    # a small file written whole is its lines; a larger one is its name
    assert summary("Write", {"file_path": ".nvmrc", "content": "20\n"}) == "Write: .nvmrc → 20"
    assert summary("Write", {"file_path": "a.py", "content": block}) == "Write: a.py"
    assert summary("Write", {"file_path": "a.txt", "content": "x\tbeep\x1b[31m"}) == "Write: a.txt → x beep [31m"
    many = "\n".join(f"setting_{i:02d} = computed_value" for i in range(120))  # cut at _EDIT_MAX: not the edit's
    changed_first = "setting_00 = 7\n" + many.split("\n", 1)[1]
    assert summary("Edit", {"file_path": "a.py", "old_string": many, "new_string": changed_first}) == "Edit: a.py"


# ---------------------------------------------------------------------------------------------------- file texts
def _tool_call(name, tool_input, uuid):
    return assistant([{"type": "tool_use", "id": f"toolu_{uuid}", "name": name, "input": tool_input}], uuid)


def _tool_result(uuid, content, details=None, is_error=False):
    record = user([{"type": "tool_result", "tool_use_id": f"toolu_{uuid}", "content": content,
                    **({"is_error": True} if is_error else {})}], f"r{uuid}")
    if details is not None:
        record["toolUseResult"] = details
    return record


def _uses(tmp_path, records):
    path = write_jsonl(tmp_path / "t.jsonl", [user("go", "u0")] + records)
    return [use for turn in parse_transcript(path).turns for use in turn.tool_uses]


def test_a_read_of_a_configuration_file_shows_its_text_without_line_numbers(tmp_path):
    numbered = ("     1\u2192replicaCount: 2\n     2\u2192image:\n     3\u2192  tag: \"1.4.2\"\n\n"
                "<system-reminder>x</system-reminder>")
    tabbed = "     1\treplicaCount: 3\n     2\timage: x\n"
    uses = _uses(tmp_path, [_tool_call("Read", {"file_path": "/p/values.yaml"}, "a1"), _tool_result("a1", numbered),
                            _tool_call("Read", {"file_path": "/p/v2.yaml"}, "a2"), _tool_result("a2", tabbed)])
    assert uses[0].content == 'replicaCount: 2\nimage:\n  tag: "1.4.2"\n'
    assert uses[1].content == "replicaCount: 3\nimage: x\n"


def test_claude_codes_tool_results_give_the_whole_file_and_the_text_before(tmp_path):
    uses = _uses(tmp_path, [
        _tool_call("Read", {"file_path": "/p/.env"}, "a1"),
        _tool_result("a1", "     1\u2192PORT=1", {"type": "text", "file": {
            "filePath": "/p/.env", "content": "PORT=8080\n", "numLines": 1, "startLine": 1, "totalLines": 1}}),
        _tool_call("Edit", {"file_path": "/p/.env", "old_string": "PORT=8080", "new_string": "PORT=8090"}, "a2"),
        _tool_result("a2", "The file /p/.env has been updated.", {"filePath": "/p/.env", "originalFile": "PORT=8080\n",
                                                                  "structuredPatch": []}),
        _tool_call("MultiEdit", {"file_path": "/p/app.json", "edits": [{"old_string": "a", "new_string": "b"},
                                                                       {"old_string": "c", "new_string": "d",
                                                                        "replace_all": True}]}, "a3"),
        _tool_result("a3", "Applied 2 edits"),
        _tool_call("Write", {"file_path": "/p/Dockerfile", "content": "FROM node:22\n"}, "a4"),
        _tool_result("a4", "The file /p/Dockerfile has been updated successfully.",
                     {"type": "update", "filePath": "/p/Dockerfile", "content": "FROM node:22\n",
                      "originalFile": "FROM node:20\n"}),
        _tool_call("NotebookEdit", {"notebook_path": "/p/train.ipynb", "cell_id": "c1", "new_source": "LR = 1e-4",
                                    "cell_type": "code", "edit_mode": "replace"}, "a5"),
        _tool_result("a5", "Updated cell c1"),
    ])
    read, edit, multi, write, notebook = uses
    assert read.content == "PORT=8080\n" and edit.original == "PORT=8080\n"
    assert edit.edits == (("PORT=8080", "PORT=8090", False),)
    assert multi.edits == (("a", "b", False), ("c", "d", True))
    assert write.content == "FROM node:22\n" and write.original == "FROM node:20\n"
    assert notebook.cell == ("c1", "LR = 1e-4", "replace")


def test_what_is_no_whole_configuration_file_is_not_kept(tmp_path):
    big = "x" * (MAX_FILE_TEXT + 1)
    uses = _uses(tmp_path, [
        _tool_call("Read", {"file_path": "/p/values.yaml", "offset": 10, "limit": 5}, "a1"),
        _tool_result("a1", "    10\u2192a: 1"),
        _tool_call("Read", {"file_path": "/p/README.md"}, "a2"), _tool_result("a2", "     1\u2192PORT = 1"),
        _tool_call("Write", {"file_path": "/p/big.yaml", "content": big}, "a3"), _tool_result("a3", "ok"),
        _tool_call("Read", {"file_path": "/p/gone.yaml"}, "a4"), _tool_result("a4", "File does not exist.", None, True),
        _tool_call("Read", {"file_path": "/p/odd.yaml"}, "a5"),
        _tool_result("a5", "     2\u2192a: 1\n     3\u2192b: 2"),
    ])
    assert [use.content for use in uses] == [None, None, None, None, None]
    assert uses[2].edit is None and uses[1].edits == ()


def test_read_output_text():
    assert read_output_text("     1\u2192a\n     2\u2192b") == "a\nb\n"
    assert read_output_text("a\nb") is None
    assert read_output_text("") is None
