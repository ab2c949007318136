"""Recall benchmark on LoCoMo conversations: how much of each question's evidence reaches the injected context.

    .venv/bin/python bench/recall_locomo.py LOCOMO.json [--convs 0,2] [--budget 700[,500,...]]
                                            [--null-prompts FILE] [--json OUT] [--keep DIR] [--hook-runs N]

For each conversation, in a temporary folder (or DIR with --keep, reused when it already holds the store), every
session is written as a Claude Code transcript (speaker A as the user, B as the assistant, each line "Name: text",
turns 30 s apart from the session's date) and captured with the real capture code; then every question of
categories 1-4 is recalled in-process with the project's id, wrapped in the fence the hook adds, and scored:
an evidence turn counts when its words appear in the context (normalised; for turns of 8+ words, 90% of their
word 5-grams suffice). The baseline is BM25 (SQLite FTS5) over single turns allowed exactly as many characters.
Prints frac (mean share of evidence found) overall and per category for both, mean characters, the characters
null prompts receive, and recall time. With --hook-runs N, the real UserPromptSubmit hook (the command in
hooks/hooks.json, as a subprocess) is also fired with N questions per conversation, each right after a bare
`python -I -c pass` of the same interpreter, on a copy of each store; the median ratio is issue 4's latency figure.
The data is read from the path given and never copied.
"""
import argparse
import json
import os
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

BUNDLE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BUNDLE))

from brain.capture.ingest import capture_transcript  # noqa: E402
from brain.context.project import project_id  # noqa: E402
from brain.recall.recall import DEFAULT_BUDGET_TOKENS, recall  # noqa: E402
from brain.safety.fence import fence  # noqa: E402
from brain.store.chunk_store import ChunkStore  # noqa: E402

TOKEN = re.compile(r"[a-z0-9]+")
BASELINE_STOP = frozenset("""a an and are as at be but by did do does for from had has have he her his how i in is
it its me my of on or our she so that the their them they this to was we were what when where which who why will
with you your""".split())
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


# ------------------------------------------------------------------------------------------- data
def session_start(text: str) -> datetime:
    """LoCoMo's "1:56 pm on 8 May, 2023" as a UTC datetime (midnight 2023-01-01 when unreadable)."""
    m = re.search(r"(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})", text or "", re.I)
    if not m:
        return datetime(2023, 1, 1, tzinfo=timezone.utc)
    hour, minute, half, day, month, year = m.groups()
    hour = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
    month_no = datetime.strptime(month[:3].title(), "%b").month
    return datetime(int(year), month_no, int(day), hour, int(minute), tzinfo=timezone.utc)


def sessions_of(conversation: dict):
    numbers = sorted(int(k.split("_")[1]) for k in conversation
                     if re.fullmatch(r"session_\d+", k) and conversation[k])
    for n in numbers:
        yield n, session_start(conversation.get(f"session_{n}_date_time", "")), conversation[f"session_{n}"]


def spoken(turn: dict) -> str:
    line = f"{turn['speaker']}: {turn['text']}"
    return line + (f" [shares a photo: {turn['blip_caption']}]" if turn.get("blip_caption") else "")


def evidence_ids(qa: dict, known: dict) -> list:
    ids = []
    for ref in qa.get("evidence") or ():
        for m in re.finditer(r"D:?(\d+):0*(\d+)", ref):
            key = f"D{int(m.group(1))}:{int(m.group(2))}"
            if key in known and key not in ids:
                ids.append(key)
    return ids


def write_transcript(path: Path, session_id: str, cwd: Path, start: datetime, turns: list, user_speaker: str):
    """One session in Claude Code's JSONL shape: user records with string content, assistant text blocks."""
    previous = None
    with open(path, "w", encoding="utf-8") as out:
        for i, turn in enumerate(turns):
            uuid = f"{session_id}-{i:04d}"
            when = (start + timedelta(seconds=30 * i)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
            if turn["speaker"] == user_speaker:
                message = {"role": "user", "content": spoken(turn)}
                kind = "user"
            else:
                message = {"role": "assistant", "type": "message", "id": f"msg-{uuid}",
                           "content": [{"type": "text", "text": spoken(turn)}], "stop_reason": "end_turn"}
                kind = "assistant"
            out.write(json.dumps({"type": kind, "uuid": uuid, "parentUuid": previous, "sessionId": session_id,
                                  "timestamp": when, "cwd": str(cwd), "isSidechain": False,
                                  "message": message}) + "\n")
            previous = uuid


def build_store(sample: dict, folder: Path) -> tuple:
    """Capture every session of one conversation into folder/memory; returns (root, project id)."""
    root, project_dir, transcripts = folder / "memory", folder / "project", folder / "transcripts"
    project_dir.mkdir(parents=True, exist_ok=True)
    project = project_id(project_dir).id
    if (root / "index" / "search.db").exists():
        ChunkStore(root, actor="bench").sync_derived()  # a kept store indexed by an older layout is re-indexed
        return root, project
    transcripts.mkdir(exist_ok=True)
    store = ChunkStore(root, actor="bench")
    conv = sample["conversation"]
    for n, start, turns in sessions_of(conv):
        sid = f"{sample['sample_id']}-s{n:02d}"
        path = transcripts / f"{sid}.jsonl"
        write_transcript(path, sid, project_dir, start, turns, conv["speaker_a"])
        capture_transcript(store, path, session_id=sid, cwd=str(project_dir), final=True, full=True)
    return root, project


# ------------------------------------------------------------------------------------------- scoring
def normalised(text: str) -> str:
    return " ".join(TOKEN.findall(text.lower()))


def five_grams(words: list) -> set:
    return {tuple(words[i:i + 5]) for i in range(len(words) - 4)}


def found(evidence: str, context: str, context_grams: set) -> bool:
    words = normalised(evidence).split()
    if not words:
        return False
    if " ".join(words) in context:
        return True
    if len(words) < 8:
        return False
    grams = five_grams(words)
    return len(grams & context_grams) >= 0.9 * len(grams)


def share_found(evidence: list, context: str) -> float:
    flat = normalised(context)
    grams = five_grams(flat.split())
    return sum(found(e, flat, grams) for e in evidence) / len(evidence)


def _match_query(question: str) -> str:
    """An FTS5 OR-query of the question's words (baseline stopwords out), or "" when none is left."""
    words = dict.fromkeys(w for w in TOKEN.findall(question.lower()) if w not in BASELINE_STOP)
    return " OR ".join(f'"{w}"' for w in words)


def _fill(bodies, chars: int) -> str:
    """Bodies in rank order up to `chars` (each plus a newline); one partial body when the first does not fit."""
    picked, used = [], 0
    for body in bodies:
        if used + len(body) + 1 > chars:
            if not picked:
                picked.append(body[:chars])
            break
        picked.append(body)
        used += len(body) + 1
    return "\n".join(picked)


class Baseline:
    """BM25 over single turns, filled in rank order up to a character allowance (one partial turn if none fits)."""

    def __init__(self, lines: list):
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE turns USING fts5(body, tokenize='porter unicode61')")
        self.db.executemany("INSERT INTO turns(body) VALUES (?)", [(line,) for line in lines])

    def context(self, question: str, chars: int) -> str:
        query = _match_query(question)
        if not query or chars <= 0:
            return ""
        rows = self.db.execute("SELECT body FROM turns WHERE turns MATCH ? ORDER BY rank LIMIT 300", (query,))
        return _fill((body for (body,) in rows), chars)


class WindowBaseline:
    """BM25 over windows of three consecutive turns (stride two, inside a session), filled in rank order up to a
    character allowance; a turn already shown is not repeated (as ../shared/tools/locomo_eval.py does)."""

    def __init__(self, sessions: list):
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE windows USING fts5(body, tokenize='porter unicode61')")
        self.windows = []
        for lines in sessions:
            starts = list(range(0, max(len(lines) - 3, 0) + 1, 2))
            if starts and starts[-1] + 3 < len(lines):
                starts.append(len(lines) - 3)
            self.windows += [lines[i:i + 3] for i in starts]
        self.db.executemany("INSERT INTO windows(rowid, body) VALUES (?, ?)",
                            [(n, "\n".join(w)) for n, w in enumerate(self.windows)])

    def context(self, question: str, chars: int) -> str:
        query = _match_query(question)
        if not query or chars <= 0:
            return ""
        rows = self.db.execute("SELECT rowid FROM windows WHERE windows MATCH ? ORDER BY rank LIMIT 300", (query,))
        return _fill(self._unshown(rowid for (rowid,) in rows), chars)

    def _unshown(self, rowids):
        """Each window as the lines not yet given (a window with none left is skipped). _fill stops at the first
        body it cannot take, so marking a body shown when it is handed over is the same as when it is taken."""
        shown = set()
        for rowid in rowids:
            fresh = [line for line in self.windows[rowid] if line not in shown]
            if fresh:
                shown.update(fresh)
                yield "\n".join(fresh)


def injected(root: Path, project: str, prompt: str, budget: int) -> tuple:
    """(context as the hook would inject it, seconds recall took)."""
    t0 = time.perf_counter()
    result = recall(root, prompt, project=project, budget_tokens=budget, track=False)
    took = time.perf_counter() - t0
    body = result.render()
    return (fence(body, label="recall") if body else ""), took


# ------------------------------------------------------------------------------------------- hook latency
def hook_latency(samples: list, runs: int) -> dict:
    """Median wall time of the real UserPromptSubmit hook against a bare interpreter start, alternating, on a copy
    of each store (the hook records access, which would change a kept store's salience for the next run)."""
    from run import BARE, event_json, hook_command, run_once  # bench/run.py: the same timing as issue 8's figures

    bare, hook = [], []
    for sample, root, project_dir in samples:
        questions = [qa["question"] for qa in sample["qa"] if qa.get("category") in CATEGORIES][: runs + 1]
        with tempfile.TemporaryDirectory(prefix="hook-latency-") as tmp:
            memory = Path(tmp) / "memory"
            shutil.copytree(root, memory)
            env = dict(os.environ, RLM_MEM_DIR=str(memory), CLAUDE_PROJECT_DIR=str(project_dir),
                       CLAUDE_PLUGIN_ROOT=str(BUNDLE), RLM_MEM_BACKGROUND="0")
            for i, question in enumerate(questions):
                payload = {"session_id": "bench-questions", "transcript_path": "", "cwd": str(project_dir),
                           "prompt": question}
                b = run_once(BARE, env=env, cwd=project_dir)
                h = run_once(hook_command("UserPromptSubmit", payload), env=env, cwd=project_dir,
                             stdin=event_json("UserPromptSubmit", payload))
                if h.code != 0:
                    raise SystemExit(f"UserPromptSubmit exited {h.code}: {h.stderr.strip()[-300:]}")
                if i:  # the first pair warms the page cache
                    bare.append(b.seconds)
                    hook.append(h.seconds)
    if not hook:
        return {}
    return {"runs": len(hook), "bare_ms": round(1000 * statistics.median(bare), 1),
            "hook_ms": round(1000 * statistics.median(hook), 1),
            "ratio": round(statistics.median(hook) / statistics.median(bare), 2)}


# ------------------------------------------------------------------------------------------- run
def run(data: list, budgets: list, folder: Path, null_prompts: list, hook_runs: int = 0) -> dict:
    rows, nulls, timings, built_stores = [], {b: [] for b in budgets}, [], []
    for sample in data:
        conv = sample["conversation"]
        turns = {t["dia_id"]: t for _, _, ts in sessions_of(conv) for t in ts}
        t0 = time.perf_counter()
        root, project = build_store(sample, folder / sample["sample_id"])
        built = time.perf_counter() - t0
        built_stores.append((sample, root, folder / sample["sample_id"] / "project"))
        baseline = Baseline([spoken(t) for t in turns.values()])
        windows = WindowBaseline([[spoken(t) for t in ts] for _, _, ts in sessions_of(conv)])
        questions = [(qa, evidence_ids(qa, turns)) for qa in sample["qa"] if qa.get("category") in CATEGORIES]
        for qa, ids in questions:
            if not ids:
                continue
            evidence = [turns[i]["text"] for i in ids]
            for budget in budgets:
                context, took = injected(root, project, qa["question"], budget)
                timings.append(took)
                rows.append({"conv": sample["sample_id"], "cat": qa["category"], "budget": budget,
                             "chars": len(context), "frac": share_found(evidence, context),
                             "base": share_found(evidence, baseline.context(qa["question"], len(context))),
                             "windows": share_found(evidence, windows.context(qa["question"], len(context))),
                             "question": qa["question"]})
        for prompt in null_prompts:
            for budget in budgets:
                nulls[budget].append(len(injected(root, project, prompt, budget)[0]))
        print(f"{sample['sample_id']}: store built in {built:.1f}s", file=sys.stderr)

    def pct(values):
        return round(100 * statistics.mean(values), 1) if values else None

    report = {"conversations": [s["sample_id"] for s in data], "budgets": {}}
    for budget in budgets:
        mine = [r for r in rows if r["budget"] == budget]
        entry = {"questions": len(mine), "frac": pct([r["frac"] for r in mine]),
                 "bm25_equal_chars": pct([r["base"] for r in mine]),
                 "bm25_windows_equal_chars": pct([r["windows"] for r in mine]),
                 "mean_chars": round(statistics.mean(r["chars"] for r in mine), 1) if mine else 0,
                 "by_category": {f"{c} {name}": {"frac": pct([r["frac"] for r in mine if r["cat"] == c]),
                                                 "bm25": pct([r["base"] for r in mine if r["cat"] == c]),
                                                 "windows": pct([r["windows"] for r in mine if r["cat"] == c]),
                                                 "questions": sum(1 for r in mine if r["cat"] == c)}
                                 for c, name in CATEGORIES.items()}}
        if entry["bm25_equal_chars"]:
            entry["ratio"] = round(entry["frac"] / entry["bm25_equal_chars"], 3)
        if entry["bm25_windows_equal_chars"]:
            entry["ratio_windows"] = round(entry["frac"] / entry["bm25_windows_equal_chars"], 3)
        if nulls[budget]:
            entry["null_prompt_mean_chars"] = round(statistics.mean(nulls[budget]), 1)
        report["budgets"][str(budget)] = entry
    if timings:
        report["recall_ms"] = {"p50": round(1000 * statistics.median(timings), 2),
                               "p95": round(1000 * sorted(timings)[int(0.95 * (len(timings) - 1))], 2)}
    if hook_runs:
        report["user_prompt_submit_hook"] = hook_latency(built_stores, hook_runs)
    report["rows"] = rows
    return report


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data", help="LoCoMo JSON file (a list of samples)")
    ap.add_argument("--convs", default="", help="comma-separated sample indexes (default: all)")
    ap.add_argument("--budget", default=str(DEFAULT_BUDGET_TOKENS), help="token budget(s), comma-separated")
    ap.add_argument("--null-prompts", default="", help="file of prompts no memory answers, one a line")
    ap.add_argument("--json", default="", help="also write the report here")
    ap.add_argument("--keep", default="", help="build stores in this folder and reuse them on later runs")
    ap.add_argument("--hook-runs", type=int, default=0,
                    help="also time the real UserPromptSubmit hook against a bare interpreter, N prompts a store")
    args = ap.parse_args(argv)
    data = json.loads(Path(args.data).read_text(encoding="utf-8"))
    picked = [int(x) for x in args.convs.split(",") if x.strip()]
    data = [data[i] for i in picked] if picked else data
    budgets = [int(b) for b in args.budget.split(",") if b.strip()]
    nulls = [ln.strip() for ln in Path(args.null_prompts).read_text().splitlines() if ln.strip()] \
        if args.null_prompts else []
    if args.keep:
        report = run(data, budgets, Path(args.keep), nulls, args.hook_runs)
    else:
        with tempfile.TemporaryDirectory(prefix="recall-locomo-") as tmp:
            report = run(data, budgets, Path(tmp), nulls, args.hook_runs)
    rows = report.pop("rows")
    text = json.dumps(report, indent=1)
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps(dict(report, rows=rows), indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
