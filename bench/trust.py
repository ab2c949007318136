#!/usr/bin/env python3
"""Issue 13's measured figures: SessionEnd on a loaded machine, every hook given a transcript that is a device, and
the secrets corpus through every write path.

    .venv/bin/python bench/trust.py                      # all three parts
    .venv/bin/python bench/trust.py --only load --runs 40 --busy 10
    .venv/bin/python bench/trust.py --only devices
    .venv/bin/python bench/trust.py --only redaction

load: ten (--busy) processes spin on the machine's cores while SessionEnd runs exactly as Claude Code runs it
(`bash -c <command from hooks/hooks.json>`, the event JSON on stdin), alternating with a bare interpreter start
(`python -I -c pass`, under bash -c too) so both meet the same load. Claude Code gives all SessionEnd hooks
together 1.5 s; the target for rlm-mem's own work is 0.5 s. The detached capture worker SessionEnd starts is not
SessionEnd's time (it has its own session and outlives the hook); it is stopped after each run so the workers do
not pile up on top of the load being measured.

devices: each of the five hooks with transcript_path = /dev/zero, /dev/urandom and a FIFO nobody writes: wall
time, CPU, peak memory (ru_maxrss of the hook's process tree) and what it printed. Each must exit 0 at once with
one line on stderr.

redaction: tests/harness/trust_corpus.py pushes every secret of tests/fixtures/secrets/positives.txt through every
write path and field (one memory folder per path) and searches every stored byte; the table gives, per path and
field, how many secrets went in and how many were found stored (the search covers the whole folder of that path).
"""
import argparse
import json
import os
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BUNDLE = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(BUNDLE), str(BUNDLE / "tests"), str(BUNDLE / "scripts")]

from demo import SESSION_1, write_transcript  # noqa: E402
from harness.claude_code import hook_commands  # noqa: E402
from harness.trust_corpus import leaks, write_everywhere  # noqa: E402

PYTHON = BUNDLE / ".venv" / "bin" / "python"
BARE = f"{shlex.quote(str(PYTHON))} -I -c pass"
EVENTS = {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit", "stop": "Stop",
          "pre-compact": "PreCompact", "session-end": "SessionEnd"}


def run(command: str, payload: dict, env: dict, timeout: float = 30) -> dict:
    """`bash -c command` with the JSON on stdin: wall seconds from spawn to exit, CPU and peak RSS (wait4)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(["bash", "-c", command], stdin=subprocess.PIPE, stdout=out, stderr=err, env=env,
                                cwd=payload.get("cwd") or None)
        proc.stdin.write(json.dumps(payload).encode("utf-8"))
        proc.stdin.close()
        deadline = started + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.001)
        seconds = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return {"seconds": seconds, "cpu": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024,
                "code": proc.returncode, "stdout": out.read().decode("utf-8", "replace"),
                "stderr": err.read().decode("utf-8", "replace")}


def hook(event: str, payload: dict) -> str:
    (command, _), = hook_commands(EVENTS[event], payload, BUNDLE)
    return command


def stop_workers(root: Path) -> None:
    """End the capture workers SessionEnd started for this store (found by their --dir argument)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if str(root).encode() in cmdline and any(arg.endswith(b"rlm_mem.py") for arg in cmdline):
            try:
                os.kill(int(entry.name), signal.SIGKILL)
            except OSError:
                pass


def spin() -> None:
    while True:
        pass


def session_end_under_load(runs: int, busy: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        root, project = tmp / "memory", tmp / "project"
        project.mkdir()
        env = dict(os.environ, RLM_MEM_DIR=str(root), CLAUDE_PLUGIN_ROOT=str(BUNDLE))
        env.pop("RLM_MEM_BACKGROUND", None)  # the worker really starts, as it does for a person
        spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
        try:
            time.sleep(1.0)  # let the load settle on every core
            hook_s, bare_s, cpu = [], [], []
            for i in range(runs):
                transcript = tmp / f"s{i}.jsonl"
                write_transcript(transcript, f"s{i}", project, SESSION_1)
                payload = {"session_id": f"s{i}", "transcript_path": str(transcript), "cwd": str(project),
                           "reason": "exit", "hook_event_name": "SessionEnd"}
                got = run(hook("session-end", payload), payload, env)
                assert got["code"] == 0 and not got["stderr"], got
                hook_s.append(got["seconds"])
                cpu.append(got["cpu"])
                stop_workers(root)
                bare_s.append(run(BARE, {"cwd": str(project)}, env)["seconds"])
        finally:
            for p in spinners:
                p.kill()
                p.wait()
    return {"busy": busy, "cores": os.cpu_count(), "runs": runs,
            "hook_median": statistics.median(hook_s), "hook_p90": sorted(hook_s)[int(0.9 * (runs - 1))],
            "hook_max": max(hook_s), "bare_median": statistics.median(bare_s), "bare_max": max(bare_s),
            "hook_cpu_median": statistics.median(cpu)}


def candidates_under_load(runs: int, busy: int) -> dict:
    """SessionEnd when memory cannot be written: it mines the transcript's tail and prints MEMORY_CANDIDATES."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "blocker").write_text("a file where the memory folder should be")
        project = tmp / "project"
        project.mkdir()
        transcript = tmp / "big.jsonl"
        filler = [("user", "Let's keep going with the refactor. " * 40), ("assistant", "Done with that. " * 40)]
        write_transcript(transcript, "big", project, filler * 2000 + SESSION_1)
        env = dict(os.environ, RLM_MEM_DIR=str(tmp / "blocker" / "memory"), CLAUDE_PLUGIN_ROOT=str(BUNDLE),
                   XDG_STATE_HOME=str(tmp / "state"))
        payload = {"session_id": "big", "transcript_path": str(transcript), "cwd": str(project), "reason": "exit",
                   "hook_event_name": "SessionEnd"}
        spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
        try:
            time.sleep(1.0)
            got = [run(hook("session-end", payload), payload, env) for _ in range(runs)]
        finally:
            for p in spinners:
                p.kill()
                p.wait()
    listed = sum(1 for g in got if g["code"] == 2 and "[MEMORY_CANDIDATES]" in g["stderr"])
    return {"runs": runs, "listed": listed, "median": statistics.median(g["seconds"] for g in got),
            "max": max(g["seconds"] for g in got), "cpu_median": statistics.median(g["cpu"] for g in got)}


def redaction_table() -> list:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for root, counts, texts in write_everywhere(Path(tmp)):
            found = leaks(root, texts)
            for (path, field), n in counts.items():
                rows.append({"path": path, "field": field, "secrets": n, "found_stored": len(found)})
    return rows


def hostile_transcripts() -> list:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        root, project, fifo = tmp / "memory", tmp / "project", tmp / "nobody-writes.jsonl"
        project.mkdir()
        os.mkfifo(fifo)
        env = dict(os.environ, RLM_MEM_DIR=str(root), CLAUDE_PLUGIN_ROOT=str(BUNDLE), RLM_MEM_BACKGROUND="0")
        for target in ("/dev/zero", "/dev/urandom", str(fifo)):
            for event in EVENTS:
                payload = {"session_id": "hostile", "transcript_path": target, "cwd": str(project),
                           "prompt": "which port does staging use?", "source": "startup", "reason": "exit",
                           "hook_event_name": EVENTS[event]}
                got = run(hook(event, payload), payload, env)
                rows.append({"target": target if target.startswith("/dev") else "FIFO", "event": EVENTS[event],
                             "code": got["code"], "seconds": got["seconds"], "cpu": got["cpu"],
                             "rss_mb": got["rss_mb"], "stderr_lines": len(got["stderr"].splitlines()),
                             "stderr": got["stderr"].strip()[:120]})
        queued = sorted(p.name for p in (root / "state" / "queue").glob("*.json")) if root.exists() else []
    return rows, queued


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=("load", "devices", "redaction"))
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--busy", type=int, default=10)
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)
    figures, ok = {}, True
    if args.only in (None, "devices"):
        rows, queued = hostile_transcripts()
        figures["devices"], figures["queued_after_devices"] = rows, queued
        print("| transcript_path | hook | exit | wall s | CPU s | peak MB | stderr |")
        print("|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['target']} | {r['event']} | {r['code']} | {r['seconds']:.3f} | {r['cpu']:.3f} | "
                  f"{r['rss_mb']:.0f} | {r['stderr_lines']} line |")
        print(f"queue entries left: {len(queued)}\n")
        ok &= all(r["code"] == 0 and r["stderr_lines"] == 1 for r in rows) and not queued
    if args.only in (None, "redaction"):
        rows = redaction_table()
        figures["redaction"] = rows
        print("| write path | field | secrets written | found stored |")
        print("|---|---|---|---|")
        for r in rows:
            print(f"| {r['path']} | {r['field']} | {r['secrets']} | {r['found_stored']} |")
        print()
        ok &= all(r["found_stored"] == 0 for r in rows)
    if args.only in (None, "load"):
        load = session_end_under_load(args.runs, args.busy)
        figures["session_end_under_load"] = load
        print(f"SessionEnd with {load['busy']} busy processes on {load['cores']} cores, {load['runs']} runs: "
              f"median {load['hook_median']:.3f} s, p90 {load['hook_p90']:.3f} s, max {load['hook_max']:.3f} s "
              f"(CPU {load['hook_cpu_median'] * 1000:.0f} ms); bare `python -I -c pass` median "
              f"{load['bare_median']:.3f} s, max {load['bare_max']:.3f} s. Target: under 0.5 s.")
        ok &= load["hook_median"] < 0.5
        cands = candidates_under_load(max(3, args.runs // 6), args.busy)
        figures["candidates_under_load"] = cands
        print(f"SessionEnd with memory unwritable (MEMORY_CANDIDATES from a 10 MB transcript's tail), same load, "
              f"{cands['runs']} runs: median {cands['median']:.3f} s, max {cands['max']:.3f} s "
              f"(CPU {cands['cpu_median'] * 1000:.0f} ms); candidates listed in {cands['listed']} of {cands['runs']}.")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
