"""The performance benchmark (bench/run.py) still runs end to end and prints its table: a tiny store, few runs.

Not a timing test: the figures are not checked, only that every measurement happened and the table came out.
It takes about a minute, so it is marked slow (run with `pytest -m slow`).
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))


@pytest.mark.slow
def test_benchmark_prints_its_table(tmp_path):
    out = tmp_path / "bench.json"
    (tmp_path / ".git").mkdir()  # the cache inside a repository, as bench/.cache is inside the bundle's
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--sizes", "300", "--runs", "3", "--quick",
                           "--cache", str(tmp_path / "cache"), "--json", str(out)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    table = proc.stdout
    assert "| figure | target | 300 chunks |" in table
    for row in ("SessionStart hook / bare", "first SessionStart after `remember` / bare",
                "SessionStart computing its brief / bare",
                "UserPromptSubmit / bare, a matching prompt", "UserPromptSubmit / bare, a prompt nothing matches",
                "SessionEnd hook, 5 MB transcript", "capture: `rlm-mem ingest`", "bulk import", "`rlm-mem reindex`",
                "peak RSS, `rlm-mem reindex`", "single `rlm-mem remember`", "JSON index pass", "gardening run",
                "peak RSS, SessionStart hook", "disk per chunk: chunks/"):
        line = next((x for x in table.splitlines() if x.startswith(f"| {row}")), None)
        assert line is not None, row
        assert "n/a" not in line, line  # every figure was measured
    assert "Machine: " in table
    result = json.loads(out.read_text())["results"][0]
    assert result["build"]["chunks"] == 300
    hooks = result["hooks"]
    assert hooks["session_start"]["runs"] == 3 and hooks["session_start"]["exit_codes"] == [0]
    assert hooks["session_start"]["context_chars"] > 0  # the hook really produced its context
    # and recall answered every matching prompt, for the project the workspace says (not the enclosing repository)
    assert hooks["ups_match"]["with_context"] == 3, hooks["ups_match"]["answered"]
    assert hooks["session_start_after_write"]["exit_codes"] == [0]
    assert result["garden"]["first"]["applied"].get("paused") is not None  # the run reported what it did
    assert result["import"]["created"] == 300
    assert result["import"]["file_creation_ms"] > 0 and "Creating a 1 KB file just before each import: " in table


def test_store_generator_is_deterministic():
    import corpus

    first = list(corpus.chunk_specs(120))
    assert len(first) == 120
    assert first == list(corpus.chunk_specs(120))
    kinds = {spec["metadata"]["kind"] for spec in first}
    assert {"turn", "session"} <= kinds and kinds & {"decision", "preference", "correction", "memory"}




@pytest.mark.skipif(not (ROOT.parent / "shared" / "tools" / "locomo_eval.py").is_file(),
                    reason="shared LoCoMo tool not available")
def test_the_locomo_ceiling_measures_what_the_questions_words_reach():
    """bench/locomo_ceiling.py's lexical part on the shared dev conversations: evidence sharing no stem with its
    question, and the smaller share not even within two turns of such a word."""
    import locomo_ceiling

    tool = locomo_ceiling.load_tool()
    data = json.loads(tool.DEFAULT_DATA.read_text())[:1]
    reach = locomo_ceiling.lexical_reach(tool, data)
    assert 0 < reach["none_within_two_turns_pct"] < reach["evidence_sharing_no_stem_pct"] < 100, reach


def test_the_mcp_benchmark_prints_its_table(tmp_path):
    (tmp_path / ".git").mkdir()
    out = tmp_path / "mcp.json"
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "mcp_server.py"), "--sizes", "300", "--runs", "1",
                           "--starts", "1", "--cache", str(tmp_path / "cache"), "--json", str(out)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "| warm recall over stdio, round trip p50 (p90) |" in proc.stdout
    (result,) = json.loads(out.read_text())
    assert result["size"] == 300 and result["matching_answered"] > 0 and result["rss_mb"] > 0
    assert result["tool_tokens"] <= 1500
