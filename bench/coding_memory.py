#!/usr/bin/env python3
"""Coding-memory benchmark (issue 12): realistic Claude Code histories, asked about in other words.

    .venv/bin/python bench/coding_memory.py [--history ledger,wren,/path/to/other.yaml] [--json OUT] [--show]
                                            [--dump-typed DIR] [--null-prompts FILE] [--keep DIR] [--bulk N]
    .venv/bin/python bench/coding_memory.py --check bench/coding/ledger.yaml [MORE.yaml ...]
    .venv/bin/python bench/coding_memory.py --reuse DIR     # ask again the stores a --keep DIR run left

Each history is a YAML file (bench/coding/*.yaml, read by bench/coding/histories.py; the format is in
bench/README.md): several Claude Code sessions over weeks, written as real transcripts (tests/harness/transcripts.py)
and dated back from now. Every session goes through the real hooks from hooks/hooks.json as Claude Code fires them
(SessionStart, Stop, SessionEnd; tests/harness/claude_code.py), then `rlm-mem ingest` finishes the queued capture
and one `rlm-mem garden --apply` runs, as the daily gardening would. Then a new session starts and each question is
typed as a prompt. Reported, per history:
- answered: the share of questions whose answer is in the prompt's injected context;
- stale shown as current: replaced values that appear in the injected context on a line that neither says the
  memory was replaced nor states the current value beside it (a value that changed, shown as if it still held);
- brief: the share of what the next session's start must hold (latest decisions, open TODOs) that it holds, and
  replaced values it shows as current;
- the mean characters injected per prompt;
- changed values: of the history's `changes`, the share whose new value a live typed memory states while no live
  typed memory states the old value without the new one (typed: a stored memory that is not a verbatim turn or a
  session record; live: active, so not superseded, contested, retracted or archived);
- null prompts: the mean characters injected for bench/coding/null_prompts.txt, coding prompts no memory answers,
  typed in the same new session after the questions.
--dump-typed DIR writes each history's typed memories (DIR/NAME/typed.json and typed.md), its transcripts and its
YAML file, for a person judging the typed memories against what was said. --check validates history files (the
format, and that every answer, stale value, change and brief item occurs in the history's text) and exits 1 naming
what is wrong. The hooks run with PYTHONHASHSEED=0 unless it is set and each session starts exactly days_ago days
before the run, so a history gives the same figures every run.

--reuse DIR asks the questions and null prompts again, in-process, of the stores a --keep DIR run left (recall and
the fence as the prompt hook runs them: the same contexts), building nothing and asking no brief: a change to
recall is measured on every history in seconds. Salience decays with the clock, so compare runs made close
together.

--bulk N asks the same questions of a store that also holds N other memories of the same project, as a year of
work would leave them (bench/corpus.py: other services' turns, decisions and sessions, dated over the year before):
recall at the size a long-time user's store has. They are in the store before the history's first session, as a
long-time user's are; --bulk-after adds them after its sessions and gardening instead, as an import of older
memories would.
"""
import argparse
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

from coding.histories import History, HistoryError, available, flat, load  # noqa: E402
from harness.claude_code import fire  # noqa: E402
from harness.transcripts import write_session  # noqa: E402

RLM_MEM = [str(BUNDLE / ".venv" / "bin" / "python"), str(BUNDLE / "scripts" / "rlm_mem.py")]
NULL_PROMPTS = BUNDLE / "bench" / "coding" / "null_prompts.txt"
REPLACED_MARKS = ("replaced", "superseded")
LIVE = "active"  # superseded, contested and retracted memories are not offered as current


def holds(context: str, value: str) -> bool:
    return flat(value) in flat(context)


def says_replaced(line: str, value: str) -> bool:
    """Whether the line itself says `value` was replaced: "replace zap with slog", "from `30 2 * * *` to ...",
    "instead of 8087", "drop Celery", "8087 -> 8090", "maxReplicas = 8 (was 5)"."""
    v = re.escape(flat(value))
    if any(flat(value) in was for was in _was_spans(flat(line))):
        return True
    return re.search(rf"(?:replac\w*|instead of|from|drop\w*|switch\w* from|ditch\w*)\s+[`'\"]?{v}|{v}[`'\"]?\s*"
                     rf"(?:->|→)", flat(line)) is not None


def _was_spans(line: str) -> list:
    """The texts of the "(was ...)" marks of a line, a value's own parentheses kept: "(was crontab(hour=6))"."""
    spans, at = [], line.find("(was ")
    while at >= 0:
        depth, end = 0, at
        for end in range(at, len(line)):
            depth += (line[end] == "(") - (line[end] == ")")
            if depth == 0:
                break
        spans.append(line[at + 5:end])
        at = line.find("(was ", end)
    return spans


def shown_as_current(context: str, value: str, current=()) -> bool:
    """Whether `value` appears on a line of the context that neither marks its memory as replaced, nor says the
    value was replaced, nor states the current value beside it (a line saying "replace Celery with arq" tells which
    one holds)."""
    return any(holds(line, value) and not any(m in line.lower() for m in REPLACED_MARKS)
               and not says_replaced(line, value) and not any(holds(line, c) for c in current)
               for line in context.splitlines())


def null_prompts(path: Path = NULL_PROMPTS) -> list:
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


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


def typed_memories(memory: Path) -> list:
    """Every memory of the store that is not a verbatim turn or a session record (archived ones are not read),
    oldest first, with what a judge needs beside it: status, what it replaced or was replaced by, its source."""
    from brain.recall.core import RECORD_KINDS
    from brain.scripts import ChunkStore

    out = []
    for chunk in ChunkStore(str(memory), actor="bench").list_chunks():
        if chunk.kind in RECORD_KINDS:
            continue
        extra = chunk.metadata.get("extra") or {}
        out.append({"id": chunk.id, "type": chunk.type, "kind": chunk.kind, "status": chunk.status,
                    "live": chunk.status == LIVE, "created": chunk.created, "content": chunk.content,
                    "supersedes": chunk.links.get("supersedes", []),
                    "superseded_by": chunk.links.get("superseded_by", []),
                    "change_note": extra.get("change_note"), "derived_from": chunk.links.get("derived_from", []),
                    "session": chunk.conversation_id, "source": (chunk.metadata.get("provenance") or {}).get("ref")})
    return out


def changed_values(changes: list, typed: list) -> dict:
    """For each change: (a) a live typed memory states the new value, (b) none states the old value without the
    new one or a mark that it was replaced ("(was OLD)", "from OLD", "OLD ->"). The share with both, and the changes that fail, with the memories that make them fail."""
    live = [m for m in typed if m["live"]]
    rows, by_how = [], {}
    for at, change in enumerate(changes):
        # A value a later change of the history replaced again (1.16 -> 1.18, then 1.18 -> 1.19) is no longer
        # current: it passes when no live memory states it without its successor (the later change checks that).
        later = next((c.new for c in changes[at + 1:] if flat(c.old) == flat(change.new)), None)
        if later is not None:
            stating_new = []
            stale = [m["id"] for m in live if holds(m["content"], change.new) and not holds(m["content"], later)
                     and not says_replaced(m["content"], change.new)]
            ok = not stale
        else:
            stating_new = [m["id"] for m in live if holds(m["content"], change.new)]
            stale = [m["id"] for m in live if holds(m["content"], change.old) and not holds(m["content"], change.new)
                     and not says_replaced(m["content"], change.old)]  # "KEY = NEW (was OLD)" marks it replaced
            ok = bool(stating_new) and not stale
        done, total = by_how.get(change.how, (0, 0))
        by_how[change.how] = (done + ok, total + 1)
        rows.append({"what": change.what, "old": change.old, "new": change.new, "how": change.how, "ok": ok,
                     "new_stated_by": stating_new, "old_stated_by": stale})
    passed = sum(r["ok"] for r in rows)
    return {"passed": passed, "total": len(rows), "share": round(100 * passed / len(rows), 1) if rows else None,
            "by_how": {how: f"{d}/{t}" for how, (d, t) in sorted(by_how.items())},
            "failing": [r for r in rows if not r["ok"]], "rows": rows}


def write_dump(folder: Path, history: History, typed: list, changed: dict, transcripts: Path) -> None:
    """The history's typed memories as JSON and Markdown, its transcripts and its YAML file, in `folder`."""
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(transcripts, folder / "transcripts")
    shutil.copy(history.path, folder / history.path.name)
    (folder / "typed.json").write_text(json.dumps({"history": history.name, "typed_memories": typed,
                                                   "changed_values": changed["rows"]}, indent=2, ensure_ascii=False),
                                       encoding="utf-8")
    live = sum(m["live"] for m in typed)
    lines = [f"# Typed memories of {history.name}", "",
             f"{len(typed)} typed memories, {live} live. The sessions are in transcripts/ and {history.path.name}.",
             "", f"## Changed values: {changed['passed']}/{changed['total']} stated as current", ""]
    for row in changed["rows"]:
        why = "" if row["ok"] else (f" (old value still stated by {', '.join(row['old_stated_by'])})"
                                    if row["old_stated_by"] else " (new value stated by no live memory)")
        lines.append(f"- {'ok' if row['ok'] else 'FAIL'}: {row['what']}: `{row['old']}` -> `{row['new']}` "
                     f"({row['how']}){why}")
    for sid, _, _ in history.sessions:
        mine = [m for m in typed if m["session"] == sid]
        lines += ["", f"## Session {sid}", ""]
        for m in mine:
            links = "".join(f"; {name} {', '.join(m[key])}" for name, key in
                            (("supersedes", "supersedes"), ("replaced by", "superseded_by"),
                             ("derived from", "derived_from")) if m[key])
            lines.append(f"- `{m['id']}` {m['kind']}/{m['type']}, {m['status']}, from {m['source']}{links}: "
                         + " ".join(m["content"].split()))
        if not mine:
            lines.append("(none)")
    others = [m for m in typed if m["session"] not in {sid for sid, _, _ in history.sessions}]
    if others:
        lines += ["", "## From no session of the history", ""]
        lines += [f"- `{m['id']}` {m['kind']}/{m['type']}, {m['status']}: " + " ".join(m["content"].split())
                  for m in others]
    (folder / "typed.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def run_history(ref, *, show: bool = False, keep: Path | None = None, bulk: int = 0, bulk_after: bool = False,
                dump: Path | None = None, prompts_no_memory_answers=None) -> dict:
    """Build the history's memory through the real hooks, ask its questions, measure; `ref` is a name, a path to a
    history's YAML file or a loaded History. `prompts_no_memory_answers` defaults to bench/coding/null_prompts.txt."""
    history = ref if isinstance(ref, History) else load(ref)
    nulls = null_prompts() if prompts_no_memory_answers is None else list(prompts_no_memory_answers)
    with tempfile.TemporaryDirectory(prefix=f"coding-{history.name}-") as tmp:
        tmp = Path(tmp)
        if keep is not None:  # leave the memory and project for inspection (replaced on the next run)
            tmp = keep / history.name
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir(parents=True)
        project, transcripts, memory = tmp / history.project, tmp / "transcripts", tmp / "memory"
        project.mkdir()
        transcripts.mkdir()
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        env = dict(os.environ, RLM_MEM_DIR=str(memory), RLM_MEM_BACKGROUND="0", HOME=str(tmp))
        env.pop("CLAUDE_PROJECT_DIR", None)
        env.setdefault("PYTHONHASHSEED", "0")  # set order is the hooks' one randomness: same history, same figures
        # each session starts exactly days_ago days before the run: recall weighs a memory by its age in hours, so a
        # start at a fixed hour of the day moved answers with the hour the benchmark ran at
        now = datetime.now(timezone.utc).replace(second=0, microsecond=0)
        if bulk and not bulk_after:  # a long-time user's store: the year of other work was there first
            add_bulk(memory, bulk, project_of(project, env))
        nonzero, files = 0, {}  # the project's files as the tools left them, across sessions (as on disk)
        for sid, days_ago, turns in history.sessions:
            path = transcripts / f"{sid}.jsonl"
            base = {"session_id": sid, "transcript_path": str(path), "cwd": str(project)}
            nonzero += sum(r.returncode != 0 for r in fire("SessionStart", dict(base, source="startup"), env=env))
            write_session(path, sid, project, now - timedelta(days=days_ago), turns, files=files)
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
        def ask(prompt: str) -> str:
            nonlocal nonzero
            run = fire("UserPromptSubmit", dict(next_session, prompt=prompt), env=env)[0]
            nonzero += run.returncode != 0
            return run.context

        out = asked(history, memory, ask, nulls, show, dump=dump, transcripts=transcripts)
    held = [alts[0] for alts in history.brief_holds if any(holds(brief, alt) for alt in alts)]
    out.update(bulk=bulk, bulk_after=bulk_after, nonzero_hook_exits=nonzero, brief_held=len(held),
               brief_holds=f"{len(held)}/{len(history.brief_holds)}",
               brief_missing=[alts[0] for alts in history.brief_holds if alts[0] not in held],
               brief_stale_as_current=[v for v in history.brief_stale
                                       if shown_as_current(brief, v, [a for alts in history.brief_holds for a in alts])])
    if show:
        out["brief"] = brief
    return out


def asked(history: History, memory: Path, ask, nulls, show: bool, dump: Path | None = None,
          transcripts: Path | None = None) -> dict:
    """The history's questions and the null prompts, each put to `ask` (prompt -> injected context), scored, with
    the typed memories of the store at `memory` and the changed values they state."""
    results = []
    for question in history.questions:
        context = ask(question.ask)
        results.append({"question": question.ask, "answered": any(holds(context, a) for a in question.answers),
                        "stale_as_current": [v for v in question.stale
                                             if shown_as_current(context, v, question.answers)],
                        "chars": len(context), "context": context if show else None})
    null_chars = [len(ask(prompt)) for prompt in nulls]
    typed = typed_memories(memory)
    changed = changed_values(history.changes, typed)
    if dump is not None:
        write_dump(Path(dump) / history.name, history, typed, changed, transcripts)
    answered = sum(r["answered"] for r in results)
    out = {
        "history": history.name, "sessions": len(history.sessions), "questions": len(results), "bulk": 0,
        "bulk_after": False,
        "answered": round(100 * answered / len(results), 1),
        "answered_count": answered,
        "stale_shown_as_current": sum(len(r["stale_as_current"]) for r in results),
        "brief_holds": "not asked", "brief_held": None, "brief_missing": [], "brief_stale_as_current": [],
        "mean_injected_chars": round(sum(r["chars"] for r in results) / len(results)),
        "null_prompt_chars": round(sum(null_chars) / len(null_chars), 1) if null_chars else None,
        "changed_values": {key: changed[key] for key in ("passed", "total", "share", "by_how", "failing")},
        "typed_memories": {"total": len(typed), "live": sum(m["live"] for m in typed)},
        "nonzero_hook_exits": 0,
        "misses": [r["question"] for r in results if not r["answered"]],
        "stale": [(r["question"], r["stale_as_current"]) for r in results if r["stale_as_current"]],
    }
    if show:
        out["brief"] = None
        out["details"] = results
    return out


def kept_store(history: History, kept: Path) -> tuple:
    """(the memory root, the project id its sessions have) of the store a `--keep kept` run left for `history`."""
    folder = kept / history.name
    memory = folder / "memory"
    if not (memory / "index" / "search.db").is_file():
        raise FileNotFoundError(f"no store of {history.name} in {kept} (make one with --keep {kept})")
    return memory, project_of(folder / history.project, dict(os.environ, RLM_MEM_DIR=str(memory), HOME=str(folder)))


def asked_again(history: History, kept: Path, nulls, show: bool = False) -> dict:
    """The questions and null prompts asked again, in-process, of the store a `--keep kept` run left: recall and
    the fence as the prompt hook runs them (the same contexts), without building anything or asking the brief."""
    from brain.recall.recall import recall
    from brain.safety.fence import fence

    memory, project = kept_store(history, kept)

    def ask(prompt: str) -> str:
        found = recall(str(memory), prompt, project=project, track=False, typed=True)
        return fence(found.render(), label="recall") if found.items else ""

    return asked(history, memory, ask, nulls, show)


def check(refs: list) -> int:
    """Validate history files: 0 when every one is usable, else 1 with each problem named on stderr."""
    failed = 0
    for ref in refs:
        try:
            history = load(ref)
        except HistoryError as exc:
            failed += 1
            print(f"Error: {exc.path}: {len(exc.problems)} problem(s)", file=sys.stderr)
            for problem in exc.problems:
                print(f"  {problem}", file=sys.stderr)
            continue
        print(f"ok: {history.path}: {history.name}, {len(history.sessions)} sessions, {len(history.questions)} "
              f"questions, {len(history.changes)} changes, {len(history.brief_holds)} brief items")
        for what, have, least in (("sessions", len(history.sessions), 7), ("questions", len(history.questions), 45),
                                  ("changes", len(history.changes), 10)):
            if have < least:
                print(f"  note: {have} {what}; a new history should have at least {least}")
    return 1 if failed else 0


def _print(report: dict, show: bool) -> None:
    bulk = f" (+{report['bulk']:,} other memories)" if report["bulk"] else ""
    changed = report["changed_values"]
    print(f"{report['history']}{bulk}: {report['questions']} questions over {report['sessions']} sessions: "
          f"answered {report['answered']}%, stale shown as current {report['stale_shown_as_current']}, "
          + (f"brief holds {report['brief_holds']} (missing {report['brief_missing']}, stale as current "
             f"{report['brief_stale_as_current']}), " if report["brief_held"] is not None else "")
          + f"{report['mean_injected_chars']} chars a prompt, "
          f"{report['nonzero_hook_exits']} non-zero hook exits")
    print(f"  changed values stated as current: {changed['passed']}/{changed['total']} ({changed['share']}%; by how: "
          f"{changed['by_how']}); null prompts: {report['null_prompt_chars']} chars; typed memories: "
          f"{report['typed_memories']['live']} live of {report['typed_memories']['total']}")
    for question in report["misses"]:
        print(f"  missed: {question}")
    for question, values in report["stale"]:
        print(f"  stale as current: {question} -> {values}")
    for row in changed["failing"]:
        why = f"old value live in {', '.join(row['old_stated_by'])}" if row["old_stated_by"] else \
            "no live typed memory states it"
        print(f"  changed value not current: {row['what']} ({row['old']!r} -> {row['new']!r}): {why}")
    if show:
        if report["brief"] is not None:
            print("\n--- brief ---\n" + report["brief"])
        for r in report["details"]:
            print(f"\n--- {r['question']} ({'ok' if r['answered'] else 'MISS'}) ---\n{r['context']}")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        epilog="example: bench/coding_memory.py --history ledger,wren --json /tmp/coding.json")
    parser.add_argument("--history", default=",".join(available()),
                        help="comma-separated history names in bench/coding/ or paths to history YAML files "
                             f"(default: all of {', '.join(available())})")
    parser.add_argument("--check", nargs="+", metavar="FILE",
                        help="only validate these history files (names or paths) and exit")
    parser.add_argument("--json", dest="json_out", help="write the results to this file")
    parser.add_argument("--show", action="store_true", help="also print the brief and every prompt's context")
    parser.add_argument("--dump-typed", metavar="DIR",
                        help="write each history's typed memories, transcripts and YAML file under DIR/NAME/")
    parser.add_argument("--null-prompts", default=str(NULL_PROMPTS), metavar="FILE",
                        help="prompts no memory answers, one a line (default: bench/coding/null_prompts.txt)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--keep", help="build each history's memory under this folder and leave it there")
    where.add_argument("--reuse", metavar="DIR",
                       help="ask again, in-process, the stores a --keep DIR run left (seconds, not minutes; no brief)")
    parser.add_argument("--bulk", type=int, default=0, metavar="N",
                        help="also hold N other memories of the same project (a long-time user's store)")
    parser.add_argument("--bulk-after", action="store_true",
                        help="add the N memories after the history's sessions (as an import of older memories "
                             "would), not before them")
    args = parser.parse_args()
    if args.check:
        return check(args.check)
    try:  # every history is read and checked before any is run
        histories = [load(ref.strip()) for ref in args.history.split(",") if ref.strip()]
    except HistoryError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    try:
        nulls = null_prompts(Path(args.null_prompts))
    except (OSError, UnicodeDecodeError) as exc:
        print(f"Error: cannot read --null-prompts {args.null_prompts}: {exc}", file=sys.stderr)
        return 2
    keep = Path(args.keep) if args.keep else None
    dump = Path(args.dump_typed) if args.dump_typed else None
    reports = []
    for history in histories:
        if args.reuse:
            try:
                reports.append(asked_again(history, Path(args.reuse), nulls, args.show))
            except FileNotFoundError as exc:
                print(f"Error: {exc}", file=sys.stderr)
                return 2
        else:
            reports.append(run_history(history, show=args.show, keep=keep, bulk=args.bulk,
                                       bulk_after=args.bulk_after, dump=dump, prompts_no_memory_answers=nulls))
        _print(reports[-1], args.show)
    if len(reports) > 1:
        questions = sum(r["questions"] for r in reports)
        answered = sum(r["answered_count"] for r in reports)
        nulls_mean = [r["null_prompt_chars"] for r in reports if r["null_prompt_chars"] is not None]
        print(f"all: {answered} of {questions} answered ({100 * answered / questions:.1f}%), "
              f"{sum(r['stale_shown_as_current'] for r in reports)} stale shown as current, "
              f"{sum(r['mean_injected_chars'] * r['questions'] for r in reports) / questions:.0f} chars a prompt"
              + (f", null prompts {sum(nulls_mean) / len(nulls_mean):.0f} chars" if nulls_mean else ""))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(reports, indent=2, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
