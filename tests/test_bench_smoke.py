"""The performance benchmark (bench/run.py) still runs end to end and prints its table: a tiny store, few runs.

Not a timing test: the figures are not checked, only that every measurement happened and the table came out.
"""
import copy
import json
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))


def test_benchmark_prints_its_table(tmp_path):
    out = tmp_path / "bench.json"
    start = time.monotonic()
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--sizes", "300", "--runs", "3", "--quick",
                           "--cache", str(tmp_path / "cache"), "--json", str(out)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert time.monotonic() - start < 60
    table = proc.stdout
    assert "| figure | target | 300 chunks |" in table
    for row in ("SessionStart hook / bare", "UserPromptSubmit hook / bare", "SessionEnd hook, 5 MB transcript",
                "capture: `rlm-mem ingest`", "bulk import", "`rlm-mem reindex`", "peak RSS, SessionStart hook",
                "disk per chunk: chunks/"):
        line = next((x for x in table.splitlines() if x.startswith(f"| {row}")), None)
        assert line is not None, row
        assert "n/a" not in line, line  # every figure was measured
    assert "Machine: " in table
    result = json.loads(out.read_text())["results"][0]
    assert result["build"]["chunks"] == 300
    hooks = result["hooks"]
    assert hooks["session_start"]["runs"] == 3 and hooks["session_start"]["exit_codes"] == [0]
    assert hooks["session_start"]["context_chars"] > 0  # the hook really produced its context
    assert hooks["user_prompt_submit"]["with_context"] >= 1  # and recall found something for some prompts
    assert result["import"]["created"] == 300


def test_store_generator_is_deterministic():
    import corpus

    first = list(corpus.chunk_specs(120))
    assert len(first) == 120
    assert first == list(corpus.chunk_specs(120))
    kinds = {spec["metadata"]["kind"] for spec in first}
    assert {"turn", "session"} <= kinds and kinds & {"decision", "preference", "correction", "memory"}


def test_fast_schema_check_never_accepts_what_jsonschema_rejects(tmp_path):
    """validation.schema_errors answers "valid" from a compiled fast path (added for the benchmark's write paths);
    it must agree with jsonschema on valid chunks and never accept a chunk jsonschema rejects."""
    import corpus
    from brain.store.chunk_store import ChunkStore
    from brain.store.validation import fast_checker, validator

    store = ChunkStore(tmp_path / "memory")  # only _build is used: nothing is written
    chunks = [store._build(**spec) for spec in corpus.chunk_specs(60)]
    fast, full = fast_checker("chunk"), validator("chunk")
    assert fast is not None
    assert all(fast(c) for c in chunks) and not any(list(full.iter_errors(c)) for c in chunks)
    odd = [None, True, False, 0, 1, -1, 1.5, 2.0, "", "x", "chunk-2026-01-01-zzzzzzzz", [], ["a", "a"], {},
           {"a": 1}, 801, 1.0000001, "a" * 20_001, [1], [True, 1], "2026-13-99T00:00:00Z"]
    rng = random.Random(8)
    for _ in range(3000):
        chunk = copy.deepcopy(rng.choice(chunks))
        holder, key = _random_place(chunk, rng)
        if rng.random() < 0.15 and isinstance(holder, dict):
            del holder[key]
        elif rng.random() < 0.15 and isinstance(holder, dict):
            holder[f"extra{rng.randint(0, 2)}"] = rng.choice(odd)
        else:
            holder[key] = rng.choice(odd)
        if fast(chunk):
            assert not list(full.iter_errors(chunk)), (key, chunk)


def _random_place(value, rng):
    """(container, key) of a random spot inside a chunk."""
    holder, key = None, None
    while isinstance(value, (dict, list)) and value and (holder is None or rng.random() < 0.6):
        keys = list(value) if isinstance(value, dict) else list(range(len(value)))
        holder, key = value, rng.choice(keys)
        value = value[key]
    return holder, key
