#!/usr/bin/env python3
"""What each private CPython module saves the hooks: the hooks run as they are and with one module's public API
instead, alternating, in one run (issue 38, item 2).

    .venv/bin/python bench/private_imports.py [--runs 31] [--json OUT]

A small store (a few memories, a cached brief) in a temporary folder; for each variant a copy of the bundle's
brain/, scripts/ and hooks/ (its .venv linked) in which one import is swapped (VARIANTS: the text as the code has
it and the other way). Every hook of EVENTS runs `--runs` times per variant as Claude Code runs it
(`python -I -S scripts/hook.py EVENT`, the event JSON on stdin), the variants in turn within each round so the
machine's load hits them alike. Per event and variant: the median wall time and the child's CPU time, and the
difference to the bundle as it is (positive: the other way costs more). A module is kept private only where it
saves at least 2 ms on a hook's path (brain/cpython/fast.py says which, with these figures).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

BUNDLE = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(BUNDLE / "bench")]

from run import PYTHON, run_once  # noqa: E402

EVENTS = ("session-start", "user-prompt-submit", "session-end")
# name -> [(file, text as the code has it, the same piece the other way)]: for a private module kept in
# brain/cpython/fast.py, its import made to fail, so its public fallback runs; for one made public, the private
# way (or the public module loaded where the code avoids it). The base run is the code as it is.
FAST = "brain/cpython/fast.py"
FAIL = "raise ImportError  # bench/private_imports.py: the public fallback"
VARIANTS = {
    "json instead of _json": [(FAST, "    import _json\n", f"    {FAIL}\n")],
    "sqlite3 instead of _sqlite3 without functools": [
        (FAST, "        return _sqlite_without_functools()", f"        {FAIL}")],
    "hashlib instead of _sha256": [(FAST, "    from _sha256 import sha256  # CPython <= 3.11", f"    {FAIL}"),
                                   (FAST, "        from _sha2 import sha256  # CPython >= 3.12", f"        {FAIL}")],
    "signal instead of _signal": [(FAST, "    import _signal as signal", f"    {FAIL}")],
    "_collections._tuplegetter instead of a property": [
        ("brain/util/tuple_type.py", "        body[field] = _field(index)",
         "        from _collections import _tuplegetter\n"
         "        body[field] = _tuplegetter(index, f'Alias for field number {index}')")],
    "collections loaded (for namedtuple)": [
        ("brain/util/tuple_type.py", "import sys\n", "import collections\nimport sys\n")],
    "threading loaded (get_ident at module level)": [
        ("brain/index/search_index.py", "import os\n", "import os\nfrom threading import get_ident\n")],
}


def make_store(tmp: Path, env: dict) -> dict:
    """A memory root with a few memories of one project, and that project's brief cached; returns the payload
    fields every hook gets."""
    project = tmp / "project"
    project.mkdir()
    for text in ("The staging database listens on port 5433.", "Always deploy from the release branch.",
                 "We use pytest, never unittest."):
        subprocess.run([str(PYTHON), str(BUNDLE / "scripts" / "rlm_mem.py"), "remember", text], cwd=project, env=env,
                       check=True, capture_output=True)
    transcript = tmp / "s1.jsonl"
    transcript.write_text("")
    return {"session_id": "s1", "transcript_path": str(transcript), "cwd": str(project)}


def make_variant(tmp: Path, name: str, swaps) -> Path:
    """A copy of the bundle's code with `swaps` [(file, old, new)] applied."""
    folder = tmp / f"variant-{len(list(tmp.glob('variant-*')))}"
    for part in ("brain", "scripts", "hooks"):
        shutil.copytree(BUNDLE / part, folder / part, ignore=shutil.ignore_patterns("__pycache__", "memory"))
    (folder / ".venv").symlink_to(BUNDLE / ".venv")
    for path, old, new in swaps:
        text = (folder / path).read_text(encoding="utf-8")
        if old not in text:
            raise SystemExit(f"{path} no longer holds {old!r}: update VARIANTS")
        (folder / path).write_text(text.replace(old, new, 1), encoding="utf-8")
    return folder


def import_ms(stderr: str) -> float:
    """The sum of the self times -X importtime printed (milliseconds)."""
    total = 0
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            field = line[len("import time:"):].split("|", 1)[0].strip()
            total += int(field) if field.isdigit() else 0
    return total / 1000


def payload(event: str, base: dict) -> bytes:
    extra = {"session-start": {"source": "startup"}, "session-end": {"reason": "other"},
             "user-prompt-submit": {"prompt": "Which port does the staging database listen on?"}}[event]
    return json.dumps(dict(base, hook_event_name=event, **extra)).encode()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=31, help="runs per hook and variant (default 31)")
    parser.add_argument("--json", dest="json_out", help="write every median to this JSON file")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rlm-private-") as name:
        tmp = Path(name)
        env = dict(os.environ, RLM_MEM_DIR=str(tmp / "memory"), HOME=str(tmp / "home"), RLM_MEM_BACKGROUND="0",
                   XDG_CACHE_HOME=str(tmp / "cache"))
        (tmp / "home").mkdir()
        base = make_store(tmp, env)
        variants = {"as it is": make_variant(tmp, "as it is", [])}
        variants.update({v: make_variant(tmp, v, swaps) for v, swaps in VARIANTS.items()})
        samples = {(event, v): [] for event in EVENTS for v in variants}
        for round_ in range(args.runs + 1):  # round 0 writes bytecode and the brief: not counted
            for event in EVENTS:
                for v, folder in variants.items():
                    hook = f"'{folder / 'scripts' / 'hook.py'}' {event}"
                    timed = run_once(f"'{PYTHON}' -I -S {hook}", env=env, cwd=Path(base["cwd"]),
                                     stdin=payload(event, base))
                    traced = run_once(f"'{PYTHON}' -I -S -X importtime {hook}", env=env, cwd=Path(base["cwd"]),
                                      stdin=payload(event, base))
                    for sample in (timed, traced):
                        if sample.code != 0 or (event == "user-prompt-submit" and "5433" not in sample.stdout):
                            raise SystemExit(f"{v}: {event} failed: {sample.stdout[-300:]} {sample.stderr[-300:]}")
                    if round_:
                        samples[(event, v)].append((timed.seconds * 1000, timed.cpu * 1000,
                                                    import_ms(traced.stderr)))
    rows = []
    for event in EVENTS:
        first = [statistics.median(s[i] for s in samples[(event, "as it is")]) for i in range(3)]
        for v in variants:
            wall, cpu, imports = (statistics.median(s[i] for s in samples[(event, v)]) for i in range(3))
            rows.append({"event": event, "variant": v, "wall_ms": round(wall, 2), "cpu_ms": round(cpu, 2),
                         "import_ms": round(imports, 2), "wall_diff_ms": round(wall - first[0], 2),
                         "cpu_diff_ms": round(cpu - first[1], 2), "import_diff_ms": round(imports - first[2], 2)})
    print(f"{args.runs} runs per hook and variant (medians; diff: the variant minus the code as it is; imports: "
          "the sum of -X importtime's self times)")
    print("| hook | variant | wall ms | diff | CPU ms | diff | imports ms | diff |\n|---|---|--:|--:|--:|--:|--:|--:|")
    for r in rows:
        print(f"| {r['event']} | {r['variant']} | {r['wall_ms']:.1f} | {r['wall_diff_ms']:+.1f} | {r['cpu_ms']:.1f} "
              f"| {r['cpu_diff_ms']:+.1f} | {r['import_ms']:.1f} | {r['import_diff_ms']:+.1f} |")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"runs": args.runs, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
