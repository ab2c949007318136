#!/usr/bin/env python3
"""The MCP server at scale (issue 35): warm recall inside the server, start to first answer, peak RSS, and the
size of the tool definitions every client sends its model.

    .venv/bin/python bench/mcp_server.py [--sizes 10000,100000] [--runs 30] [--starts 9] [--json OUT]

For each size, the deterministic store of bench/run.py (bench/corpus.py through ChunkStore.create_many, cached in
bench/.cache/) is hard-linked into a throwaway workspace, and the server serves its main project:
- over stdio, as an agent starts it (`bin/rlm-mem mcp` in the project's folder, the bundle's .venv), spoken to by
  hand over its pipes: the time from spawn to the answer to `initialize` and to the answer to a first `recall`,
  `--starts` times (median), next to a bare `python -I -c pass` of the same moment, and the CPU the server used
  from spawn to exit; then warm recall: the `recall` tool called for each of the corpus's prompts (six about the
  main project, three that match nothing) `--runs` times after one warm-up pass, the round trip's median and 90th
  percentile (the figure held against the targets: the server's whole work for a call, plus the client's), the
  server's own CPU per call (from /proc) and its peak RSS (VmHWM) after it all;
- in this process: `brain.mcp.server.build()` and its `call_tool` (the SDK's argument validation, the tool, the
  result's conversion; no transport), the same prompts and rounds, wall time and CPU time (all threads) per call;
- the tool definitions: the JSON of the tools list a client receives, in characters / 4.
On a shared machine wall times move with its load; CPU times much less.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

BUNDLE = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(BUNDLE), str(BUNDLE / "bench"), str(BUNDLE / "tests")]

import anyio  # noqa: E402
from corpus import prompts  # noqa: E402
from mcp import Client  # noqa: E402
from report import machine  # noqa: E402
from run import PYTHON, ensure_store, make_workspace  # noqa: E402

from brain.context.resolve import resolve  # noqa: E402
from brain.mcp.server import build  # noqa: E402
from brain.store.chunk_store import ChunkStore  # noqa: E402

RLM_MEM = BUNDLE / "bin" / "rlm-mem"
PROMPTS = prompts()
MATCHING = PROMPTS[:6]
TARGETS = {"recall_p50_ms": {10_000: 10.0, 100_000: 30.0}, "start_to_first_answer_s": 1.5, "rss_mb": 150.0,
           "tool_tokens": 1500}


def percentile(values, share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def in_process(ws, runs: int) -> dict:
    """The recall tool's time inside the server, and the tool definitions' size."""
    project = resolve(str(ws.cwd), env=ws.env).project
    server = build(ChunkStore(ws.memory, actor="bench"), project)

    async def main():
        async with Client(server) as client:  # the tools list as a client receives it
            tools = await client.list_tools()
        definitions = json.dumps([t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools.tools])
        times, cpu, matching, answered = [], [], [], 0
        for round_ in range(runs + 1):
            for prompt in PROMPTS:
                start, start_cpu = time.perf_counter(), time.process_time()
                result = await server.call_tool("recall", {"query": prompt})
                spent = (time.perf_counter() - start) * 1000
                if result.is_error:
                    raise SystemExit(f"recall failed: {result.content[0].text}")
                if round_:  # round 0 warms the page cache and the SDK's code paths
                    times.append(spent)
                    cpu.append((time.process_time() - start_cpu) * 1000)  # this process's CPU: all its threads
                    if prompt in MATCHING:
                        matching.append(spent)
                        answered += bool(result.structured_content["items"])
        return {"tool_chars": len(definitions), "tool_tokens": len(definitions) / 4,
                    "recall_p50_ms": statistics.median(times), "recall_p90_ms": percentile(times, 0.9),
                    "recall_cpu_p50_ms": statistics.median(cpu),
                    "recall_matching_p50_ms": statistics.median(matching),
                    "matching_answered": answered / max(1, len(matching))}

    old = os.environ.copy()
    os.environ.update(ws.env)  # what the server process would see (RLM_MEM_DIR, the project)
    try:
        return anyio.run(main)
    finally:
        os.environ.clear()
        os.environ.update(old)


class Server:
    """`rlm-mem mcp` spoken to by hand over its pipes (the handshake, then tool calls), so a timing holds no
    client library's work."""

    def __init__(self, ws):
        self.started = time.perf_counter()
        self.proc = subprocess.Popen([str(RLM_MEM), "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=ws.env, cwd=ws.cwd)
        self.ids = 0

    def request(self, method: str, params: dict) -> dict:
        self.ids += 1
        line = json.dumps({"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params})
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()
        while True:
            answer = json.loads(self.proc.stdout.readline() or b"null")
            if answer is None:
                raise SystemExit(f"the server closed its output during {method}")
            if answer.get("id") == self.ids:
                return answer

    def handshake(self) -> None:
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "bench", "version": "1"}})
        self.proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        self.proc.stdin.flush()

    def recall(self, prompt: str) -> dict:
        answer = self.request("tools/call", {"name": "recall", "arguments": {"query": prompt}})
        if "error" in answer or answer["result"].get("isError"):
            raise SystemExit(f"recall failed: {answer}")
        return answer

    def cpu_seconds(self) -> float:
        """The CPU the server has used so far (user + system, all its threads), from /proc."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def peak_rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def close(self) -> float:
        """Close its input (it leaves); returns the CPU seconds it used in all (user + system, its children's too)."""
        self.proc.stdin.close()
        watchdog = threading.Timer(30, self.proc.kill)
        watchdog.start()
        try:
            _, status, usage = os.wait4(self.proc.pid, 0)
        finally:
            watchdog.cancel()
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        return usage.ru_utime + usage.ru_stime


def over_stdio(ws, starts: int, runs: int) -> dict:
    bare, initialized, first_recall, cpu = [], [], [], []
    for _ in range(starts):
        start = time.perf_counter()
        subprocess.run([str(PYTHON), "-I", "-c", "pass"], check=True)
        bare.append(time.perf_counter() - start)
        server = Server(ws)
        server.handshake()
        initialized.append(time.perf_counter() - server.started)
        server.recall(PROMPTS[0])
        first_recall.append(time.perf_counter() - server.started)
        cpu.append(server.close())
    server = Server(ws)
    server.handshake()
    times = []
    for round_ in range(runs + 1):
        if round_ == 1:
            cpu_before = server.cpu_seconds()
        for prompt in PROMPTS:
            start = time.perf_counter()
            server.recall(prompt)
            if round_:
                times.append((time.perf_counter() - start) * 1000)
    cpu_per_call = (server.cpu_seconds() - cpu_before) * 1000 / max(1, len(times))
    rss = server.peak_rss_mb()
    server.close()
    return {"bare_start_s": statistics.median(bare), "start_to_initialize_s": statistics.median(initialized),
            "start_to_first_answer_s": statistics.median(first_recall),
            "start_to_first_answer_worst_s": max(first_recall), "start_cpu_s": statistics.median(cpu),
            "stdio_recall_p50_ms": statistics.median(times), "stdio_recall_p90_ms": percentile(times, 0.9),
            "stdio_recall_cpu_ms": cpu_per_call, "rss_mb": rss}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--runs", type=int, default=30, help="warm recall rounds over the corpus's prompts")
    parser.add_argument("--starts", type=int, default=9, help="server starts timed")
    parser.add_argument("--cache", default=str(BUNDLE / "bench" / ".cache"))
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    cache = Path(args.cache).resolve()
    cache.mkdir(parents=True, exist_ok=True)
    print(f"machine: {machine(PYTHON)}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", flush=True)
    results = []
    for n in (int(s) for s in args.sizes.split(",")):
        memory, _ = ensure_store(cache, n, lambda m: print(m, flush=True))
        ws = make_workspace(memory, cache)
        try:
            stdio = over_stdio(ws, args.starts, args.runs)
            figures = {"size": n, **in_process(ws, args.runs), **stdio}
        finally:
            shutil.rmtree(ws.work, ignore_errors=True)
        results.append(figures)
        print(json.dumps(figures, indent=2), flush=True)
    print(report(results))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


def report(results: list) -> str:
    def target(key, n):
        limit = TARGETS[key]
        return limit.get(n) if isinstance(limit, dict) else limit

    rows = [("warm recall over stdio, round trip p50 (p90)", "recall_p50_ms",
             lambda r: f"{r['stdio_recall_p50_ms']:.1f} ms ({r['stdio_recall_p90_ms']:.1f})"),
            ("  the server's CPU per recall (mean)", None, lambda r: f"{r['stdio_recall_cpu_ms']:.1f} ms"),
            ("warm recall inside the server (SDK call_tool in process), p50 (p90)", None,
             lambda r: f"{r['recall_p50_ms']:.1f} ms ({r['recall_p90_ms']:.1f})"),
            ("  its CPU time, p50", None, lambda r: f"{r['recall_cpu_p50_ms']:.1f} ms"),
            ("  the six prompts about the project, p50", None, lambda r: f"{r['recall_matching_p50_ms']:.1f} ms"),
            ("start to `initialize` answered (bare python start)", None,
             lambda r: f"{r['start_to_initialize_s']:.2f} s ({r['bare_start_s'] * 1000:.0f} ms)"),
            ("start to first recall answered, median (worst)", "start_to_first_answer_s",
             lambda r: f"{r['start_to_first_answer_s']:.2f} s ({r['start_to_first_answer_worst_s']:.2f})"),
            ("  CPU time of that server, start to exit", None, lambda r: f"{r['start_cpu_s']:.2f} s"),
            ("peak RSS after the recalls", "rss_mb", lambda r: f"{r['rss_mb']:.0f} MB"),
            ("tool definitions (JSON chars / 4)", "tool_tokens", lambda r: f"{r['tool_tokens']:.0f} tokens")]
    head = "| figure | " + " | ".join(f"{r['size']:,} memories" for r in results) + " | target |"
    lines = [head, "|---|" + "--:|" * len(results) + "---|"]
    for label, key, show in rows:
        goal = "" if key is None else " / ".join(sorted({f"≤ {target(key, r['size'])}" for r in results
                                                       if target(key, r["size"]) is not None}))
        lines.append(f"| {label} | " + " | ".join(show(r) for r in results) + f" | {goal} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
