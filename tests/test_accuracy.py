"""The accuracy gate: recall may not lose what it reached when the levels were recorded (bench/accuracy_levels.json).

Every coding history in bench/coding/ goes through the real hooks (bench/coding_memory.py's run_history: sessions,
capture, gardening, then its questions in a new session), and the five LoCoMo dev conversations through
../shared/tools/locomo_eval.py. A history fails when it answers fewer questions, shows more replaced values as
current, has fewer changed values stated as current by a live typed memory (bench/coding_memory.py) or its next
session's brief holds fewer items than recorded; LoCoMo when its evidence recall drops more than
its tolerance, or the characters it injects per question or per null prompt rise more than theirs. The hooks run
with PYTHONHASHSEED=0 and every session is dated its days_ago before the run, so the figures are the same every
run (whatever its hour).

About a minute and a half alone; marked `accuracy` and left out of the default run: `pytest -m accuracy` (.ci/run).
The comparison itself is checked in the default run, on figures made up around the levels.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import coding_memory  # noqa: E402
from coding.histories import available  # noqa: E402

LEVELS_FILE = ROOT / "bench" / "accuracy_levels.json"
LEVELS = json.loads(LEVELS_FILE.read_text(encoding="utf-8"))
LOCOMO_TOOL = ROOT.parent / "shared" / "tools" / "locomo_eval.py"
LOCOMO_NULL_PROMPTS = ROOT.parent / "shared" / "data" / "null-prompts.txt"


def coding_drops(name: str, level: dict, report: dict) -> list:
    """What fell below (or, for replaced values shown as current, rose above) the recorded level."""
    drops = []
    if (report["questions"], report["changed_values"]["total"], len(report["brief_missing"]) + report["brief_held"]) \
            != (level["questions"], level["changes"], level["brief_items"]):
        drops.append(f"the history changed ({report['questions']} questions, levels recorded for "
                     f"{level['questions']}): record its levels again")
    if report["answered_count"] < level["answered"]:
        drops.append(f"answered {report['answered_count']}/{report['questions']}, "
                     f"{level['answered'] - report['answered_count']} fewer than the level {level['answered']} "
                     f"(now missed: {'; '.join(report['misses'])})")
    if report["stale_shown_as_current"] > level["stale_shown_as_current"]:
        drops.append(f"replaced values shown as current {report['stale_shown_as_current']}, "
                     f"{report['stale_shown_as_current'] - level['stale_shown_as_current']} more than the level "
                     f"{level['stale_shown_as_current']} ({report['stale']})")
    changed = report["changed_values"]
    if changed["passed"] < level["changed_values"]:
        drops.append(f"changed values stated as current {changed['passed']}/{changed['total']}, "
                     f"{level['changed_values'] - changed['passed']} fewer than the level {level['changed_values']} "
                     f"(bench/coding_memory.py --history {name} lists the {len(changed['failing'])} failing)")
    if report["brief_held"] < level["brief_held"]:
        drops.append(f"brief holds {report['brief_held']}/{level['brief_items']}, "
                     f"{level['brief_held'] - report['brief_held']} fewer than the level {level['brief_held']} "
                     f"(missing {report['brief_missing']})")
    return [f"{name}: {drop}" for drop in drops]


def locomo_drops(level: dict, result: dict) -> list:
    drops = []
    frac, chars, nulls = (result["system"]["frac"], result["mean_injected_chars"],
                          result["null_prompts_mean_injected_chars"])
    if result["questions"] != level["questions"]:
        drops.append(f"{result['questions']} questions, levels recorded for {level['questions']}")
    if round(level["evidence_frac"] - frac, 1) > level["frac_tolerance"]:
        drops.append(f"evidence recall {frac}%, {level['evidence_frac'] - frac:.1f} points below the level "
                     f"{level['evidence_frac']}% (tolerance {level['frac_tolerance']})")
    for what, have, was in (("characters per question", chars, level["mean_injected_chars"]),
                            ("characters per null prompt", nulls, level["null_prompt_chars"])):
        if have > was * (1 + level["chars_tolerance"]):
            drops.append(f"{what} {have:,.1f}, {100 * (have / was - 1):.1f}% above the level {was:,.1f} "
                         f"(tolerance {100 * level['chars_tolerance']:.0f}%)")
    return [f"LoCoMo: {drop}" for drop in drops]


@pytest.mark.accuracy
@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", sorted(set(available()) | set(LEVELS["coding"])))
def test_coding_history_holds_its_level(name, monkeypatch):
    monkeypatch.setenv("PYTHONHASHSEED", "0")
    assert name in available(), f"{name}: levels recorded in {LEVELS_FILE.name} but no bench/coding/{name}.yaml"
    report = coding_memory.run_history(name)
    if name not in LEVELS["coding"]:
        entry = {"questions": report["questions"], "answered": report["answered_count"],
                 "stale_shown_as_current": report["stale_shown_as_current"],
                 "brief_items": report["brief_held"] + len(report["brief_missing"]),
                 "brief_held": report["brief_held"], "changes": report["changed_values"]["total"],
                 "changed_values": report["changed_values"]["passed"]}
        pytest.fail(f"{name}: no levels in {LEVELS_FILE}; its figures now: \"{name}\": {json.dumps(entry)}")
    assert report["nonzero_hook_exits"] == 0, f"{name}: {report['nonzero_hook_exits']} hooks exited non-zero"
    drops = coding_drops(name, LEVELS["coding"][name], report)
    assert not drops, "below the recorded accuracy level:\n" + "\n".join(drops)


@pytest.mark.accuracy
@pytest.mark.timeout(1200)
def test_locomo_holds_its_level(tmp_path):
    if not LOCOMO_TOOL.is_file():
        pytest.skip(f"LoCoMo not checked: {LOCOMO_TOOL} is missing (../shared is not beside the checkout)")
    out = tmp_path / "locomo.json"
    proc = subprocess.run([sys.executable, str(LOCOMO_TOOL), "--bundle", str(ROOT), "--null-prompts",
                           str(LOCOMO_NULL_PROMPTS), "--json", str(out)], check=False, capture_output=True,
                          text=True, env=dict(os.environ, PYTHONHASHSEED="0"), timeout=1100)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(out.read_text(encoding="utf-8"))
    assert not result.get("hook_nonzero_exits"), result["hook_nonzero_exits"]
    drops = locomo_drops(LEVELS["locomo"], result)
    assert not drops, "below the recorded accuracy level:\n" + "\n".join(drops)


def test_the_gate_names_what_dropped_and_by_how_much():
    """The comparison itself, on figures made up around the recorded levels (the gate must be able to fail)."""
    level = LEVELS["coding"]["wren"]
    worse = {"questions": level["questions"], "answered_count": level["answered"] - 2,
             "stale_shown_as_current": level["stale_shown_as_current"] + 1, "brief_held": level["brief_held"] - 1,
             "brief_missing": ["lr: 2e-5"] * (level["brief_items"] - level["brief_held"] + 1),
             "misses": ["q1", "q2"], "stale": [("q", ["lr: 3e-4"])],
             "changed_values": {"passed": level["changed_values"] - 1, "total": level["changes"],
                                "failing": [{"old": "lr: 3e-4", "new": "lr: 2e-5"}]}}
    drops = coding_drops("wren", level, worse)
    assert [d.split(",")[0] for d in drops] == [
        f"wren: answered {level['answered'] - 2}/{level['questions']}",
        f"wren: replaced values shown as current {level['stale_shown_as_current'] + 1}",
        f"wren: changed values stated as current {level['changed_values'] - 1}/{level['changes']}",
        f"wren: brief holds {level['brief_held'] - 1}/{level['brief_items']}"]
    assert "2 fewer than the level" in drops[0] and "1 more than the level" in drops[1]
    assert "--history wren lists the 1 failing" in drops[2]
    same = dict(worse, answered_count=level["answered"], stale_shown_as_current=level["stale_shown_as_current"],
                brief_held=level["brief_held"], brief_missing=["x"] * (level["brief_items"] - level["brief_held"]),
                changed_values=dict(worse["changed_values"], passed=level["changed_values"]))
    assert coding_drops("wren", level, same) == []
    locomo = LEVELS["locomo"]
    result = {"questions": locomo["questions"], "system": {"frac": locomo["evidence_frac"] - 0.3},
              "mean_injected_chars": locomo["mean_injected_chars"] * 1.05,
              "null_prompts_mean_injected_chars": locomo["null_prompt_chars"]}
    drops = locomo_drops(locomo, result)
    assert len(drops) == 2 and "0.3 points below" in drops[0] and "5.0% above" in drops[1], drops
    within = dict(result, system={"frac": locomo["evidence_frac"] - 0.2},
                  mean_injected_chars=locomo["mean_injected_chars"] * 1.03)
    assert locomo_drops(locomo, within) == []
