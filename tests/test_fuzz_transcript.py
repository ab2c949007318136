"""Mutated transcripts never make the parser or the extractor raise; cleaning never lets markers through."""
import json
import random
import re
from pathlib import Path

import pytest
from conftest import SHARED_TRANSCRIPTS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brain.capture.extract import extract_memories
from brain.capture.session_record import session_record
from brain.capture.transcript import clean_text, parse_transcript

HERE = Path(__file__).resolve().parent
SHARED = SHARED_TRANSCRIPTS
SOURCES = sorted(SHARED.glob("*.jsonl")) if SHARED.is_dir() else []
SOURCES.append(HERE / "fixtures" / "transcripts" / "coding_session.jsonl")
ORIGINALS = [p.read_bytes() for p in SOURCES]

FIELDS = ["type", "message", "content", "uuid", "timestamp", "isSidechain", "isCompactSummary", "isMeta",
          "sessionId", "cwd", "gitBranch", "subtype", "role", "text", "input", "name", "id", "tool_use_id",
          "is_error", "todos", "status", "command", "file_path"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=5),
                                                                inner, max_size=4),
    max_leaves=12,
)


def _replace_field(value, key, new, rng):
    """Put `new` under `key` somewhere inside a parsed record (the record itself or a nested dict)."""
    dicts = []

    def walk(v, depth=0):
        if depth > 6:
            return
        if isinstance(v, dict):
            dicts.append(v)
            for child in v.values():
                walk(child, depth + 1)
        elif isinstance(v, list):
            for child in v:
                walk(child, depth + 1)

    walk(value)
    if dicts:
        rng.choice(dicts)[key] = new
    return value


def mutate(data: bytes, rng: random.Random, ops: list[str], values: list) -> bytes:
    lines = data.split(b"\n")
    for op in ops:
        if op == "flip":
            buf = bytearray(b"\n".join(lines))
            for _ in range(rng.randint(1, 20) if buf else 0):
                buf[rng.randrange(len(buf))] = rng.randrange(256)
            lines = bytes(buf).split(b"\n")
        elif op == "truncate":
            joined = b"\n".join(lines)
            lines = joined[: rng.randrange(len(joined) + 1)].split(b"\n")
        elif op == "shuffle":
            rng.shuffle(lines)
        elif op == "duplicate" and lines:
            lines.insert(rng.randrange(len(lines) + 1), rng.choice(lines))
        elif op == "non_utf8" and lines:
            i = rng.randrange(len(lines))
            cut = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:cut] + bytes([rng.choice([0x80, 0xC3, 0xFF, 0xED, 0xA0])]) + lines[i][cut:]
        elif op == "field" and lines and values:
            i = rng.randrange(len(lines))
            try:
                record = json.loads(lines[i])
            except ValueError:
                continue
            new = _replace_field(record, rng.choice(FIELDS), values.pop(), rng)
            lines[i] = json.dumps(new).encode()
        elif op == "drop_newlines":
            lines = [b"".join(lines)]
    return b"\n".join(lines)


MARKER = re.compile(r"<(?:system-reminder\b|private\b|rlm-mem-context)", re.IGNORECASE)
OPS = st.lists(st.sampled_from(["flip", "truncate", "shuffle", "duplicate", "non_utf8", "field", "field",
                                "drop_newlines"]), min_size=1, max_size=6)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(source=st.sampled_from(range(len(ORIGINALS))), seed=st.integers(0, 2**32 - 1), ops=OPS,
       values=st.lists(json_values, max_size=6), start=st.integers(-5, 20_000),
       max_bytes=st.none() | st.integers(1, 20_000))
def test_mutated_transcripts_never_raise(workdir, source, seed, ops, values, start, max_bytes):
    rng = random.Random(seed)
    path = workdir / "mutated.jsonl"
    path.write_bytes(mutate(ORIGINALS[source], rng, ops, list(values)))
    parsed = parse_transcript(path, start, max_bytes)
    assert parsed.end_offset >= max(0, start)
    assert parsed.end_offset <= max(path.stat().st_size, start)
    for turn in parsed.turns:
        assert turn.role in ("user", "assistant") and isinstance(turn.text, str)
        turn.text.encode("utf-8")  # storable
    for candidate in extract_memories(parsed.turns):
        assert len(candidate.content) <= 600
        candidate.content.encode("utf-8")
    record = session_record(parsed.turns)
    if record is not None:
        record.to_text().encode("utf-8")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("<>/ \nprivatesym-ercondxtfQ=\"'")) | st.characters(), max_size=300))
def test_clean_text_never_leaves_markers(text):
    assert not MARKER.search(clean_text(text))


@settings(max_examples=100, deadline=None)
@given(before=st.text(max_size=80), after=st.text(max_size=80), closed=st.booleans(),
       tag=st.sampled_from(["<private>", "<PRIVATE>", "<private reason=\"x\">"]))
def test_private_spans_never_survive(before, after, closed, tag):
    secret = "S3CRET-TOKEN-Q9"
    text = before + tag + "the " + secret + ("</private>" if closed else "") + after
    out = clean_text(text)
    assert secret not in out


@settings(max_examples=100, deadline=None)
@given(words=st.lists(st.sampled_from(["remember", "that", "actually", "it's", "no,", "not", "but", "I", "prefer",
                                       "always", "never", "let's", "go", "with", "save", "this", "to", "memory",
                                       "?", ".", "!", ":", "\n", "```", ">", "Ana:", "decided", "meant", "x"]),
                      max_size=40))
def test_extract_on_word_salad_never_raises(words):
    from brain.capture.transcript import Turn
    text = " ".join(words)
    turns = [Turn("a", 0, "assistant", text, None, None), Turn("u", 1, "user", text, None, None)]
    for candidate in extract_memories(turns):
        assert candidate.content and len(candidate.content) <= 600
