"""Sync benchmark: two machines' memory roots and a bare repository on this disk, real git, the real CLI.

For each store size: a copy of the benchmark store (bench/run.py builds and caches it) is machine A. Its first sync
pushes everything into an empty bare repository; an empty machine B's first sync pulls everything. Then, `--rounds`
times, A remembers 10 new memories and syncs (push), and B syncs (pull): each `rlm-mem sync` is timed as a person
runs it (a new process: interpreter start, the scan, git, the merge, the index update). The issue's target is
10 new memories into a 10k store in at most 3 s each way. After the rounds, both stores must hold the same
memories (the run fails otherwise). A `rlm-mem --version` start is timed too, to show how loaded the machine was.

    .venv/bin/python bench/sync.py                       # 10,000 memories, 5 rounds
    .venv/bin/python bench/sync.py --sizes 1000,10000,100000 --rounds 3
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BUNDLE = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(BUNDLE / "bench"), str(BUNDLE)]

from run import ensure_store, working_copy  # noqa: E402

NEW_PER_ROUND = 10
TARGET_SECONDS = 3.0


def _env(root: Path, home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "RLM_MEM_"))}
    env.update(RLM_MEM_DIR=str(root), HOME=str(home), RLM_MEM_ACTOR="bench", RLM_MEM_BACKGROUND="0")
    return env


def rlm_mem(env: dict, *args) -> tuple:
    """(seconds, stdout) of one `rlm-mem` command in a new process."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, str(BUNDLE / "scripts" / "rlm_mem.py"), *args], env=env,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"rlm-mem {' '.join(args)} failed: {done.stderr.strip()[-500:]}")
    return seconds, done.stdout.strip()


def memories(root: Path) -> set:
    return {p.stem for folder in ("chunks", "archive") for p in (root / folder).rglob("chunk-*.json")}


def measure(n: int, rounds: int, cache: Path, work: Path, log) -> dict:
    src, _ = ensure_store(cache, n, log)
    base = Path(tempfile.mkdtemp(prefix=f"sync-{n}-", dir=work))
    remote = base / "remote.git"
    subprocess.run(["git", "init", "--quiet", "--bare", "-b", "main", str(remote)], check=True)
    a_root, b_root = base / "a" / "memory", base / "b" / "memory"
    working_copy(src, a_root)
    (base / "b").mkdir()
    a_env, b_env = _env(a_root, base / "a"), _env(b_root, base / "b")
    os.sync()
    log(f"{n:,}: first sync, push ...")
    first_push, out = rlm_mem(a_env, "sync", "--remote", str(remote))
    log(f"  {first_push:.1f} s: {out}")
    first_pull, out = rlm_mem(b_env, "sync", "--remote", str(remote))
    log(f"  first pull into an empty store {first_pull:.1f} s: {out}")
    pushes, pulls = [], []
    for r in range(rounds):
        for i in range(NEW_PER_ROUND):
            rlm_mem(a_env, "remember", f"Round {r} memory {i}: the sync benchmark's fact number {r * 100 + i}")
        seconds, out = rlm_mem(a_env, "sync")
        pushes.append(seconds)
        seconds, pulled = rlm_mem(b_env, "sync")
        pulls.append(seconds)
        log(f"  round {r}: push {pushes[-1]:.2f} s ({out}); pull {seconds:.2f} s ({pulled})")
    start = statistics.median(rlm_mem(a_env, "--version")[0] for _ in range(5))
    same = memories(a_root) == memories(b_root)
    pack = sum(p.stat().st_size for p in remote.rglob("*") if p.is_file())
    result = {"chunks": n, "first_push_s": round(first_push, 2), "first_pull_s": round(first_pull, 2),
              "push_s": [round(x, 3) for x in pushes], "pull_s": [round(x, 3) for x in pulls],
              "push_median_s": round(statistics.median(pushes), 3), "push_worst_s": round(max(pushes), 3),
              "pull_median_s": round(statistics.median(pulls), 3), "pull_worst_s": round(max(pulls), 3),
              "remote_bytes": pack, "same_memories": same, "cli_start_s": round(start, 3)}
    shutil.rmtree(base, ignore_errors=True)
    return result


def table(results: list) -> str:
    lines = ["| figure | target | " + " | ".join(f"{r['chunks']:,} memories" for r in results) + " |",
             "|---|---|" + "---|" * len(results)]
    rows = (("first sync, push (everything into an empty repository)", "reported", "first_push_s", " s"),
            ("first sync, pull (everything into an empty store)", "reported", "first_pull_s", " s"),
            (f"{NEW_PER_ROUND} new memories: `rlm-mem sync` pushing them, median", "≤ 3 s", "push_median_s", " s"),
            (f"{NEW_PER_ROUND} new memories: `rlm-mem sync` pushing them, worst", "≤ 3 s", "push_worst_s", " s"),
            (f"{NEW_PER_ROUND} new memories: `rlm-mem sync` pulling them, median", "≤ 3 s", "pull_median_s", " s"),
            (f"{NEW_PER_ROUND} new memories: `rlm-mem sync` pulling them, worst", "≤ 3 s", "pull_worst_s", " s"))
    for label, target, key, unit in rows:
        lines.append(f"| {label} | {target} | " + " | ".join(f"{r[key]:.2f}{unit}" for r in results) + " |")
    lines.append("| the repository on disk | reported | " + " | ".join(f"{r['remote_bytes'] / 1e6:.1f} MB"
                                                                     for r in results) + " |")
    lines.append("| for scale: `rlm-mem --version` (interpreter and CLI start), median | — | "
                 + " | ".join(f"{r['cli_start_s']:.2f} s" for r in results) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000", help="store sizes in memories, comma-separated")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of 10 new memories pushed and pulled")
    parser.add_argument("--cache", default=str(BUNDLE / "bench" / ".cache"), help="where built stores are kept")
    parser.add_argument("--work", default=tempfile.gettempdir(),
                        help="where the two machines and the repository are made (outside any git repository: "
                             "sync refuses a memory folder inside one)")
    parser.add_argument("--json", dest="json_out", help="also write the measurements to this JSON file")
    args = parser.parse_args(argv)
    if shutil.which("git") is None:
        raise SystemExit("git is not installed")
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    results = [measure(int(n), args.rounds, cache, Path(args.work), log) for n in args.sizes.split(",") if n.strip()]
    print(table(results))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2))
    missed = [r for r in results if not r["same_memories"]]
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
