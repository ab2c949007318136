"""Issue 15's figures, the code on main ("before") against this tree ("after"), each run through its own hooks.

1. The issue's sessions through the real hooks (SessionStart, UserPromptSubmit, Stop, SessionEnd, then
   `rlm-mem ingest`): project alpha states a known number of facts (a standing rule about the person, a port, a
   decision, a correction of the assistant); a later session recalls one, the assistant echoes it, the person asks
   a question; a session in project beta asks about test frameworks. Figures: typed memories per stated fact,
   questions stored as facts, the rule recalled in beta (brief and prompt), another project's fact shown in beta,
   and the pending count a new store shows next to four transcripts from before rlm-mem.
2. Real conversations (LoCoMo, --locomo PATH: each session a transcript, captured with `rlm-mem ingest`): typed
   memories per stated fact, a stated fact being a group of typed memories whose meaningful words mostly agree
   (Jaccard ≥ 0.5, framing words such as "Decision" left out).

    .venv/bin/python bench/issue15.py --locomo ../shared/data/locomo-dev.json

"Before" is `git archive main` unpacked in a temporary folder with this tree's .venv linked in (hooks put the
bundle first on sys.path, so main's code runs); nothing is written to the repository.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

BUNDLE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BUNDLE / "tests"))
sys.path.insert(0, str(BUNDLE / "bench"))
from harness.claude_code import fire  # noqa: E402

STATED = {  # what the person states in the first session, one fact each
    "rule": "From now on, always answer me in British English, and I prefer pytest over unittest in every project.",
    "port": "Remember that the billing database listens on port 6432.",
    "decision": "We decided to use Stripe webhooks instead of polling for payment status.",
    "correction": "No, the staging host is staging-eu.example.dev, not staging.example.dev.",
}
QUESTION = "Which port does the billing database listen on?"
FRAMING = set("decision agreed correction correcting user prefers request remember".split())


def before_tree(folder: Path) -> Path:
    tree = folder / "main"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(BUNDLE), "archive", "main"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    (tree / ".venv").symlink_to(BUNDLE / ".venv")
    return tree


def rlm(tree: Path, env: dict, *args) -> str:
    p = subprocess.run([str(BUNDLE / ".venv" / "bin" / "python"), str(tree / "scripts" / "rlm_mem.py"), *args],
                       capture_output=True, text=True, env=env, timeout=600)
    return p.stdout + p.stderr


def record(path: Path, sid: str, cwd: Path, n: int, role: str, content, parent=None, kind=None, **extra) -> str:
    uid = f"{sid}-{n:03d}"
    line = {"type": kind or role, "uuid": uid, "parentUuid": parent, "sessionId": sid,
            "timestamp": f"2026-11-20T10:{n:02d}:00Z", "cwd": str(cwd), "isSidechain": False, **extra}
    if content is not None:
        line["message"] = {"role": role, "content": content if role == "user" else [{"type": "text", "text": content}]}
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\n")
    return uid


def typed(root: Path) -> list:
    out = []
    for path in sorted(root.glob("chunks/*/*.json")):
        chunk = json.loads(path.read_text())
        md = chunk["metadata"]
        if md.get("kind") not in ("turn", "session") and md.get("status", "active") == "active":
            out.append(chunk)
    return out


def issue_sessions(tree: Path, folder: Path) -> dict:
    memory, alpha, beta, transcripts = (folder / n for n in ("memory", "alpha", "beta", "transcripts"))
    for d in (alpha, beta, transcripts):
        d.mkdir(parents=True)
    env = dict(os.environ, RLM_MEM_DIR=str(memory), RLM_MEM_BACKGROUND="0")
    env.pop("CLAUDE_PROJECT_DIR", None)

    def hook(event, path, sid, cwd, **extra):
        runs = fire(event, dict({"session_id": sid, "transcript_path": str(path), "cwd": str(cwd)}, **extra),
                    env=env, bundle_root=tree)
        assert all(r.returncode == 0 for r in runs), runs
        return runs[0].context if runs else ""

    for n in range(4):  # four sessions from before rlm-mem, in the transcripts folder
        record(transcripts / f"old{n}.jsonl", f"old{n}", alpha, 1, "user", "Let's tidy the imports.")
    first = transcripts / "s1.jsonl"
    first.write_text("")
    start = hook("SessionStart", first, "s1", alpha, source="startup")
    pending_new_store = re.search(r"(\d+) pending write", start).group(1)
    parent = None
    for i, (key, said) in enumerate(STATED.items()):
        if key == "correction":
            parent = record(first, "s1", alpha, 2 * i + 1, "assistant", "The staging host is staging.example.dev.",
                            parent)
            parent = record(first, "s1", alpha, 2 * i + 2, "user", said, parent)
            parent = record(first, "s1", alpha, 2 * i + 3, "assistant", "Right, staging-eu.example.dev.", parent)
        else:
            parent = record(first, "s1", alpha, 2 * i + 1, "user", said, parent)
            parent = record(first, "s1", alpha, 2 * i + 2, "assistant", "Understood.", parent)
    hook("Stop", first, "s1", alpha)
    hook("SessionEnd", first, "s1", alpha, reason="prompt_input_exit")
    rlm(tree, env, "ingest")

    second = transcripts / "s2.jsonl"
    second.write_text("")
    hook("SessionStart", second, "s2", alpha, source="startup")
    recalled = hook("UserPromptSubmit", second, "s2", alpha, prompt=QUESTION)
    parent = record(second, "s2", alpha, 1, "user", QUESTION)
    parent = record(second, "s2", alpha, 2, None, None, parent, kind="attachment",
                    attachment={"type": "hook_additional_context", "content": [recalled]})
    parent = record(second, "s2", alpha, 3, "assistant", "The billing database listens on port 6432.", parent)
    parent = record(second, "s2", alpha, 4, "user", "We decided to use Stripe webhooks instead of polling.", parent)
    record(second, "s2", alpha, 5, "assistant", "Yes, Stripe webhooks instead of polling, as decided.", parent)
    hook("SessionEnd", second, "s2", alpha, reason="prompt_input_exit")
    rlm(tree, env, "ingest")

    memories = typed(memory)
    third = transcripts / "b1.jsonl"
    third.write_text("")
    brief = hook("SessionStart", third, "b1", beta, source="startup")
    frameworks = hook("UserPromptSubmit", third, "b1", beta, prompt="Which test framework should I use here?")
    port = hook("UserPromptSubmit", third, "b1", beta, prompt=QUESTION)
    questions = [c for c in json_chunks(memory) if c["content"].startswith(QUESTION) and c["type"] == "fact"]
    return {
        "stated facts": len(STATED),
        "typed memories": len(memories),
        "typed memories per stated fact": round(len(memories) / len(STATED), 2),
        "questions stored as facts": len(questions),
        "person's rule in beta's start brief": "British English" in brief,
        "person's rule recalled in beta (test frameworks)": "pytest" in frameworks,
        "alpha's port shown in beta": "6432" in port,
        "pending shown by a new store beside 4 old transcripts": int(pending_new_store),
        "memories": [f"{c['metadata'].get('kind')} [{c['metadata'].get('scope') or 'project'}] {c['content'][:90]}"
                     for c in memories],
    }


def json_chunks(root: Path) -> list:
    return [json.loads(p.read_text()) for p in root.glob("chunks/*/*.json")]


def words(text: str) -> set:
    return {w for w in re.findall(r"[a-z0-9][a-z0-9_.-]{2,}", text.lower())} - FRAMING


def groups(chunks: list) -> int:
    """Stated facts: typed memories joined when their words mostly agree (single linkage, Jaccard ≥ 0.5)."""
    sets = [words(c["content"]) for c in chunks]
    parent = list(range(len(sets)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(sets)):
        for j in range(i + 1, len(sets)):
            if sets[i] and sets[j] and len(sets[i] & sets[j]) / len(sets[i] | sets[j]) >= 0.5:
                parent[find(i)] = find(j)
    return len({find(i) for i in range(len(sets))})


def locomo(tree: Path, folder: Path, data: list) -> dict:
    from recall_locomo import sessions_of, write_transcript

    memory, project, transcripts = folder / "memory", folder / "project", folder / "transcripts"
    project.mkdir(parents=True)
    transcripts.mkdir()
    paths = []
    for sample in data:
        conv = sample["conversation"]
        for n, start, turns in sessions_of(conv):
            sid = f"{sample['sample_id']}-s{n:02d}"
            path = transcripts / f"{sid}.jsonl"
            write_transcript(path, sid, project, start, turns, conv["speaker_a"])
            paths.append(str(path))
    env = dict(os.environ, RLM_MEM_DIR=str(memory), RLM_MEM_BACKGROUND="0")
    rlm(tree, env, "ingest", *paths)
    memories = typed(memory)
    facts = groups(memories)
    turns = [c for c in json_chunks(memory) if c["metadata"].get("kind") == "turn"]
    asked = [c for c in turns if c["content"].strip().splitlines()[-1].rstrip(" )\"'*_").endswith("?")]
    return {"sessions": len(paths), "typed memories": len(memories), "stated facts (groups)": facts,
            "typed memories per stated fact": round(len(memories) / max(1, facts), 3),
            "of them scope user": sum(1 for c in memories if c["metadata"].get("scope") == "user"),
            "turns": len(turns), "turns that ask": len(asked),
            "turns that ask stored as facts": sum(1 for c in asked if c["type"] == "fact")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--locomo", type=Path, help="LoCoMo JSON (e.g. ../shared/data/locomo-dev.json)")
    parser.add_argument("--conversations", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rlm-issue15-") as tmp:
        tmp = Path(tmp)
        trees = {"before (main)": before_tree(tmp), "after (this tree)": BUNDLE}
        results = {}
        for name, tree in trees.items():
            out = {"issue sessions": issue_sessions(tree, tmp / name / "issue")}
            if args.locomo:
                data = json.loads(args.locomo.read_text())[: args.conversations]
                out["locomo"] = locomo(tree, tmp / name / "locomo", data)
            results[name] = out
    print(json.dumps(results, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
