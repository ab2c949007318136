"""What a prompt's context costs against what it answers: the coding histories asked again with other budgets.

    .venv/bin/python bench/coding_memory.py --keep /tmp/kept          # build the stores once (minutes)
    .venv/bin/python bench/budget_sweep.py /tmp/kept                   # then each setting in seconds

Each row sets recall's token budget, relative cut and weak-prompt cut (brain/recall/weights.py) and asks every
question and null prompt again, in-process, as the prompt hook would (coding_memory.asked_again). The shipped
setting is the first row; the figures are in bench/README.md ("What a prompt costs, and its ceiling").
"""
import argparse
import contextlib
import io
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent)]

import coding_memory  # noqa: E402  (puts the bundle on the path)
from brain.recall import weights  # noqa: E402

SETTINGS = [(1300, .28, .4), (1100, .28, .4), (900, .28, .4), (700, .28, .4), (500, .28, .4), (1300, .4, .5),
            (1300, .5, .6), (900, .4, .5), (700, .5, .6), (500, .5, .6), (400, .5, .7)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("kept", type=Path, help="the folder a `coding_memory.py --keep` run left")
    parser.add_argument("--history", default=",".join(coding_memory.available()), help="comma-separated names")
    args = parser.parse_args()
    histories = [coding_memory.load(name.strip()) for name in args.history.split(",") if name.strip()]
    nulls = coding_memory.null_prompts(coding_memory.NULL_PROMPTS)
    for budget, cut, weak in SETTINGS:
        weights.DEFAULT_BUDGET_TOKENS, weights.RELATIVE_CUT, weights.WEAK_RELATIVE_CUT = budget, cut, weak
        reports = []
        for history in histories:
            with contextlib.redirect_stdout(io.StringIO()):
                reports.append(coding_memory.asked_again(history, args.kept, nulls))
        questions = sum(r["questions"] for r in reports)
        answered = sum(r["answered_count"] for r in reports)
        chars = sum(r["mean_injected_chars"] * r["questions"] for r in reports) / questions
        null = sum(r["null_prompt_chars"] for r in reports) / len(reports)
        print(f"budget {budget}, cut {cut}, weak cut {weak}: answered {answered}/{questions} "
              f"({100 * answered / questions:.1f}%), {chars:,.0f} chars a prompt, null prompts {null:.0f}, "
              f"{sum(r['stale_shown_as_current'] for r in reports)} stale", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
