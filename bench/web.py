#!/usr/bin/env python3
"""The local page at scale (issue 18): first paint and search time of `rlm-mem serve` in headless Chromium.

    .venv/bin/python bench/web.py [--sizes 1000,100000] [--runs 7] [--json OUT]

For each size, the deterministic store of bench/run.py (bench/corpus.py through ChunkStore.create_many, cached in
bench/.cache/) is hard-linked into a throwaway workspace; `rlm-mem serve --read-only` runs there as a subprocess
from the corpus's main project, and Debian's Chromium (tests/harness/web.py) opens each page `--runs` times.
Per page it reports the browser's own Navigation and Paint Timing: when the last byte of the page arrived
(responseEnd, the server's work plus the transfer) and the first contentful paint, both from the start of the
navigation; the first visit (cold caches) is shown apart from the median and worst of the rest. Search is timed
once more over plain HTTP for each of the corpus's prompts. Needs Chromium and chromedriver (apt-get install
chromium chromium-driver) and selenium (the [test] extra).
"""
import argparse
import http.client
import json
import re
import shutil
import sqlite3
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import quote_plus, urlsplit

BUNDLE = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(BUNDLE / "bench"), str(BUNDLE / "tests")]

from corpus import prompts  # noqa: E402
from harness import web  # noqa: E402
from run import ensure_store, make_workspace  # noqa: E402

TIMING = """
const nav = performance.getEntriesByType('navigation')[0];
const paint = performance.getEntriesByName('first-contentful-paint')[0];
return [nav.responseEnd, paint ? paint.startTime : null, document.querySelectorAll('li.memory, tr').length];
"""


def fetch(url: str) -> tuple:
    """(seconds, body) of one GET over a new connection."""
    parts = urlsplit(url)
    start = time.perf_counter()
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    conn.request("GET", parts.path + (f"?{parts.query}" if parts.query else ""))
    response = conn.getresponse()
    body = response.read().decode("utf-8")
    conn.close()
    if response.status != 200:
        raise SystemExit(f"{url} answered {response.status}")
    return time.perf_counter() - start, body


def _index(memory: Path):
    return sqlite3.connect(f"file:{memory / 'index' / 'search.db'}?mode=ro", uri=True)


def remembered(memory: Path, n: int = 9) -> list:
    """Searches for something stored: the first eight words of memories spread through the store (the corpus's
    prompts are mostly of the kind recall rightly answers with nothing)."""
    with _index(memory) as conn:
        rows = conn.execute("SELECT content FROM chunks WHERE kind NOT IN ('turn', 'session') ORDER BY id").fetchall()
    return [" ".join(content.split()[:8]) for content, in rows[len(rows) // (2 * n)::max(1, len(rows) // n)][:n]]


def pages(url: str, memory: Path) -> dict:
    """name -> address of the pages measured."""
    with _index(memory) as conn:
        linked = conn.execute("SELECT src FROM links GROUP BY src ORDER BY count(*) DESC LIMIT 1").fetchone()[0]
        session = conn.execute("SELECT conversation_id FROM chunks WHERE kind = 'session' "
                               "ORDER BY created DESC LIMIT 1").fetchone()[0]
    older, origin = url + "?kind=all", "/".join(url.split("/")[:3])
    for _ in range(3):  # the fourth page of the whole list (turns too), reached by its "Older" links
        found = re.search(r'<a href="([^"]+)" rel="next">', fetch(older)[1])
        older = origin + found.group(1).replace("&amp;", "&")
    return {"memories (first page)": url, "every kind, fourth page": older, "memories, pinned": url + "?pinned=1",
            "memories, scope user (no index)": url + "?scope=user",
            "search (?q=, a stored memory's words)": next(
                address for address in (url + "?q=" + quote_plus(q) for q in remembered(memory))
                if 'class="memory"' in fetch(address)[1]),
            "one memory (most links)": url + f"memory/{linked}", "sessions": url + "sessions",
            "one session": url + "session?id=" + quote_plus(session), "next session (brief, HUD, CORE)": url + "now"}


def measure_browser(driver, address: str, runs: int) -> dict:
    samples = []
    for _ in range(runs + 1):
        driver.get(address)
        deadline = time.monotonic() + 10
        response_end, paint, items = driver.execute_script(TIMING)
        while paint is None and time.monotonic() < deadline:  # the paint entry can come just after `load`
            time.sleep(0.02)
            response_end, paint, items = driver.execute_script(TIMING)
        if paint is None:
            raise SystemExit(f"{address}: Chromium reported no first contentful paint")
        samples.append((response_end, paint, items))
    rest = samples[1:]
    return {"cold_response_ms": samples[0][0], "cold_paint_ms": samples[0][1],
            "response_ms": statistics.median(s[0] for s in rest), "paint_ms": statistics.median(s[1] for s in rest),
            "paint_worst_ms": max(s[1] for s in rest), "items": rest[-1][2]}


def search_times(url: str, queries: list, runs: int) -> dict:
    """Each query `runs` times over HTTP: the time to the whole results page, and how many memories it held."""
    times, hits = [], []
    for query in queries:
        for _ in range(runs):
            seconds, body = fetch(url + "?q=" + quote_plus(query))
            times.append(seconds * 1000)
        hits.append(body.count('class="memory"'))
    return {"median_ms": statistics.median(times), "worst_ms": max(times), "requests": len(times),
            "median_hits": statistics.median(hits)}


def measure_size(n: int, args, log) -> dict:
    source, _ = ensure_store(Path(args.cache), n, log)
    ws = make_workspace(source, Path(args.cache))
    served = None
    profile = web.new_profile()
    driver = None
    try:
        served = web.Served(ws.memory, "--read-only", cwd=ws.cwd)
        driver = web.chromium(profile)
        driver.set_page_load_timeout(60)
        out = {"size": n, "pages": {}}
        for name, address in pages(served.url, ws.memory).items():
            out["pages"][name] = measure_browser(driver, address, args.runs)
            log(f"  {n:,} {name}: paint {out['pages'][name]['paint_ms']:.0f} ms")
        for label, queries in (("remembered", remembered(ws.memory)), ("prompts", prompts())):
            out[f"search_{label}"] = search_times(served.url, queries, args.runs)
        return out
    finally:
        if driver is not None:
            driver.quit()
        if served is not None:
            served.stop()
        web.remove_profile(profile)
        shutil.rmtree(ws.work, ignore_errors=True)


def table(results: list) -> str:
    names = list(results[0]["pages"])
    head = "| page | " + " | ".join(f"{r['size']:,}: last byte / first paint (cold)" for r in results) + " |"
    lines = [head, "|---|" + "---|" * len(results)]
    for name in names:
        cells = [f"{p['response_ms']:.0f} / **{p['paint_ms']:.0f}** ms (worst {p['paint_worst_ms']:.0f}; cold "
                 f"{p['cold_paint_ms']:.0f})" for p in (r["pages"][name] for r in results)]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    for key, label in (("search_remembered", "search over HTTP: words of stored memories"),
                       ("search_prompts", "search over HTTP: the corpus's hook prompts")):
        lines.append(f"| {label} | " + " | ".join(
            f"median {r[key]['median_ms']:.0f} ms, worst {r[key]['worst_ms']:.0f} ms ({r[key]['requests']} "
            f"requests, median {r[key]['median_hits']:.0f} memories found)" for r in results) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,100000", help="store sizes in chunks, comma-separated")
    parser.add_argument("--runs", type=int, default=7, help="visits per page after the first (cold) one")
    parser.add_argument("--cache", default=str(BUNDLE / "bench" / ".cache"), help="where built stores are kept")
    parser.add_argument("--json", dest="json_out", help="also write the measurements to this JSON file")
    args = parser.parse_args(argv)
    reason = web.missing()
    if reason:
        raise SystemExit(reason)
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    results = [measure_size(int(n), args, log) for n in args.sizes.split(",") if n.strip()]
    print(table(results))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
