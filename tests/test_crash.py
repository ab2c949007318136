"""Crash safety: kill -9 at any instant leaves no broken chunk file, loses nothing reported as saved, and leaves
nothing derived that `doctor --repair` cannot fix.

Writer processes create (one by one and in bulk), update, archive, restore and delete chunks in a loop, printing
an id only after the call returned. A maintenance process folds access counts and rebuilds the indexes. All are
SIGKILLed at random moments, round after round, each round starting on whatever the last one left.
"""
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from unittest import mock

import pytest
from click.testing import CliRunner

from brain.cli.main import cli
from brain.store.chunk_store import ChunkStore
from brain.store.doctor import check_store
from brain.store.validation import schema_errors
from brain.util.lifetime import usable_cpus

REPO = Path(__file__).resolve().parents[1]

WRITER = r"""
import random, sys
from brain.store.chunk_store import ChunkStore

root, wid, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = random.Random(seed)
store = ChunkStore(root, actor=f"writer-{wid}")
WORDS = ["port", "deploy", "staging", "cache", "schema", "retry", "backup", "review"]
state = {}

def say(mark, cid):
    print(mark, cid, flush=True)

i = 0
while True:
    i += 1
    r = rng.random()
    live = [c for c, s in state.items() if s == "live"]
    archived = [c for c, s in state.items() if s == "archived"]
    if r < 0.5 or not live:
        chunk = store.create_chunk(f"writer {wid} memory {i} about {rng.choice(WORDS)}",
                                   conversation_id=f"conv-{rng.randrange(2)}", tags=["shared", rng.choice(WORDS)])
        say("C", chunk.id)
        state[chunk.id] = "live"
    elif r < 0.6:  # more than 8 specs: the bulk path (no per-file fsync, one sync before the commit); one in five
        # long enough for the helper process to create its last files (BatchWriter.HELPER_AFTER)
        specs = [dict(content=f"writer {wid} batch {i}.{j} on {rng.choice(WORDS)}", conversation_id="conv-0",
                      tags=["shared", "batch"]) for j in range(10 if rng.random() < 0.8 else 160)]
        for chunk in store.create_many(specs):
            say("C", chunk.id)
            state[chunk.id] = "live"
    elif r < 0.72:
        cid = rng.choice(live)
        store.update_chunk(cid, content=f"writer {wid} revised {cid} at {i}", tags=["shared", "revised"])
    elif r < 0.8:
        cid = rng.choice(live)
        say("?", cid)
        store.delete_chunk(cid)
        say("A", cid)
        state[cid] = "archived"
    elif r < 0.86 and archived:
        cid = rng.choice(archived)
        say("?", cid)
        store.restore_chunk(cid)
        say("C", cid)
        state[cid] = "live"
    elif r < 0.92:
        cid = rng.choice(live + archived)
        say("?", cid)
        store.delete_chunk(cid, permanent=True)
        say("D", cid)
        del state[cid]
    else:
        store.get_chunk(rng.choice(live))
"""

MAINTAINER = r"""
import sys, time
from brain.store.chunk_store import ChunkStore

store = ChunkStore(sys.argv[1], actor="maintainer")
while True:
    store.fold_access()
    store.reindex()
    store.sync_derived()
"""

LINE = re.compile(r"\A([CAD?]) (chunk-\d{4}-\d{2}-\d{2}-[0-9a-f]{8})\Z")


def slow_enabled(config) -> bool:
    markexpr = config.getoption("markexpr") or ""
    return os.environ.get("RLM_MEM_SLOW") == "1" or ("slow" in markexpr and "not slow" not in markexpr)


def kill_rounds(root: Path, logs: Path, rounds: int, writers: int, rng: random.Random) -> list:
    """Run the rounds; return every writer's output, in order."""
    env = dict(os.environ, PYTHONPATH=str(REPO), RLM_MEM_LOCK_TIMEOUT="30")
    outputs = []
    for n in range(rounds):
        procs = []
        for w in range(writers):
            out = logs / f"round{n}-writer{w}.txt"
            with open(out, "w") as fh:
                procs.append((subprocess.Popen([sys.executable, "-c", WRITER, str(root), f"{n}.{w}",
                                                str(rng.randrange(10**9))], cwd=REPO, env=env, stdout=fh,
                                               stderr=subprocess.PIPE), out))
        with open(logs / f"round{n}-maintainer.txt", "w") as fh:
            procs.append((subprocess.Popen([sys.executable, "-c", MAINTAINER, str(root)], cwd=REPO, env=env,
                                           stdout=fh, stderr=subprocess.PIPE), None))
        _wait_until_writing([out for _, out in procs if out is not None])
        started = time.monotonic()
        for when, (proc, _) in sorted((rng.uniform(0.25, 1.5), p) for p in procs):
            time.sleep(max(0.0, started + when - time.monotonic()))
            if proc.poll() is not None:  # it died by itself: that is a bug, show why
                pytest.fail(f"a process exited on its own:\n{proc.stderr.read().decode()[-3000:]}")
            proc.send_signal(signal.SIGKILL)
        for proc, out in procs:
            proc.wait()
            proc.stderr.close()
            if out is not None:
                outputs.append(out.read_text())
    return outputs


def _wait_until_writing(outputs: list, limit: float = 60.0) -> None:
    """Start the kill clock once every writer has written something: on a loaded machine a writer can spend a
    second starting up, and a round that kills writers before they write tests nothing."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and not all(out.stat().st_size for out in outputs):
        time.sleep(0.02)


def expected_states(outputs: list) -> dict:
    """id -> live | archived | gone | unknown (killed while changing it), from what the writers printed."""
    state = {}
    for text in outputs:
        for line in text.splitlines():
            m = LINE.match(line)
            if m:  # a torn last line (killed while printing) is ignored: its call had returned anyway
                state[m.group(2)] = {"C": "live", "A": "archived", "D": "gone", "?": "unknown"}[m.group(1)]
    return state


def assert_no_broken_chunk_file(root: Path) -> int:
    paths = sorted((root / "chunks").glob("*/chunk-*.json")) + sorted((root / "archive").glob("chunk-*.json"))
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert schema_errors("chunk", data) == [], path
        assert data["id"] == path.stem, path
    return len(paths)


def crash_and_recover(tmp_path: Path, rounds: int, writers: int, seed: int) -> None:
    root, logs = tmp_path / "mem", tmp_path / "logs"
    logs.mkdir()
    outputs = kill_rounds(root, logs, rounds, writers, random.Random(seed))
    state = expected_states(outputs)
    assert sum(s == "live" for s in state.values()) > rounds, "the writers hardly wrote: the test proves nothing"
    assert_no_broken_chunk_file(root)

    runner = CliRunner()
    repaired = runner.invoke(cli, ["--dir", str(root), "doctor", "--repair"])
    assert repaired.exit_code == 0, repaired.output
    again = runner.invoke(cli, ["--dir", str(root), "doctor", "--json"])
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["ok"] is True
    assert not (root / "quarantine").exists(), "repair had to set a broken chunk file aside"

    store = ChunkStore(root)
    for cid, s in state.items():
        live, archived = store.layout.chunk_path(cid).is_file(), store.layout.archive_path(cid).is_file()
        if s == "live":
            assert live and not archived, f"{cid} was reported saved but is {'archived' if archived else 'lost'}"
        elif s == "archived":
            assert archived and not live, cid
        elif s == "gone":
            assert not live and not archived, cid
        else:
            assert not (live and archived), cid
    indexed = set(json.loads((store.index_dir / "metadata_index.json").read_text())["chunks"])
    assert {cid for cid, s in state.items() if s == "live"} <= indexed


def test_kill_nine_rounds(tmp_path):
    crash_and_recover(tmp_path, rounds=5, writers=3, seed=20260)  # 40 rounds under -m slow


@pytest.mark.slow
@pytest.mark.timeout(900)  # 40 rounds of four writers: about four minutes here, past the default 120 s a test
def test_kill_nine_many_rounds(tmp_path, request):
    if not slow_enabled(request.config):
        pytest.skip("long variant: run with -m slow or RLM_MEM_SLOW=1")
    crash_and_recover(tmp_path, rounds=40, writers=4, seed=int(time.time()))


@pytest.mark.parametrize("dies_in", ["index_commit", "json_pass"])
def test_dying_between_derived_writes_heals_by_itself(tmp_path, dies_in):
    """A writer dying after its chunk file but before the index commit, or the background pass dying after the
    JSON files but before its state file: the next ordinary write and the next pass repair it (no doctor)."""
    from brain.index import json_indexes, search_index

    store = ChunkStore(tmp_path / "mem")
    first = store.create_chunk("first memory about the deploy", tags=["deploy"]).id
    if dies_in == "index_commit":
        with mock.patch.object(search_index, "set_meta", side_effect=KeyboardInterrupt("killed")):
            with pytest.raises(KeyboardInterrupt):
                store.create_chunk("second memory, written as the process died", tags=["deploy"])
    else:
        store.create_chunk("second memory, written before the pass died", tags=["deploy"])
        with mock.patch.object(json_indexes, "atomic_write_text", side_effect=KeyboardInterrupt("killed")):
            with pytest.raises(KeyboardInterrupt):  # the state file is written after the three index files
                store.refresh_json_indexes()
    second = next(p.stem for p in store.layout.iter_chunk_paths() if p.stem != first)  # the file itself is whole
    third = store.create_chunk("third memory after the restart", tags=["deploy"]).id
    assert store.refresh_json_indexes() is True
    report = check_store(store)
    assert report.ok, [p.to_dict() for p in report.problems]
    assert not report.notes, report.notes  # the JSON files are current: doctor compared them byte for byte
    indexed = json.loads((store.index_dir / "metadata_index.json").read_text())["chunks"]
    assert {first, second, third} <= set(indexed)


@pytest.mark.parametrize("size, syncfs_works", [(100, True), (20, True), (100, False)])
def test_a_bulk_batch_is_durable_before_it_is_reported_saved(tmp_path, monkeypatch, size, syncfs_works):
    """A batch of at least SYNCFS_MIN files: one syncfs of its file system (Linux), no fsync a file. A smaller one,
    or where syncfs is missing or fails: every file fsynced. Either way before the index commits, and the index
    records each file's own mtime."""
    from brain.index import search_index
    from brain.util import files

    synced, fsynced, real_syncfs, real_fsync = [], [], files._syncfs, os.fsync
    monkeypatch.setattr(files, "_syncfs", lambda folder: synced.append(folder) or (syncfs_works
                                                                                   and real_syncfs(folder)))
    monkeypatch.setattr(os, "fsync", lambda fd: fsynced.append(os.readlink(f"/proc/self/fd/{fd}")) or real_fsync(fd))
    store = ChunkStore(tmp_path / "memory")
    specs = [dict(content=f"Bulk memory {i} about the ledger", tags=["ledger"]) for i in range(size)]
    made = store.create_many(specs, bulk=True)
    paths = {str(store.layout.chunk_path(c.id)) for c in made}
    chunk_files = {p for p in fsynced if "/chunks/" in p and p.endswith(".json")}
    if size >= files.BatchWriter.SYNCFS_MIN and sys.platform.startswith("linux"):
        assert len(synced) == 1
        assert chunk_files == (set() if syncfs_works else paths)
    else:
        assert synced == [] and chunk_files == paths
    conn = search_index.connect(store.root, readonly=True)
    indexed = dict(conn.execute("SELECT path, mtime_ns FROM chunks"))
    conn.close()
    assert {str(store.root / p): m for p, m in indexed.items()} == {p: os.stat(p).st_mtime_ns for p in paths}


@pytest.mark.parametrize("why", ["kernel before 5.8", "no ctypes", "a file system that may not sync",
                                 "folders on two file systems"])
def test_a_batch_falls_back_to_an_fsync_a_file_where_syncfs_cannot_be_trusted(tmp_path, monkeypatch, why):
    """syncfs(2) reports write-back errors only since Linux 5.8, FUSE and 9p mounts may return 0 without syncing,
    and it syncs one file system: in each case, and without ctypes, every file is fsynced instead (no error)."""
    from brain.util import files

    if not sys.platform.startswith("linux"):
        pytest.skip("syncfs is Linux's")
    folders = [str(tmp_path)]
    assert files._syncfs(folders) is True  # this machine: a local file system, a recent kernel
    if why == "kernel before 5.8":
        monkeypatch.setattr(os, "uname", lambda: os.uname_result(("Linux", "h", "5.4.0-150-generic", "#1", "x86_64")))
    elif why == "no ctypes":
        monkeypatch.setitem(sys.modules, "ctypes", None)
    elif why == "a file system that may not sync":
        monkeypatch.setattr(files, "_file_system_type", lambda folder: "fuse.sshfs")
    else:
        folders.append("/proc/self")
    assert files._syncfs(folders) is False
    fsynced, real_fsync = [], os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: fsynced.append(fd) or real_fsync(fd))
    if why != "folders on two file systems":
        store = ChunkStore(tmp_path / "memory")
        made = store.create_many([dict(content=f"Bulk memory {i}") for i in range(files.BatchWriter.SYNCFS_MIN)],
                                 bulk=True)
        assert len(made) == files.BatchWriter.SYNCFS_MIN and len(fsynced) >= len(made)


# ---------------------------------------------------------------- the helper process of a long batch
def _chunk_files(root: Path) -> dict:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "chunks").rglob("*.json"))}


def test_a_long_batch_s_files_are_written_by_the_helper_exactly_as_the_writer_would(tmp_path, monkeypatch):
    """Past HELPER_AFTER files a batch hands its files to a helper process: the same bytes as a batch written
    without one, each file's own mtime in the index, no temp file left, and the helper gone."""
    from brain.index import search_index
    from brain.util import files

    started, real_start = [], files._start_helper
    monkeypatch.setattr(files, "_start_helper", lambda: started.append(real_start()) or started[-1])
    specs = [dict(content=f"Bulk memory {i} about the ledger's nightly export", tags=["ledger", f"t{i % 7}"],
                  created=f"2026-0{1 + i % 3}-11T10:{i % 60:02d}:00Z", key=f"helper-test:{i}") for i in range(300)]
    written = {}
    for helper_after in (None, 20):
        monkeypatch.setattr(files.BatchWriter, "HELPER_AFTER", helper_after)
        store = ChunkStore(tmp_path / f"memory-{helper_after}")
        assert len(store.create_many([dict(s) for s in specs], bulk=True)) == 300
        written[helper_after] = _chunk_files(store.root)
        conn = search_index.connect(store.root, readonly=True)
        indexed = dict(conn.execute("SELECT path, mtime_ns FROM chunks"))
        conn.close()
        assert indexed == {p: os.stat(store.root / p).st_mtime_ns for p in written[helper_after]}
        assert not list((store.root / "chunks").rglob(".tmp-*"))
    if usable_cpus() < 2:
        assert started == [False]  # one CPU: the writer writes every file itself
    else:
        assert len(started) == 1 and started[0].returncode == 0
    assert len(written[None]) == 300 and written[20] == written[None]


def test_a_helper_that_dies_fails_the_batch_and_leaves_nothing(tmp_path, monkeypatch):
    """A helper that stops reading halfway (killed, out of memory): the batch raises StoreUnwritable, no chunk file
    of it stays on disk, and the store takes the next write."""
    from brain.util import files
    from brain.util.errors import StoreUnwritable

    def dying_helper():
        return subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.buffer.read(5000); sys.exit(3)"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=1 << 16)

    monkeypatch.setattr(files.BatchWriter, "HELPER_AFTER", 10)
    monkeypatch.setattr(files, "_start_helper", dying_helper)
    store = ChunkStore(tmp_path / "memory")
    with pytest.raises(StoreUnwritable, match="nothing was saved"):
        store.create_many([dict(content=f"Doomed bulk memory {i}") for i in range(200)], bulk=True)
    assert _chunk_files(store.root) == {} and not list((store.root / "chunks").rglob(".tmp-*"))
    monkeypatch.setattr(files.BatchWriter, "HELPER_AFTER", None)
    made = store.create_many([dict(content=f"Bulk memory {i}") for i in range(20)], bulk=True)
    report = check_store(store)
    assert len(_chunk_files(store.root)) == 20 and len(made) == 20 and report.ok, [p.to_dict() for p in report.problems]


def test_the_helper_stops_at_its_first_error_and_reads_on(tmp_path):
    """The helper's own loop: a file it cannot write is the batch's error, nothing after it is written, and the
    rest of its input is read so that the writer never blocks on a full pipe. Input that ends inside a frame (the
    writer died while sending it) is not written at all."""
    import io

    from brain.util.file_helper import serve

    cut = str(tmp_path / "cut.json").encode()
    helper = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(REPO)!r}); "
                             f"from brain.util.file_helper import serve; serve({os.getpid()}, sys.stdin.buffer, "
                             "sys.stdout)"], input=b"%d 100\n%s{\"half" % (len(cut), cut), capture_output=True)
    assert helper.returncode == 1 and helper.stdout == b"" and not (tmp_path / "cut.json").exists()

    frames = b""
    for path in (tmp_path / "a.json", tmp_path / "missing" / "b.json", tmp_path / "c.json"):
        name = str(path).encode()
        frames += b"%d %d\n%s%s" % (len(name), 3, name, b"{}\n")
    source, answer = io.BytesIO(frames), io.StringIO()
    serve(os.getppid(), source, answer)
    reply = json.loads(answer.getvalue())
    assert [p for p, _ in reply["mtimes"]] == [str(tmp_path / "a.json")]
    assert reply["error"]["path"] == str(tmp_path / "missing" / "b.json") and reply["error"]["errno"] == 2
    assert source.read() == b"" and sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]
    assert (tmp_path / "a.json").read_bytes() == b"{}\n" and not (tmp_path / "c.json").exists()


@pytest.mark.skipif(not sys.platform.startswith("linux") or usable_cpus() < 2,
                    reason="the helper runs on a second CPU; PR_SET_PDEATHSIG is Linux's")
def test_the_helper_dies_with_its_writer(tmp_path):
    """kill -9 of a writer in the middle of a long batch: its helper is gone at once (another writer may take the
    lock the same instant), nothing is written after the death, and the next write indexes what is on disk."""
    root = tmp_path / "memory"
    code = (f"import sys; sys.path.insert(0, {str(REPO)!r}); from brain.store.chunk_store import ChunkStore; "
            f"ChunkStore({str(root)!r}).create_many([dict(content=f'Bulk memory {{i}} of a long batch') "
            "for i in range(20000)], bulk=True)")
    writer = subprocess.Popen([sys.executable, "-c", code])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list((root / "chunks").rglob("*.json"))) < 400:
        time.sleep(0.02)
    helpers = [p for p in os.listdir("/proc") if p.isdigit() and _cmdline(p).endswith(f"main({writer.pid})")]
    assert helpers, "no helper process was running"
    writer.kill()
    writer.wait()
    time.sleep(0.3)
    assert not [p for p in helpers if _cmdline(p)], "the helper outlived its writer"
    on_disk = _chunk_files(root)
    time.sleep(0.5)
    assert _chunk_files(root) == on_disk
    store = ChunkStore(root)
    store.create_chunk("After the crash")
    report = check_store(store)
    assert report.ok, [p.to_dict() for p in report.problems]
    from brain.index import search_index

    conn = search_index.connect(root, readonly=True)
    indexed = {path for (path,) in conn.execute("SELECT path FROM chunks")}
    conn.close()
    assert indexed == set(_chunk_files(root)) and len(indexed) == len(on_disk) + 1


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def _children(pid: int) -> list:
    """Pids of the live (not zombie) processes whose parent is `pid`."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux") or usable_cpus() < 2,
                    reason="a rebuild parses in other processes only with a second CPU; /proc is Linux's")
def test_a_killed_rebuild_leaves_no_parsing_process_behind(tmp_path):
    """kill -9 of a process rebuilding a large store: its parsing processes (forked, waiting on the rebuild's
    queue) die with it instead of waiting for ever."""
    from brain.store import chunk_store

    root = tmp_path / "memory"
    ChunkStore(root).create_many([dict(content=f"Memory {i} of a store large enough to parse in parallel")
                                  for i in range(chunk_store.PARALLEL_FROM + 500)], bulk=True)
    code = (f"import sys; sys.path.insert(0, {str(REPO)!r}); from brain.store.chunk_store import ChunkStore; "
            f"store = ChunkStore({str(root)!r})\nwhile True: store.reindex()")
    rebuild = subprocess.Popen([sys.executable, "-c", code])
    deadline, parsers = time.monotonic() + 60, []
    while time.monotonic() < deadline and len(parsers) < 2:
        parsers = _children(rebuild.pid)
        time.sleep(0.01)
    assert len(parsers) >= 2, "the rebuild never parsed in other processes"
    rebuild.kill()
    rebuild.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_alive(p) for p in parsers):
        time.sleep(0.05)
    left = [p for p in parsers if _alive(p)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)  # (so that a failure leaves nothing running either)
    assert not left, f"{len(left)} parsing process(es) outlived the rebuild"


@pytest.mark.skipif(usable_cpus() < 2, reason="the helper runs on a second CPU")
def test_the_helper_writes_no_bytecode_into_an_installed_copy(tmp_path):
    """An installed plugin's copy gets no bytecode written in it (hooks and the worker keep it under the cache
    folder, sys.pycache_prefix): the helper process of a long batch keeps its own there too."""
    import shutil

    bundle, cache = tmp_path / "plugin-copy", tmp_path / "cache"
    for folder in ("brain", "schemas"):
        shutil.copytree(REPO / folder, bundle / folder, ignore=shutil.ignore_patterns("__pycache__"))
    code = (f"import sys; sys.path.insert(0, {str(bundle)!r}); from brain.store.chunk_store import ChunkStore; "
            f"ChunkStore({str(tmp_path / 'memory')!r}).create_many([dict(content=f'Bulk memory {{i}}') "
            "for i in range(300)], bulk=True)")
    subprocess.run([sys.executable, "-I", "-X", f"pycache_prefix={cache}", "-c", code], check=True,
                   env=dict(os.environ, PYTHONPATH=""))
    assert len(list((tmp_path / "memory" / "chunks").rglob("chunk-*.json"))) == 300
    assert not list(bundle.rglob("__pycache__")) and not list(bundle.rglob("*.pyc"))
    assert list(cache.rglob("file_helper*.pyc")), "the helper did not run, or kept no bytecode"
