"""Where issue 34's out-of-reach lines top out: what no ranking of these stores could answer, and why.

    .venv/bin/python bench/coding_memory.py --history A.yaml,B.yaml --keep /tmp/kept --json /tmp/kept.json
    .venv/bin/python bench/ceilings.py /tmp/kept /tmp/kept.json --history A.yaml,B.yaml

For each history of a `--keep` run (its stores and its --json report), three measures:
- answers: each question the run missed, sorted by what would have to change to answer it: its answer is in no
  stored memory (capture would have to keep it); or recall reaches it only with the cuts off (no relative or weak
  cut, a budget of 50,000 tokens, 60 items), by the rank of the first item holding it; or not even then (the
  prompt's words are not the memory's: ranking by meaning, not by words, would be needed);
- replaced values shown as current: each, by how the value that replaced it arrived (the history's `changes`): a
  value changed only in conversation is recorded by the model's `rlm-mem supersede`, which no benchmark run has;
- changed values: passed and failing by how they arrived, and the share reachable if every change a tool made
  (edit, new file, command output) were stated and those said only in words stayed as they are.
The figures are in bench/README.md ("Where the out-of-reach lines top out").
"""
import argparse
import collections
import json
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent)]

import coding_memory  # noqa: E402  (puts the bundle on the path)
from coding.histories import flat  # noqa: E402

UNCUT_BUDGET_TOKENS, UNCUT_LIMIT = 50_000, 60


def stored_texts(memory: Path) -> str:
    """Every memory's text, live, replaced or archived, flattened as the benchmark matches answers."""
    texts = []
    for folder in (memory / "chunks", memory / "archive"):
        for path in folder.rglob("*.json"):
            try:
                texts.append(flat(json.loads(path.read_text(encoding="utf-8")).get("content", "")))
            except (OSError, ValueError, AttributeError):
                continue
    return "\n".join(texts)


def uncut_rank(memory: Path, project: str, question: str, answers) -> int:
    """The rank of the first item holding an answer when recall is asked with its cuts off; 0 when none does."""
    from brain.recall import weights
    from brain.recall.recall import recall

    saved = weights.RELATIVE_CUT, weights.RELATIVE_MIN, weights.WEAK_RELATIVE_CUT, weights.STRONG_SHARE
    weights.RELATIVE_CUT = weights.RELATIVE_MIN = weights.WEAK_RELATIVE_CUT = weights.STRONG_SHARE = 0.0
    try:
        found = recall(str(memory), question, project=project, track=False, typed=True,
                       budget_tokens=UNCUT_BUDGET_TOKENS, limit=UNCUT_LIMIT)
    finally:
        weights.RELATIVE_CUT, weights.RELATIVE_MIN, weights.WEAK_RELATIVE_CUT, weights.STRONG_SHARE = saved
    for rank, item in enumerate(found.items, 1):
        if any(flat(answer) in flat(item.line(False)) for answer in answers):
            return rank
    return 0


def rank_band(rank: int) -> str:
    if rank == 0:
        return "not in 60 uncut items"
    return next(band for top, band in ((1, "uncut rank 1"), (3, "uncut rank 2-3"), (10, "uncut rank 4-10"),
                                       (UNCUT_LIMIT, "uncut rank 11-60")) if rank <= top)


def measure(history, kept: Path, report: dict) -> dict:
    memory, project = coding_memory.kept_store(history, kept)
    answers = {question.ask: question.answers for question in history.questions}
    stored = stored_texts(memory)
    misses = collections.Counter()
    for question in report["misses"]:
        if not any(flat(answer) in stored for answer in answers[question]):
            misses["answer stored nowhere"] += 1
        else:
            misses[rank_band(uncut_rank(memory, project, question, answers[question]))] += 1
    stale = collections.Counter()
    for _question, values in report["stale"]:
        for value in values:
            hows = [change.how for change in history.changes if flat(value) in flat(change.old)]
            stale[hows[0] if hows else "no change names it (words)"] += 1
    changed = {how: tuple(int(n) for n in tally.split("/"))
               for how, tally in report["changed_values"]["by_how"].items()}
    return {"history": history.name, "questions": report["questions"], "answered": report["answered_count"],
            "misses": dict(misses), "stale": dict(stale), "changed_by_how": changed}


def summary(rows: list) -> str:
    questions = sum(r["questions"] for r in rows)
    answered = sum(r["answered"] for r in rows)
    misses, stale, changed = collections.Counter(), collections.Counter(), collections.Counter()
    for row in rows:
        misses.update(row["misses"])
        stale.update(row["stale"])
        for how, (passed, total) in row["changed_by_how"].items():
            changed[how, "passed"] += passed
            changed[how, "total"] += total
    reachable = sum(n for band, n in misses.items() if band.startswith("uncut rank"))
    total_changes = sum(n for (how, kind), n in changed.items() if kind == "total")
    by_tool = sum(n for (how, kind), n in changed.items() if kind == "total" and how != "words")
    passed = sum(n for (how, kind), n in changed.items() if kind == "passed")
    in_words = sum(n for how, n in stale.items() if "words" in how)  # the words, and the values no change names
    lines = [f"{len(rows)} histories, {questions} questions: answered {answered} ({100 * answered / questions:.1f}%); "
             f"with every cut off, at most {answered + reachable} ({100 * (answered + reachable) / questions:.1f}%)",
             "  misses: " + ", ".join(f"{band} {n}" for band, n in sorted(misses.items())),
             f"replaced values shown as current: {sum(stale.values())} "
             f"({sum(stale.values()) / len(rows):.2f} a history): "
             + ", ".join(f"{how} {n}" for how, n in sorted(stale.items())),
             f"  left if every one a tool made were fixed: {in_words} ({in_words / len(rows):.2f} a history)",
             f"changed values: {passed}/{total_changes} ({100 * passed / total_changes:.1f}%); "
             + ", ".join(f"{how} {changed[how, 'passed']}/{changed[how, 'total']}"
                         for how in sorted({how for how, _ in changed})),
             f"  every tool-made change stated, those said in words as now: {by_tool + changed['words', 'passed']}"
             f"/{total_changes} ({100 * (by_tool + changed['words', 'passed']) / total_changes:.1f}%)"]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", type=Path, nargs="+", metavar="KEPT REPORT",
                        help="pairs: the folder a `coding_memory.py --keep` run left, then that run's --json report")
    parser.add_argument("--history", default="", help="the run's history files, comma-separated, when they are "
                        "not the project's own (bench/coding)")
    parser.add_argument("--json", type=Path, help="also write each history's figures here")
    args = parser.parse_args()
    if len(args.runs) % 2:
        parser.error("give the runs as pairs: KEPT REPORT [KEPT REPORT ...]")
    files = {Path(ref).stem: ref.strip() for ref in args.history.split(",") if ref.strip()}
    rows = []
    for kept, report_path in zip(args.runs[::2], args.runs[1::2]):
        try:
            reports = json.loads(report_path.read_text(encoding="utf-8"))
            histories = [coding_memory.load(files.get(report["history"], report["history"])) for report in reports]
            rows += [measure(history, kept, report) for history, report in zip(histories, reports)]
        except (OSError, ValueError, KeyError, coding_memory.HistoryError) as exc:  # (no store: FileNotFoundError)
            print(f"Error: {exc}", file=sys.stderr)
            return 1
    print(summary(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
