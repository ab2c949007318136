"""How far LoCoMo recall can go at the issue's size (issue 12: 88% of evidence at <= 3,000 characters, x1.2 against
BM25 over 3-turn windows): what the questions' words reach, what recall gives along its cut, and (with
--dense) what a local sentence-embedding model fused with recall's ranking would give.

    .venv/bin/python bench/locomo_ceiling.py [--stores DIR] [--dense]

The five dev conversations are captured through the real hooks as ../shared/tools/locomo_eval.py does (that
tool's own functions, read by path); questions are then asked in-process (recall and the fence, as the prompt
hook does: the same context, 760 questions in seconds). --dense needs sentence-transformers and the
all-MiniLM-L6-v2 weights in the environment it runs in (not a dependency of rlm-mem: too slow for a prompt
hook; measured to bound what a meaning model could add).
"""
import argparse
import json
import os
import sqlite3
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TOOLS = ROOT.parent / "shared" / "tools"
FENCE_CHARS = 165  # the fence's opening and closing lines around recalled items
NULL_PROMPTS = ROOT.parent / "shared" / "data" / "null-prompts.txt"
# recall's cut (the share of the best item's score an item needs; 0.38 by default), then looser still: no cap for
# weak matches, a larger budget
SETTINGS = ({"RELATIVE_CUT": 0.7}, {"RELATIVE_CUT": 0.5}, {"RELATIVE_CUT": 0.38}, {"RELATIVE_CUT": 0.3},
            {"RELATIVE_CUT": 0.15, "WEAK_BUDGET_TOKENS": 1600},
            {"RELATIVE_CUT": 0.05, "RELATIVE_MIN": 0.05, "WEAK_BUDGET_TOKENS": 3000, "DEFAULT_BUDGET_TOKENS": 3000})


def load_tool():
    sys.path.insert(0, str(TOOLS))
    import locomo_eval  # the shared benchmark's own transcript writer, hook driver and scoring

    return locomo_eval


def build_stores(le, data, out: Path):
    bundle = le.Bundle(ROOT, str(ROOT / ".venv" / "bin" / "rlm-mem"))
    for ci, sample in enumerate(data):
        base = out / f"c{ci}"
        if (base / "memory" / "index").exists():
            continue
        conv = sample["conversation"]
        proj, mem, tdir = base / "project", base / "memory", base / "transcripts"
        for folder in (proj, mem, tdir):
            folder.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, RLM_MEM_DIR=str(mem), CLAUDE_PROJECT_DIR=str(proj), CLAUDE_PLUGIN_ROOT=str(ROOT))
        for number, start, turns in le.sessions(conv):
            sid = f"{sample['sample_id']}-s{number:02d}"
            path = tdir / f"{sid}.jsonl"
            le.write_transcript(path, sid, proj, start, turns, conv["speaker_a"])
            payload = {"session_id": sid, "transcript_path": str(path), "cwd": str(proj)}
            bundle.fire("SessionStart", dict(payload, hook_event_name="SessionStart", source="startup"), env)
            bundle.fire("Stop", dict(payload, hook_event_name="Stop", stop_hook_active=False,
                                     last_assistant_message=le.turn_line(turns[-1])), env)
            bundle.fire("SessionEnd", dict(payload, hook_event_name="SessionEnd", reason="other"), env)
        if bundle.run_cli(["ingest"], env).returncode != 0:
            sys.exit(f"ingest failed for conversation {ci}")


def questions(le, sample):
    conv = sample["conversation"]
    by_id = {t["dia_id"]: t for _, _, ts in le.sessions(conv) for t in ts}
    for qa in sample["qa"]:
        if qa.get("category") in (1, 2, 3, 4):
            evidence = le.evidence_of(qa, by_id)
            if evidence:
                yield qa, evidence


def lexical_reach(le, data) -> dict:
    """Share of evidence (per question, as locomo_eval's frac) whose turn (as stored: with a shared photo's
    caption) shares no word stem with its question (speakers' names, stopwords and contraction pieces aside), and
    none even within two turns either side."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(b, tokenize='porter unicode61')")
    db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")

    def stems(text):
        db.execute("DELETE FROM t")
        db.execute("INSERT INTO t(rowid, b) VALUES (1, ?)", (text,))
        return {term for (term,) in db.execute("SELECT term FROM v")}

    # the tokenizer's pieces of contractions ("Melanie's", "don't", "I'm") are no shared word either
    ignored = set().union(*(stems(word) for word in le.STOP)) | {"s", "t", "m", "ll", "re", "ve", "d"}
    weight = none = none_near = 0.0
    for sample in data:
        conv = sample["conversation"]
        names = stems(conv["speaker_a"] + " " + conv["speaker_b"])
        sessions = [turns for _, _, turns in le.sessions(conv)]
        place = {t["dia_id"]: (s, i) for s, turns in enumerate(sessions) for i, t in enumerate(turns)}
        for qa, evidence in questions(le, sample):
            asked = stems(qa["question"]) - ignored - names
            ids = [did for did, (s, i) in place.items() if sessions[s][i]["text"] in evidence]
            for did in ids:
                s, i = place[did]
                near = set().union(*(stems(le.turn_line(sessions[s][j]))
                                     for j in range(max(0, i - 2), min(len(sessions[s]), i + 3))))
                weight += 1 / len(ids)
                none += (not asked & stems(le.turn_line(sessions[s][i]))) / len(ids)
                none_near += (not asked & near) / len(ids)
    return {"evidence_sharing_no_stem_pct": round(100 * none / weight, 1),
            "none_within_two_turns_pct": round(100 * none_near / weight, 1)}


def frontier(le, data, stores: Path) -> list:
    """Evidence, characters, BM25 windows at equal characters and null prompts' characters, with recall's cut (and
    budgets) set as in SETTINGS: the default among them."""
    from brain.context.resolve import resolve
    from brain.recall import weights
    from brain.recall.recall import recall
    from brain.safety.fence import fence

    nulls = [line.strip() for line in NULL_PROMPTS.read_text().splitlines() if line.strip()]
    saved = {name: getattr(weights, name) for setting in SETTINGS for name in setting}
    rows = []
    try:
        for setting in SETTINGS:
            for name, value in {**saved, **setting}.items():
                setattr(weights, name, value)
            found, windows, chars, null_chars = [], [], [], []
            for ci, sample in enumerate(data):
                os.environ["RLM_MEM_DIR"] = str(stores / f"c{ci}" / "memory")
                context = resolve(str(stores / f"c{ci}" / "project"))

                def injected(prompt):
                    result = recall(context.root, prompt, project=context.project.id, track=False)
                    return fence(result.render(), label="recall") if result.items else ""

                wdb, wins = le.window_db(sample["conversation"])
                for qa, evidence in questions(le, sample):
                    text = injected(qa["question"])
                    found.append(le.score(evidence, text)["frac"])
                    windows.append(le.score(evidence, le.bm25_window_context(wdb, wins, qa["question"],
                                                                             len(text)))["frac"])
                    chars.append(len(text))
                null_chars += [len(injected(prompt)) for prompt in nulls]
            frac, win = 100 * statistics.mean(found), 100 * statistics.mean(windows)
            rows.append({"setting": setting, "frac": round(frac, 1), "chars": round(statistics.mean(chars)),
                         "bm25_windows": round(win, 1), "ratio": round(frac / win, 3),
                         "null_prompt_chars": round(statistics.mean(null_chars), 1)})
    finally:
        for name, value in saved.items():
            setattr(weights, name, value)
    return rows


def dense_hybrid(le, data, stores: Path) -> dict:
    """The best frac at <= 3,000 characters when each turn's score is recall's (relative to its best) plus alpha
    times its cosine to the question (relative to the conversation's median and best), over a grid of alpha and
    cut: tuned on these questions, so an upper bound for this fusion."""
    import numpy as np
    from sentence_transformers import SentenceTransformer

    from brain.context.resolve import resolve
    from brain.index.search_index import connect
    from brain.recall.candidates import value_changes
    from brain.recall.prompt import Clock, Prompt
    from brain.recall.recall import rank

    model = SentenceTransformer(os.environ.get("RLM_MEM_DENSE_MODEL", "all-MiniLM-L6-v2"))
    cases = []
    for ci, sample in enumerate(data):
        os.environ["RLM_MEM_DIR"] = str(stores / f"c{ci}" / "memory")
        context = resolve(str(stores / f"c{ci}" / "project"))
        conn = connect(context.root, readonly=True)
        conn.row_factory = sqlite3.Row
        turns = conn.execute("SELECT rowid, content FROM chunks WHERE kind='turn' ORDER BY rowid").fetchall()
        rowids = [r[0] for r in turns]
        normed = [le.norm(r[1]) for r in turns]
        vectors = model.encode([r[1] for r in turns], normalize_embeddings=True)
        for qa, evidence in questions(le, sample):
            clock = Clock(None)
            prompt = Prompt(qa["question"], (), clock)
            ranked, _ = rank(conn, prompt, context.project.id, "medium", clock, value_changes(conn, context.project.id))
            ours = np.zeros(len(rowids))
            at = {rowid: i for i, rowid in enumerate(rowids)}
            top = ranked[0][0] if ranked else 0.0
            for score, row, _ in ranked:
                if row["rowid"] in at and top:
                    ours[at[row["rowid"]]] = score / top
            cosine = vectors @ model.encode([qa["question"]], normalize_embeddings=True)[0]
            middle = np.median(cosine)
            dense = np.clip((cosine - middle) / (cosine.max() - middle + 1e-9), 0, None)
            wanted = [{i for i, text in enumerate(normed) if le.norm(e) and le.norm(e) in text} for e in evidence]
            cases.append((ours, dense, np.array([len(r[1]) + 20 for r in turns]), wanted, prompt.weak))
        conn.close()

    def run(alpha, cut, dense_only=False):
        total = chars = 0.0
        for ours, dense, cost, wanted, weak in cases:
            score = ours * (not dense_only) + alpha * dense
            order = np.argsort(-score)[:200]
            if score[order[0]] <= 0:  # recall ranked nothing (and no model): nothing is injected
                continue
            limit, used, got = (1200 if weak else 6400), 0, set()
            for i in order:
                if score[i] < cut * score[order[0]]:
                    break
                if used + cost[i] <= limit:
                    used += cost[i]
                    got |= {k for k, ids in enumerate(wanted) if i in ids}
            total += len(got) / len(wanted)
            chars += used + (FENCE_CHARS if used else 0)
        return 100 * total / len(cases), chars / len(cases)

    lexical = run(0.0, 0.38)
    alone = max((g for g in ((run(1.0, c, True), c) for c in (0.5, 0.55, 0.6, 0.65, 0.7)) if g[0][1] <= 3000),
                key=lambda g: g[0][0])
    grid = [(run(a, c), a, c) for a in (0.1, 0.2, 0.3, 0.4, 0.6, 0.8) for c in (0.3, 0.33, 0.36, 0.4, 0.45)]
    (frac, chars), alpha, cut = max((g for g in grid if g[0][1] <= 3000), key=lambda g: g[0][0])
    return {"recall_alone": {"frac": round(lexical[0], 1), "chars": round(lexical[1])},
            "model_alone_at_3000": {"frac": round(alone[0][0], 1), "chars": round(alone[0][1]), "cut": alone[1]},
            "best_fused_at_3000": {"frac": round(frac, 1), "chars": round(chars), "alpha": alpha, "cut": cut}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stores", default="", help="keep the captured stores here (default: a temporary folder)")
    parser.add_argument("--dense", action="store_true", help="also fuse a sentence-embedding model (see above)")
    args = parser.parse_args()
    le = load_tool()
    data = json.loads(le.DEFAULT_DATA.read_text())
    with tempfile.TemporaryDirectory(prefix="locomo-ceiling-") as scratch:
        stores = Path(args.stores) if args.stores else Path(scratch)
        build_stores(le, data, stores)
        report = {"lexical_reach": lexical_reach(le, data), "frontier": frontier(le, data, stores)}
        if args.dense:
            report["dense_hybrid"] = dense_hybrid(le, data, stores)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
