#!/usr/bin/env python3
"""Coding-memory benchmark (issue 12): realistic Claude Code histories, asked about in other words.

    .venv/bin/python bench/coding_memory.py [--history ledger,trailmap] [--json OUT] [--show] [--bulk N]

Each history (bench/coding/history_*.py) is several Claude Code sessions over weeks, written as real transcripts
(tests/harness/transcripts.py) and dated back from now. Every session goes through the real hooks from
hooks/hooks.json as Claude Code fires them (SessionStart, Stop, SessionEnd; tests/harness/claude_code.py), then
`rlm-mem ingest` finishes the queued capture and one `rlm-mem garden --apply` runs, as the daily gardening would.
Then a new session starts and each question is typed as a prompt. Reported, per history:
- answered: the share of questions whose answer is in the prompt's injected context;
- stale shown as current: replaced values that appear in the injected context on a line that neither says the
  memory was replaced nor states the current value beside it (a value that changed, shown as if it still held);
- brief: the share of what the next session's start must hold (latest decisions, open TODOs) that it holds, and
  replaced values it shows as current;
- the mean characters injected per prompt.
History A (ledger) is the one changes are developed against; B (trailmap) was written with it and is held out.

--bulk N asks the same questions of a store that also holds N other memories of the same project, as a year of
work would leave them (bench/corpus.py: other services' turns, decisions and sessions, dated over the year before):
recall at the size a long-time user's store has. They are in the store before the history's first session, as a
long-time user's are; --bulk-after adds them after its sessions and gardening instead, as an import of older
memories would.
"""
import argparse
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

BUNDLE = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(BUNDLE), str(BUNDLE / "tests"), str(BUNDLE / "bench")]

from harness.claude_code import fire  # noqa: E402
from harness.transcripts import write_session  # noqa: E402

RLM_MEM = [str(BUNDLE / ".venv" / "bin" / "python"), str(BUNDLE / "scripts" / "rlm_mem.py")]
REPLACED_MARKS = ("replaced", "superseded")


def _flat(text: str) -> str:
    return " ".join(text.lower().split())


def holds(context: str, value: str) -> bool:
    return _flat(value) in _flat(context)


def says_replaced(line: str, value: str) -> bool:
    """Whether the line itself says `value` was replaced: "replace zap with slog", "from `30 2 * * *` to ...",
    "instead of 8087", "drop Celery", "8087 -> 8090", "maxReplicas = 8 (was 5)"."""
    v = re.escape(_flat(value))
    if any(_flat(value) in was for was in re.findall(r"\(was ([^()]*)\)", _flat(line))):
        return True
    return re.search(rf"(?:replac\w*|instead of|from|drop\w*|switch\w* from|ditch\w*)\s+[`'\"]?{v}|{v}[`'\"]?\s*"
                     rf"(?:->|→)", _flat(line)) is not None


def shown_as_current(context: str, value: str, current=()) -> bool:
    """Whether `value` appears on a line of the context that neither marks its memory as replaced, nor says the
    value was replaced, nor states the current value beside it (a line saying "replace Celery with arq" tells which
    one holds)."""
    return any(holds(line, value) and not any(m in line.lower() for m in REPLACED_MARKS)
               and not says_replaced(line, value) and not any(holds(line, c) for c in current)
               for line in context.splitlines())


def add_bulk(memory: Path, count: int, project: str) -> None:
    """`count` memories of bench/corpus.py into the store, all given the project the history's sessions have."""
    import itertools

    from corpus import chunk_specs

    from brain.scripts import ChunkStore

    specs = []
    for spec in itertools.islice(chunk_specs(count), count):
        metadata = dict(spec.get("metadata", {}))
        if metadata.get("project"):
            metadata.update(project=project, project_name=project)
        specs.append(dict(spec, metadata=metadata))
    store = ChunkStore(str(memory), actor="bench")
    with store.batched():
        for start in range(0, count, 1000):
            store.create_many(specs[start:start + 1000], reason="coding benchmark: bulk", bulk=True)


def project_of(folder: Path, env: dict) -> str:
    """The project id the hooks give sessions in `folder`."""
    from brain.context.project import identify, load_config, locate

    place = locate(str(folder))
    return identify(place, load_config(place.root)[0], env=env).id


def run_history(name: str, *, show: bool = False, keep: Path | None = None, bulk: int = 0,
                bulk_after: bool = False) -> dict:
    history = importlib.import_module(f"coding.history_{name}")
    with tempfile.TemporaryDirectory(prefix=f"coding-{name}-") as tmp:
        tmp = Path(tmp)
        if keep is not None:  # leave the memory and project for inspection (replaced on the next run)
            tmp = keep / name
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir(parents=True)
        project, transcripts, memory = tmp / history.PROJECT, tmp / "transcripts", tmp / "memory"
        project.mkdir()
        transcripts.mkdir()
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        env = dict(os.environ, RLM_MEM_DIR=str(memory), RLM_MEM_BACKGROUND="0", HOME=str(tmp))
        env.pop("CLAUDE_PROJECT_DIR", None)
        today = datetime.now(timezone.utc).replace(hour=9, minute=30, second=0, microsecond=0)
        if bulk and not bulk_after:  # a long-time user's store: the year of other work was there first
            add_bulk(memory, bulk, project_of(project, env))
        nonzero, files = 0, {}  # the project's files as the tools left them, across sessions (as on disk)
        for sid, days_ago, turns in history.SESSIONS:
            path = transcripts / f"{sid}.jsonl"
            base = {"session_id": sid, "transcript_path": str(path), "cwd": str(project)}
            nonzero += sum(r.returncode != 0 for r in fire("SessionStart", dict(base, source="startup"), env=env))
            write_session(path, sid, project, today - timedelta(days=days_ago), turns, files=files)
            nonzero += sum(r.returncode != 0 for r in fire("Stop", dict(base, stop_hook_active=False), env=env))
            nonzero += sum(r.returncode != 0 for r in fire("SessionEnd", dict(base, reason="prompt_input_exit"),
                                                           env=env))
            subprocess.run(RLM_MEM + ["ingest"], env=env, check=True, capture_output=True, cwd=project)
        subprocess.run(RLM_MEM + ["garden", "--apply", "--quiet"], env=env, check=True, capture_output=True,
                       cwd=project)
        if bulk and bulk_after:  # as an import of older memories would add them
            add_bulk(memory, bulk, project_of(project, env))
        next_session = {"session_id": "next", "transcript_path": str(transcripts / "next.jsonl"),
                        "cwd": str(project)}
        brief = fire("SessionStart", dict(next_session, source="startup"), env=env)[0].context
        results, chars = [], []
        for question, answers, stale in history.QUESTIONS:
            run = fire("UserPromptSubmit", dict(next_session, prompt=question), env=env)[0]
            nonzero += run.returncode != 0
            context = run.context
            chars.append(len(context))
            results.append({"question": question, "answered": any(holds(context, a) for a in answers),
                            "stale_as_current": [v for v in stale if shown_as_current(context, v, answers)],
                            "chars": len(context), "context": context if show else None})
    expected = [v if isinstance(v, tuple) else (v,) for v in history.BRIEF["holds"]]  # alternatives: one suffices
    held = [v[0] for v in expected if any(holds(brief, alt) for alt in v)]
    brief_stale = [v for v in history.BRIEF["stale"]
                   if shown_as_current(brief, v, [alt for alts in expected for alt in alts])]
    out = {
        "history": name, "sessions": len(history.SESSIONS), "questions": len(results), "bulk": bulk,
        "bulk_after": bulk_after,
        "answered": round(100 * sum(r["answered"] for r in results) / len(results), 1),
        "stale_shown_as_current": sum(len(r["stale_as_current"]) for r in results),
        "brief_holds": f"{len(held)}/{len(history.BRIEF['holds'])}",
        "brief_missing": [v[0] for v in expected if v[0] not in held],
        "brief_stale_as_current": brief_stale,
        "mean_injected_chars": round(sum(chars) / len(chars)),
        "nonzero_hook_exits": nonzero,
        "misses": [r["question"] for r in results if not r["answered"]],
        "stale": [(r["question"], r["stale_as_current"]) for r in results if r["stale_as_current"]],
    }
    if show:
        out["brief"] = brief
        out["details"] = results
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--history", default="ledger,trailmap",
                        help="comma-separated: ledger, trailmap, harbor, quarry, lantern, saltbox, gullwing, kestrel, "
                             "pinecone")
    parser.add_argument("--json", dest="json_out", help="write the results to this file")
    parser.add_argument("--show", action="store_true", help="also print the brief and every prompt's context")
    parser.add_argument("--keep", help="build each history's memory under this folder and leave it there")
    parser.add_argument("--bulk", type=int, default=0, metavar="N",
                        help="also hold N other memories of the same project (a long-time user's store)")
    parser.add_argument("--bulk-after", action="store_true",
                        help="add the N memories after the history's sessions (as an import of older memories "
                             "would), not before them")
    args = parser.parse_args()
    keep = Path(args.keep) if args.keep else None
    reports = [run_history(name.strip(), show=args.show, keep=keep, bulk=args.bulk, bulk_after=args.bulk_after)
               for name in args.history.split(",") if name.strip()]
    for report in reports:
        bulk = f" (+{report['bulk']:,} other memories)" if report["bulk"] else ""
        print(f"{report['history']}{bulk}: {report['questions']} questions over {report['sessions']} sessions: "
              f"answered {report['answered']}%, stale shown as current {report['stale_shown_as_current']}, "
              f"brief holds {report['brief_holds']} (missing {report['brief_missing']}, stale as current "
              f"{report['brief_stale_as_current']}), {report['mean_injected_chars']} chars a prompt, "
              f"{report['nonzero_hook_exits']} non-zero hook exits")
        for question in report["misses"]:
            print(f"  missed: {question}")
        for question, values in report["stale"]:
            print(f"  stale as current: {question} -> {values}")
        if args.show:
            print("\n--- brief ---\n" + report["brief"])
            for r in report["details"]:
                print(f"\n--- {r['question']} ({'ok' if r['answered'] else 'MISS'}) ---\n{r['context']}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(reports, indent=2, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
