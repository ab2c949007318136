"""Fuzzing the hook boundary (issue 5): random and mutated stdin, mutated real transcripts. No crash, no traceback,
exit 0 (SessionEnd may exit 2 only to hand MEMORY_CANDIDATES to the person), bounded stdout."""
import io
import json
import random
import sys

import pytest
from conftest import SHARED_TRANSCRIPTS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brain.capture.ingest import capture_transcript
from brain.hooks import handlers as hooks
from brain.hooks import runner
from brain.scripts import ChunkStore

REAL = sorted(SHARED_TRANSCRIPTS.glob("*.jsonl"))
EVENTS = list(hooks.HANDLERS)

json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=50),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                                       max_size=4), max_leaves=12)
payloads = st.fixed_dictionaries({}, optional={k: json_values for k in (
    "session_id", "transcript_path", "cwd", "source", "prompt", "reason", "hook_event_name", "stop_hook_active")})


class FakeStdin:
    def __init__(self, data: bytes):
        self.buffer = io.BytesIO(data)


def run_hook(event, data: bytes, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", FakeStdin(data))
    code = runner.main([event])
    out = capsys.readouterr()
    assert code == 0 or (code == 2 and event == "session-end"), out.err
    assert "Traceback" not in out.err and len(out.err.strip().splitlines()) <= 1 or code == 2
    assert len(out.out) < 10_000
    return out


@pytest.fixture(autouse=True)
def quiet_background(monkeypatch):
    monkeypatch.setenv("RLM_MEM_BACKGROUND", "0")
    monkeypatch.setenv("RLM_MEM_HOOK_TIMEOUT", "120")  # in-process: the watchdog must not end pytest


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(event=st.sampled_from(EVENTS), payload=payloads)
def test_random_json_payloads(event, payload, monkeypatch, capsys, tmp_path):
    if isinstance(payload.get("cwd"), str):
        payload["cwd"] = str(tmp_path)  # keep random paths from pointing at the real disk
    run_hook(event, json.dumps(payload).encode(), monkeypatch, capsys)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(event=st.sampled_from(EVENTS), data=st.binary(max_size=2000))
def test_random_bytes(event, data, monkeypatch, capsys):
    run_hook(event, data, monkeypatch, capsys)


def mutate(data: bytes, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    for _ in range(rng.randint(1, 6)):
        op = rng.choice(("flip", "cut", "dup", "swap", "junk"))
        i = rng.randrange(len(lines))
        if op == "flip" and lines[i]:
            j = rng.randrange(len(lines[i]))
            lines[i] = lines[i][:j] + bytes([rng.randrange(256)]) + lines[i][j + 1:]
        elif op == "cut":
            lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "swap":
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        else:
            lines.insert(i, json.dumps({"type": rng.choice(["user", "assistant", "system", "x"]),
                                        "message": rng.choice([None, 3, "s", {"content": [{"type": "text"}]}])}).encode())
    return b"\n".join(lines)


@pytest.mark.parametrize("seed", range(12))
def test_mutated_real_transcripts_through_hooks_and_capture(seed, tmp_path, monkeypatch, capsys, isolated_memory):
    assert REAL, f"the shared transcripts are missing ({SHARED_TRANSCRIPTS}: the workplace's data beside the clone)"
    rng = random.Random(seed)
    source = REAL[seed % len(REAL)]
    path = tmp_path / f"mutated-{seed}.jsonl"
    path.write_bytes(mutate(source.read_bytes(), rng))
    project = tmp_path / "proj"
    project.mkdir()
    payload = {"session_id": f"m{seed}", "transcript_path": str(path), "cwd": str(project), "source": "startup",
               "prompt": "what did we do?", "reason": "other"}
    for event in EVENTS:
        run_hook(event, json.dumps(payload).encode(), monkeypatch, capsys)
    report = capture_transcript(ChunkStore(isolated_memory), path, session_id=f"m{seed}", final=True)
    assert report.skipped_reason is None
    for chunk in ChunkStore(isolated_memory).layout.iter_chunks():
        assert chunk["content"].strip()
