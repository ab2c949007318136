#!/usr/bin/env python3
"""rlm-mem performance benchmark (issue 8): hooks, capture, import, reindex and disk use at 1k, 10k and 100k chunks.

    .venv/bin/python bench/run.py [--sizes 1000,10000,100000] [--runs N] [--json OUT] [--quick] [--readme]
                                  [--profile] [--only hooks,session_end,...] [--build-only] [--cache DIR]

Each size gets a deterministic store (bench/corpus.py), built once with ChunkStore.create_many and cached under
bench/.cache/. Every measurement runs on a throwaway hard-linked copy of it. Hooks run exactly as Claude Code runs
them: `bash -c <command from hooks/hooks.json>` with the event JSON on stdin; the baseline, `python -I -c pass`
with the bundle's interpreter, also runs under `bash -c` (bash's cost is on both sides), alternating with the hook
runs so the machine's noise hits both. Prints a markdown table (bench/report.py); --readme also writes it into bench/README.md.
"""
import argparse
import itertools
import json
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

BUNDLE = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(BUNDLE), str(BUNDLE / "tests")]

from corpus import GENERATOR_VERSION, MAIN_PROJECT, PROJECTS, chunk_specs, import_records, prompts, write_transcript  # noqa: E402
from harness.claude_code import hook_commands  # noqa: E402
from report import machine, report, write_readme  # noqa: E402

PYTHON = BUNDLE / ".venv" / "bin" / "python"
RLM_MEM = f"{shlex.quote(str(PYTHON))} {shlex.quote(str(BUNDLE / 'scripts' / 'rlm_mem.py'))}"
BARE = f"{shlex.quote(str(PYTHON))} -I -c pass"
TIME = "/usr/bin/time"
RSS_RUNS = 3
BUILD_BATCH = 2_000

# UserPromptSubmit and `rlm-mem recall` cycle through these: the ones about the main project (MATCHING) and the
# ones no memory answers, reported apart (an average of the two would hide how the matching ones grow).
PROMPTS = prompts()
MATCHING, NOT_MATCHING = PROMPTS[:6], PROMPTS[6:]


# ---------------------------------------------------------------- running one command
@dataclass
class Sample:
    seconds: float
    cpu: float  # the child's user + system CPU seconds: less sensitive than wall time to other work on the machine
    code: int
    stdout: str
    stderr: str


# The live session as Claude Code names one: a UUID, its transcript <session id>.jsonl (a name such as
# "bench-live" is a string the writer's redaction check has to judge; a UUID is not).
LIVE_SESSION = "3f1c9a2e-7b4d-4e8a-9c61-52d0b7a4e913"


def run_once(command: str, *, env: dict, cwd: Path, stdin: bytes = b"", timeout: float = 600) -> Sample:
    """`bash -c command`, timed from spawn to exit."""
    with tempfile.TemporaryFile() as fin, tempfile.TemporaryFile() as fout, tempfile.TemporaryFile() as ferr:
        fin.write(stdin)
        fin.seek(0)
        start = time.perf_counter()
        proc = subprocess.Popen(["bash", "-c", command], stdin=fin, stdout=fout, stderr=ferr, env=env, cwd=cwd)
        watchdog = threading.Timer(timeout, proc.kill)
        watchdog.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            watchdog.cancel()
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        fout.seek(0)
        ferr.seek(0)
        return Sample(seconds, usage.ru_utime + usage.ru_stime, proc.returncode, fout.read().decode("utf-8", "replace"),
                      ferr.read().decode("utf-8", "replace"))


def peak_rss_mb(command: str, *, env: dict, cwd: Path, stdin: bytes = b"") -> float | None:
    """Peak RSS of `bash -c command`, measured by /usr/bin/time in a run of its own. (wait4 on our own child would
    report at least this benchmark's RSS: Linux carries a process's peak over fork and exec.)"""
    if not os.access(TIME, os.X_OK):
        return None
    with tempfile.NamedTemporaryFile(suffix=".rss") as out:
        run_once(f"{TIME} -f %M -o {shlex.quote(out.name)} bash -c {shlex.quote(command)}", env=env, cwd=cwd,
                 stdin=stdin)
        try:
            return int(Path(out.name).read_text().split()[-1]) / 1024
        except (OSError, ValueError, IndexError):
            return None


def hook_command(event: str, payload: dict) -> str:
    commands = [c for c, _ in hook_commands(event, payload, BUNDLE)]
    if not commands:
        raise SystemExit(f"hooks/hooks.json has no command for {event}")
    return " ; ".join(commands)  # one per event today; several would run one after the other


def event_json(event: str, payload: dict) -> bytes:
    return json.dumps(dict(payload, hook_event_name=event)).encode("utf-8")


# ---------------------------------------------------------------- stores
def cache_key(n: int) -> str:
    """Size, generator version and a digest of the store's layout (search-index schema, chunk schema): a store
    cached before either changed is rebuilt, so figures are always of a store the current code made."""
    from hashlib import sha1

    from brain.index import search_index
    from brain.store.validation import schema_path

    layout = sha1(search_index._SCHEMA.encode() + schema_path("chunk").read_bytes()).hexdigest()[:8]
    return f"store-g{GENERATOR_VERSION}-{layout}-{n}"


def build_store(root: Path, n: int) -> dict:
    """create_many in batches of BUILD_BATCH, auto_link on; only the store calls are timed."""
    from brain.store.chunk_store import ChunkStore

    store = ChunkStore(root, actor="bench")
    specs = chunk_specs(n)
    spent, made = 0.0, 0
    with store.batched():
        while True:
            batch = list(itertools.islice(specs, BUILD_BATCH))
            if not batch:
                break
            start = time.perf_counter()
            store.create_many(batch, reason="benchmark store", bulk=True)
            spent += time.perf_counter() - start
            made += len(batch)
    store.refresh_json_indexes()  # the background pass, as a settled store has had (not timed: not a write)
    return {"chunks": made, "seconds": round(spent, 3), "chunks_per_s": round(made / spent, 1),
            "built": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


def ensure_store(cache: Path, n: int, log) -> tuple:
    """(memory root, build record) of the cached store of size n, building it first if needed."""
    folder = cache / cache_key(n)
    record = folder / "build.json"
    if record.is_file():
        return folder / "memory", json.loads(record.read_text())
    tmp = cache / f".building-{cache_key(n)}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    log(f"building the {n:,}-chunk store (cached in {folder}) ...")
    info = build_store(tmp / "memory", n)
    (tmp / "build.json").write_text(json.dumps(info, indent=2))
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(tmp, folder)
    log(f"  built: {info['chunks']:,} chunks in {info['seconds']:.1f} s = {info['chunks_per_s']:,.0f} chunks/s")
    return folder / "memory", info


def working_copy(src: Path, dest: Path) -> None:
    """Chunk files are hard-linked (rlm-mem replaces them, never edits them in place); indexes, logs and state are
    copied. Folder mtimes are kept: writers compare month-folder mtimes to spot changes made behind their back."""
    for dirpath, _, filenames in os.walk(src):
        rel = Path(dirpath).relative_to(src)
        (dest / rel).mkdir(mode=0o700, parents=True, exist_ok=True)
        link = rel.parts[:1] in (("chunks",), ("archive",))
        for name in filenames:
            (os.link if link else shutil.copy2)(Path(dirpath) / name, dest / rel / name)
    for dirpath, _, _ in os.walk(src, topdown=False):
        st = os.stat(dirpath)
        os.utime(dest / Path(dirpath).relative_to(src), ns=(st.st_atime_ns, st.st_mtime_ns))


def quiet_gardening(memory: Path) -> None:
    """SessionStart starts a detached gardening run when one is due; on 100k chunks it would compete with the
    measurements for the CPU, so the benchmark stores record a recent run and a very long interval."""
    state = memory / "state"
    state.mkdir(mode=0o700, parents=True, exist_ok=True)
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    (state / "garden.json").write_text(json.dumps({"last_run": now, "interval_hours": 1e6}))


def disk_usage(path: Path) -> tuple:
    """(bytes on disk as du counts them, number of files, bytes the files hold) under path."""
    total = files = data = 0
    for dirpath, dirnames, filenames in os.walk(path):
        total += os.lstat(dirpath).st_blocks * 512
        for name in filenames:
            st = os.lstat(os.path.join(dirpath, name))
            total += st.st_blocks * 512
            data += st.st_size
            files += 1
    return total, files, data


def disk_figures(memory: Path, chunks: int) -> dict:
    """Per chunk: what chunks/ allocates and holds (one file per chunk: the rest of its last 4 KB block is slack),
    the search index, seed 000's JSON index files, and the whole memory root."""
    allocated, files, data = disk_usage(memory / "chunks")
    whole, _, whole_data = disk_usage(memory)
    index = memory / "index"
    size = lambda *names: sum((index / n).stat().st_size for n in names if (index / n).exists())  # noqa: E731
    n = max(1, chunks)
    return {"chunk_files": files, "chunks_bytes_per_chunk": allocated / n, "chunk_data_per_chunk": data / n,
            "slack_share": 1 - data / allocated if allocated else 0.0,
            "search_db_per_chunk": size("search.db", "search.db-wal") / n,
            "json_per_chunk": size("metadata_index.json", "tag_index.json", "link_graph.json") / n,
            "root_bytes_per_chunk": whole / n, "root_mb": whole / 1e6, "root_data_mb": whole_data / 1e6}


# ---------------------------------------------------------------- one size
@dataclass
class Workspace:
    work: Path
    memory: Path
    projects: dict
    transcripts: Path
    env: dict = field(default_factory=dict)

    @property
    def cwd(self) -> Path:
        return self.projects[MAIN_PROJECT]


def make_workspace(src: Path, parent: Path) -> Workspace:
    work = Path(tempfile.mkdtemp(prefix="work-", dir=parent))
    memory = work / "memory"
    working_copy(src, memory)
    quiet_gardening(memory)
    projects = {}
    for name, _ in PROJECTS:
        # Each project is a repository of its own with its `.rlm-mem.json` at the top, as a person's project is. The
        # workspace sits in the cache, inside the bundle's own repository by default, and without a repository
        # here the bundle's would be the project: the hooks then answered for a project with no memories (the
        # full runs before 2026-11-24 timed half their "matching" prompts that way).
        folder = work / "projects" / name
        folder.mkdir(parents=True)
        (folder / ".git").mkdir()  # all rlm-mem looks for (brain/context/project.find_git)
        (folder / ".rlm-mem.json").write_text(json.dumps({"project": name}))
        projects[name] = folder
    transcripts = work / "transcripts"
    transcripts.mkdir()
    os.sync()  # the copy's dirty pages are written back now, not during the first measurements
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "RLM_MEM_"))}
    env.update(RLM_MEM_DIR=str(memory), CLAUDE_PLUGIN_ROOT=str(BUNDLE), CLAUDE_PROJECT_DIR=str(projects[MAIN_PROJECT]),
               XDG_STATE_HOME=str(work / "xdg-state"), RLM_MEM_ACTOR="bench")
    return Workspace(work, memory, projects, transcripts, env)


def _hook_trouble(sample: Sample) -> str:
    return " ".join(sample.stderr.split())[:200] if sample.stderr.strip() else ""


def measure_hooks(ws: Workspace, runs: int) -> dict:
    """SessionStart (its brief cached), UserPromptSubmit for prompts that match and for prompts that match
    nothing, and `rlm-mem recall`, each run right after a bare run; then the first SessionStart after a write."""
    live = ws.transcripts / f"{LIVE_SESSION}.jsonl"
    write_transcript(live, LIVE_SESSION, str(ws.cwd), 4_000, seed="live")
    base = {"session_id": LIVE_SESSION, "transcript_path": str(live), "cwd": str(ws.cwd)}
    start_payload = dict(base, source="startup")

    def prompt_case(prompts):
        return lambda i: (hook_command("UserPromptSubmit", dict(base, prompt=prompts[i % len(prompts)])),
                          event_json("UserPromptSubmit", dict(base, prompt=prompts[i % len(prompts)])))

    cases = {
        "session_start": lambda i: (hook_command("SessionStart", start_payload),
                                    event_json("SessionStart", start_payload)),
        "ups_match": prompt_case(MATCHING),
        "ups_nomatch": prompt_case(NOT_MATCHING),
        "recall": lambda i: (f"{RLM_MEM} recall {shlex.quote(PROMPTS[i % len(PROMPTS)])}", b""),
    }
    samples = {name: [] for name in ("bare", *cases)}
    answered = {p: 0 for p in MATCHING}
    for i in range(runs + 1):  # run 0 warms the page cache and is not counted
        for name, make in cases.items():
            bare = run_once(BARE, env=ws.env, cwd=ws.cwd)
            command, stdin = make(i)
            sample = run_once(command, env=ws.env, cwd=ws.cwd, stdin=stdin)
            stop_workers(ws.memory)
            if i:
                samples["bare"].append(bare)
                samples[name].append(sample)
                if name == "ups_match" and _context(sample):
                    answered[MATCHING[i % len(MATCHING)]] += 1
    out = {"bare": summarize(samples["bare"])}
    out["bare"]["peak_rss_mb"] = peak_rss_mb(BARE, env=ws.env, cwd=ws.cwd)
    for name, make in cases.items():
        out[name] = summarize(samples[name], out["bare"]["median_s"], quiet_stderr=name != "recall")
        # CPU ratio next to the wall-time one (JSON only): a check that other work on the machine did not make it
        out[name]["cpu_ratio"] = out[name]["median_cpu_s"] / out["bare"]["median_cpu_s"]
        rss = []
        for i in range(RSS_RUNS):
            command, stdin = make(i)
            rss.append(peak_rss_mb(command, env=ws.env, cwd=ws.cwd, stdin=stdin))
            stop_workers(ws.memory)
        out[name]["peak_rss_mb"] = max((r for r in rss if r is not None), default=None)
    out["session_start"]["context_chars"] = statistics.median(len(s.stdout) for s in samples["session_start"])
    for name in ("ups_match", "ups_nomatch"):
        out[name]["with_context"] = sum(1 for s in samples[name] if _context(s))
    out["ups_match"]["answered"] = answered  # prompt -> runs that got context (answered at 1k, not at 100k: a miss)
    out["recall"]["with_output"] = sum(1 for s in samples["recall"] if s.code == 0 and s.stdout.strip())
    out["session_start_after_write"] = measure_start_after_write(ws, start_payload, runs)
    out["session_start_computed"] = measure_start_after_write(ws, start_payload, runs, computed=True)
    return out


def _context(sample: Sample) -> bool:
    return '"additionalContext"' in sample.stdout


def measure_start_after_write(ws: Workspace, payload: dict, runs: int, *, computed: bool = False) -> dict:
    """The first SessionStart after a write: each run follows a `rlm-mem remember` (not timed), which refreshes
    this project's brief. With `computed`, the brief cache is removed first, so the hook computes it (what a
    start after any other write pays). The detached worker a start may begin is stopped before the next run."""
    bare, hook = [], []
    command, stdin = hook_command("SessionStart", payload), event_json("SessionStart", payload)
    for i in range(runs + 1):
        note = f"Session-start bench note {i}: the bench cache keeps entries for {60 + i} seconds."
        run_once(f"{RLM_MEM} remember {shlex.quote(note)} --tags bench", env=ws.env, cwd=ws.cwd)
        stop_workers(ws.memory)
        if computed:
            for brief in (ws.memory / "state" / "brief").glob("*.json"):
                brief.unlink()
        b = run_once(BARE, env=ws.env, cwd=ws.cwd)
        h = run_once(command, env=ws.env, cwd=ws.cwd, stdin=stdin)
        stop_workers(ws.memory)
        if i:
            bare.append(b)
            hook.append(h)
    out = summarize(hook, statistics.median(s.seconds for s in bare))
    out["cpu_ratio"] = out["median_cpu_s"] / statistics.median(s.cpu for s in bare)
    return out


def summarize(samples, bare_median=None, *, quiet_stderr: bool = True) -> dict:
    """Median, min, max wall time (and the ratio to the bare median). A hook must be silent on stderr unless
    something went wrong (quiet_stderr); for CLI commands only the exit code counts."""
    times = [s.seconds for s in samples]
    out = {"runs": len(samples), "median_s": statistics.median(times), "min_s": min(times), "max_s": max(times),
           "median_cpu_s": statistics.median(s.cpu for s in samples), "exit_codes": sorted({s.code for s in samples})}
    if bare_median:
        out["ratio"] = out["median_s"] / bare_median
    trouble = sorted({_hook_trouble(s) for s in samples if _hook_trouble(s) and (quiet_stderr or s.code)})
    if trouble or any(s.code != 0 for s in samples):
        out["trouble"] = trouble[:3] or [f"exit {out['exit_codes']}"]
    return out


def stop_workers(memory: Path, wait: float = 0.0) -> int:
    """Stop the detached workers hooks started for this memory root (`rlm-mem --dir ROOT ingest --background` or
    `garden --apply`), each by its pid, so that none competes with the next measurement. What they held stays
    queued or derived-and-behind; a later run does it. Returns how many were stopped."""
    marker = f"--dir\0{memory}\0".encode()
    deadline = time.monotonic() + wait
    stopped = 0
    while True:
        pids = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == os.getpid():
                continue
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as fh:
                    cmdline = fh.read()
            except OSError:
                continue
            if marker in cmdline and (b"\0ingest\0--background" in cmdline or b"\0garden\0" in cmdline):
                pids.append(int(entry))
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                stopped += 1
            except ProcessLookupError:
                pass
        if pids or time.monotonic() >= deadline:
            return stopped
        time.sleep(0.02)


def measure_session_end(ws: Workspace, transcript: Path, runs: int) -> dict:
    payload = {"session_id": transcript.stem, "transcript_path": str(transcript), "cwd": str(ws.cwd),
               "reason": "prompt_input_exit"}
    command, stdin = hook_command("SessionEnd", payload), event_json("SessionEnd", payload)
    bare, hook = [], []
    for i in range(runs + 1):
        b = run_once(BARE, env=ws.env, cwd=ws.cwd)
        h = run_once(command, env=ws.env, cwd=ws.cwd, stdin=stdin)
        stop_workers(ws.memory, wait=1.0)  # SessionEnd starts the capture worker: it is not part of the hook
        if i:
            bare.append(b)
            hook.append(h)
    out = summarize(hook, statistics.median(s.seconds for s in bare))
    rss = []
    for _ in range(RSS_RUNS):
        rss.append(peak_rss_mb(command, env=ws.env, cwd=ws.cwd, stdin=stdin))
        stop_workers(ws.memory, wait=1.0)
    out["peak_rss_mb"] = max((r for r in rss if r is not None), default=None)
    out["transcript_mb"] = transcript.stat().st_size / 1e6
    return out


def run_with_rss(command: str, *, env: dict, cwd: Path) -> tuple:
    """(Sample, peak RSS in MB) of one run of a command that changes the store, so cannot be run twice."""
    with tempfile.NamedTemporaryFile(suffix=".rss") as out:
        sample = run_once(f"{TIME} -f %M -o {shlex.quote(out.name)} bash -c {shlex.quote(command)}"
                          if os.access(TIME, os.X_OK) else command, env=env, cwd=cwd)
        try:
            rss = int(Path(out.name).read_text().split()[-1]) / 1024
        except (OSError, ValueError, IndexError):
            rss = None
    return sample, rss


def measure_cli(ws: Workspace, args_list, *, check=None) -> dict:
    """Each command once, timed, with its peak RSS (the largest of the runs)."""
    runs = [run_with_rss(f"{RLM_MEM} {a}", env=ws.env, cwd=ws.cwd) for a in args_list]
    samples = [sample for sample, _ in runs]
    out = summarize(samples, quiet_stderr=False)
    out["peak_rss_mb"] = max((rss for _, rss in runs if rss is not None), default=None)
    if check is not None:
        out.update(check(samples))
    return out


def measure_json_pass(ws: Workspace, runs: int) -> dict:
    """The background pass that brings seed 000's JSON index files up to date, after one write each time
    (`rlm-mem share refresh` runs it at once; the worker coalesces it)."""
    samples = []
    for i in range(runs):
        run_once(f"{RLM_MEM} remember {shlex.quote(f'JSON pass bench note {i} about the ledger.')}", env=ws.env,
                 cwd=ws.cwd)
        samples.append(run_with_rss(f"{RLM_MEM} share refresh", env=ws.env, cwd=ws.cwd))
    out = summarize([s for s, _ in samples], quiet_stderr=False)
    out["peak_rss_mb"] = max((r for _, r in samples if r is not None), default=None)
    return out


def measure_garden(ws: Workspace) -> dict:
    """A whole gardening run as the worker starts it (`garden --apply`, its time budget on), on the store as the
    other measurements left it; then a second run (what changed since the first: its own masters)."""
    (ws.memory / "state" / "garden.json").unlink(missing_ok=True)
    out = {}
    for key in ("first", "second"):
        sample, rss = run_with_rss(f"{RLM_MEM} garden --apply --json", env=ws.env, cwd=ws.cwd)
        try:
            plan = json.loads(sample.stdout)
            done = {k: (len(v) if isinstance(v, list) else v) for k, v in plan["applied"].items()}
        except (ValueError, KeyError):
            done = {"trouble": _hook_trouble(sample) or f"exit {sample.code}"}
        out[key] = {"seconds": sample.seconds, "cpu_s": sample.cpu, "peak_rss_mb": rss, "applied": done}
    out["seconds"] = out["first"]["seconds"]
    out["paused"] = out["first"]["applied"].get("paused")
    return out


def import_has_jsonl(env: dict) -> bool:
    sample = run_once(f"{RLM_MEM} import --help", env=env, cwd=BUNDLE)
    return sample.code == 0 and "jsonl" in sample.stdout


def file_creation_ms(folder: Path, files: int = 400) -> float:
    """What creating a small file costs right now (ms, wall): the file system's own state moves the write rates (see
    bench/README: after a large deletion, ext4 without a journal pays up to 20 times more a file for minutes). The
    files stay until the run's workspaces are removed."""
    folder.mkdir(parents=True, exist_ok=True)
    data, start = b"x" * 1000, time.perf_counter()
    for i in range(files):
        fd = os.open(folder / f"probe-{i}", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, data)
        os.close(fd)
    return (time.perf_counter() - start) * 1000 / files


def measure_import(ws: Workspace, records: int, shared: Path) -> dict:
    """Bulk import throughput through `rlm-mem import --format jsonl` (wall time, CLI start included); without it,
    through ChunkStore.create_many in process. With what creating a file cost just before."""
    probe_ms = file_creation_ms(ws.work / "file-probe")
    source = shared / f"import-{records}.jsonl"
    if not source.exists():
        with open(source, "w", encoding="utf-8") as fh:
            for rec in import_records(records):
                fh.write(json.dumps(rec) + "\n")
    if import_has_jsonl(ws.env):
        sample = run_once(f"{RLM_MEM} import --format jsonl --json {shlex.quote(str(source))}", env=ws.env,
                          cwd=ws.cwd)
        try:
            created = json.loads(sample.stdout).get("created", 0)
        except ValueError:
            created = 0
        out = {"path": "rlm-mem import --format jsonl", "seconds": sample.seconds, "created": created}
        if sample.code != 0 or created != records:
            out["trouble"] = [f"exit {sample.code}, created {created} of {records}: {_hook_trouble(sample)}"]
    else:
        from brain.store.chunk_store import ChunkStore

        store = ChunkStore(ws.memory, actor="bench")
        specs = [{"content": r["content"], "chunk_type": r["type"], "tags": r["tags"], "created": r["created"],
                  "conversation_id": r["conversation_id"], "source": "import", "key": f"import:{i}"}
                 for i, r in enumerate(import_records(records))]
        start = time.perf_counter()
        for i in range(0, len(specs), 1000):
            store.create_many(specs[i:i + 1000], reason="bench import", bulk=True)
        out = {"path": "ChunkStore.create_many (no jsonl import found)", "seconds": time.perf_counter() - start,
               "created": len(specs)}
    out["chunks_per_s"] = out["created"] / out["seconds"] if out["seconds"] else 0.0
    out["file_creation_ms"] = round(probe_ms, 3)
    return out


def measure_size(n: int, args, cache: Path, shared: Path, log, leftovers: list) -> dict:
    """The figures of one size. Its workspace goes on `leftovers`, removed when the whole run is over: on a file
    system without a journal (this VM's ext4), creating a file skips every inode freed in the last 30 s to 5 min
    one by one, so deleting the previous size's copy made the next size's writes pay 0.5 ms a file."""
    memory_src, build = ensure_store(cache, n, log)
    result = {"size": n, "build": build, "disk": disk_figures(memory_src, build["chunks"])}
    ws = make_workspace(memory_src, cache)
    leftovers.append(ws.work)
    steps = (  # in this order: the first ones read the store as built, the later ones write to the copy
        ("hooks", f"hooks: {args.runs} runs each, alternating with the bare interpreter",
         lambda: measure_hooks(ws, args.runs)),
        ("session_end", f"SessionEnd on a {args.end_bytes / 1e6:g} MB transcript",
         lambda: measure_session_end(ws, shared / f"end-{args.end_bytes}.jsonl", args.runs)),
        ("reindex", "reindex", lambda: measure_cli(ws, ["reindex"], check=lambda s: {"said": s[0].stdout.strip()[:80]})),
        ("remember", "remember", lambda: measure_cli(
            ws, [f"remember {shlex.quote(f'Benchmark note {i}: the bench gateway listens on port {7000 + i}.')}"
                 f" --tags bench" for i in range(args.remember_runs)])),
        ("json_pass", "the JSON index pass after a write", lambda: measure_json_pass(ws, args.remember_runs)),
        ("capture", f"capture: rlm-mem ingest of a {args.capture_bytes / 1e6:g} MB transcript",
         lambda: measure_capture(ws, args, shared)),
        ("import", f"bulk import of {args.import_records:,} records",
         lambda: measure_import(ws, args.import_records, shared)),
        ("garden", "gardening: rlm-mem garden --apply", lambda: measure_garden(ws)),
    )
    for key, what, measure in steps:
        if args.only and key not in args.only:
            continue
        log(f"[{n:,}] {what}")
        result[key] = measure()
    return result


def measure_capture(ws: Workspace, args, shared: Path) -> dict:
    """Fresh transcripts each run (another session, other words): capturing the same one twice stores nothing."""
    samples = []
    for i in range(args.capture_runs):
        src = shared / f"capture-{args.capture_bytes}-{i}.jsonl"
        if not src.exists():
            write_transcript(src, src.stem, "__CWD__", args.capture_bytes, seed=f"capture-{i}")
        target = ws.transcripts / src.name
        text = src.read_text(encoding="utf-8").replace("__CWD__", str(ws.cwd))
        target.write_text(text, encoding="utf-8")
        samples.append(run_once(f"{RLM_MEM} ingest {shlex.quote(str(target))}", env=ws.env, cwd=ws.cwd))
    out = summarize(samples, quiet_stderr=False)
    out["said"] = samples[-1].stdout.strip()[:120]
    return out


# ---------------------------------------------------------------- profiles of what misses
def profile(ws: Workspace, out_dir: Path, size: int, log) -> list:
    """-X importtime and cProfile of each hook, written to out_dir; returns the files."""
    live = ws.transcripts / f"{LIVE_SESSION}.jsonl"
    if not live.exists():
        write_transcript(live, LIVE_SESSION, str(ws.cwd), 4_000, seed="live")
    base = {"session_id": LIVE_SESSION, "transcript_path": str(live), "cwd": str(ws.cwd)}
    events = {"session-start": ("SessionStart", dict(base, source="startup")),
              "user-prompt-submit": ("UserPromptSubmit", dict(base, prompt=PROMPTS[0]))}
    written = []
    out_dir.mkdir(parents=True, exist_ok=True)
    for arg, (event, payload) in events.items():
        stdin = event_json(event, payload)
        hook = shlex.quote(str(BUNDLE / "scripts" / "hook.py"))
        imp = run_once(f"{shlex.quote(str(PYTHON))} -I -X importtime {hook} {arg}", env=ws.env, cwd=ws.cwd,
                       stdin=stdin)
        rows = []  # (cumulative µs, self µs, name) of the imports made at the top level (one-space indent)
        for line in imp.stderr.splitlines():
            parts = line[len("import time:"):].split("|") if line.startswith("import time:") else []
            if len(parts) == 3 and parts[0].strip().isdigit() and not parts[2].startswith("  "):
                rows.append((int(parts[1]), int(parts[0]), parts[2].strip()))
        top = sorted(rows, reverse=True)[:25]
        prof = out_dir / f"profile-{size}-{arg}.pstats"
        code = "import cProfile, sys\nsys.path.insert(0, %r)\nfrom brain.hooks import runner as hooks\ncProfile.run(%r, %r)" % (
            str(BUNDLE), f"hooks.main([{arg!r}])", str(prof))
        run_once(f"{shlex.quote(str(PYTHON))} -I -c {shlex.quote(code)}", env=ws.env, cwd=ws.cwd, stdin=stdin)
        import io
        import pstats

        buf = io.StringIO()
        if prof.exists():
            pstats.Stats(str(prof), stream=buf).sort_stats("cumulative").print_stats(30)
        text = out_dir / f"profile-{size}-{arg}.txt"
        text.write_text(f"# {event} at {size:,} chunks\n\n## -X importtime, top-level imports by cumulative µs\n"
                        + "\n".join(f"{c:>9} {s:>9}  {n}" for c, s, n in top)
                        + f"\n(total of all top-level imports: {sum(r[0] for r in rows):,} µs)"
                        + "\n\n## cProfile of the in-process handler (imports of hooks.py itself excluded)\n"
                        + buf.getvalue(), encoding="utf-8")
        written.append(text)
        log(f"[{size:,}] profile of {event}: {text}")
    return written


# ---------------------------------------------------------------- main
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="rlm-mem performance benchmark (issue 8)")
    parser.add_argument("--sizes", default="1000,10000,100000", help="store sizes in chunks, comma-separated")
    parser.add_argument("--runs", type=int, default=None, help="runs per hook (default 15; 5 with --quick)")
    parser.add_argument("--json", dest="json_out", help="write every measurement to this JSON file")
    parser.add_argument("--quick", action="store_true",
                        help="smaller transcripts and import, fewer repetitions (a smoke run, not the figures)")
    parser.add_argument("--readme", action="store_true", help="write the table into bench/README.md")
    parser.add_argument("--profile", action="store_true",
                        help="also write -X importtime and cProfile reports of the hooks to bench/results/")
    parser.add_argument("--cache", default=str(BUNDLE / "bench" / ".cache"), help="where built stores are kept")
    parser.add_argument("--build-only", action="store_true", help="build (and cache) the stores, measure nothing")
    parser.add_argument("--only", help="measure only these: hooks,session_end,reindex,remember,json_pass,capture,"
                                       "import,garden")
    args = parser.parse_args(argv)
    try:
        sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        parser.error("--sizes takes numbers such as 1000,10000,100000")
    if not sizes or min(sizes) < 1:
        parser.error("--sizes needs at least one positive size")
    args.runs = args.runs or (5 if args.quick else 15)
    args.only = set(args.only.split(",")) if args.only else None
    args.end_bytes = 500_000 if args.quick else 5_000_000
    args.capture_bytes = 100_000 if args.quick else 1_000_000
    args.capture_runs = 1 if args.quick else 3
    args.remember_runs = 1 if args.quick else 5
    args.import_records = 300 if args.quick else 5_000
    if not PYTHON.exists():
        raise SystemExit(f"no interpreter at {PYTHON}: create the bundle's .venv first")
    started = time.monotonic()
    args.load_start = os.getloadavg()[0]
    cache = Path(args.cache).resolve()
    shared = cache / f"inputs-g{GENERATOR_VERSION}"
    shared.mkdir(parents=True, exist_ok=True)
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    end = shared / f"end-{args.end_bytes}.jsonl"
    if not end.exists():
        write_transcript(end, end.stem, "/bench/project", args.end_bytes, seed="end")
    if args.build_only:
        for n in sizes:
            ensure_store(cache, n, log)
        return 0
    results, leftovers = [], []
    try:
        for n in sizes:
            results.append(measure_size(n, args, cache, shared, log, leftovers))
            if args.profile:
                memory_src, _ = ensure_store(cache, n, log)
                ws = make_workspace(memory_src, cache)
                leftovers.append(ws.work)
                profile(ws, BUNDLE / "bench" / "results", n, log)
    finally:
        for work in leftovers:
            shutil.rmtree(work, ignore_errors=True)
    text = report(results, args, started, PYTHON)
    print(text)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"machine": machine(PYTHON), "args": vars(args), "results": results},
                                                  indent=2, default=str))
    if args.readme:
        write_readme(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
