"""Derived data heals itself (issue 13, item 5): a missing or damaged search index or JSON index is rebuilt, in the
background when a hook finds it, and never fails a write; a permanent delete purges the text from every derived
file at once; writes and reindex serialise; a write that fails says exactly what was and was not saved."""
import json
import os
import shutil
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner
from harness.claude_code import BUNDLE_ROOT, fire

from brain.capture.queue import worker_running
from brain.cli.main import cli
from brain.index import fingerprint, json_indexes, search_index
from brain.index.json_indexes import FILES
from brain.recall.recall import recall
from brain.scripts import ChunkStore
from brain.session.maintenance import bring_derived_current
from brain.store.doctor import check_store

RLM = str(BUNDLE_ROOT / ".venv" / "bin" / "rlm-mem")


def rlm(*args, env=None):
    return subprocess.run([RLM, *args], capture_output=True, text=True, env=env)


def a_store(root) -> ChunkStore:
    store = ChunkStore(root)
    store.create_chunk("The staging database listens on port 5433", tags=["db"], metadata={"project": "app"})
    store.create_chunk("Deploys go out on Tuesdays after the review", tags=["deploy"], metadata={"project": "app"})
    return store


def damage(root) -> None:
    """What the issue found: a search.db that is not a database any more."""
    for suffix in ("-wal", "-shm"):
        try:
            os.unlink(search_index.db_path(root) + suffix)
        except FileNotFoundError:
            pass
    with open(search_index.db_path(root), "wb") as fh:
        fh.write(b"this is not a database\n" * 200)


def json_files(store) -> dict:
    return {name: (store.index_dir / name).read_bytes() for name in FILES}


def fresh_json(store, tmp_path) -> dict:
    """The JSON index files a reindex of a copy of the chunk files makes."""
    copy = ChunkStore(tmp_path / "copy")
    copy.root.mkdir()
    subprocess.run(["cp", "-a", str(store.chunks_dir), str(copy.root)], check=True)
    copy.reindex()
    return json_files(copy)


# ---------------------------------------------------------------- a damaged or missing search index
@pytest.mark.parametrize("how", ["garbage", "missing"])
def test_a_write_never_fails_because_the_search_index_is_damaged(isolated_memory, how):
    a_store(isolated_memory)
    damage(isolated_memory) if how == "garbage" else os.unlink(search_index.db_path(isolated_memory))
    assert search_index.staleness(isolated_memory) == "damaged"
    made = rlm("remember", "The billing service listens on port 8087")
    assert made.returncode == 0, made.stderr
    assert search_index.staleness(isolated_memory) is None  # rebuilt from the chunk files by the write itself
    for question, answer in (("which port does staging listen on?", "5433"), ("billing service port", "8087")):
        found = rlm("recall", "--all-projects", question)  # a_store files its memories under project "app"
        assert found.returncode == 0 and answer in found.stdout, found.stdout + found.stderr
    assert check_store(ChunkStore(isolated_memory)).ok


def test_a_hook_that_finds_a_damaged_index_has_the_worker_rebuild_it(tmp_path, isolated_memory):
    project = tmp_path / "project"
    project.mkdir()
    (project / ".rlm-mem.json").write_text('{"project": "app"}')
    a_store(isolated_memory)
    damage(isolated_memory)
    assert fingerprint.derived_behind(isolated_memory)
    started = time.monotonic()
    run = fire("SessionStart", {"session_id": "s", "cwd": str(project), "source": "startup"})[0]
    assert run.returncode == 0 and "RLM-MEM LIVEHUD" in run.context  # served at once, without waiting
    assert run.seconds < 5
    deadline = started + 60  # the detached worker it started rebuilds the index
    while time.monotonic() < deadline and (search_index.staleness(isolated_memory) or worker_running(isolated_memory)):
        time.sleep(0.1)
    assert search_index.staleness(isolated_memory) is None
    prompt = fire("UserPromptSubmit", {"session_id": "s", "cwd": str(project),
                                       "prompt": "which port does the staging database listen on?"})[0]
    assert prompt.returncode == 0 and "5433" in prompt.context


def test_damaged_or_missing_json_indexes_are_rewritten_by_the_background_pass(isolated_memory, tmp_path):
    store = a_store(isolated_memory)
    store.refresh_json_indexes()
    assert not fingerprint.derived_behind(isolated_memory)
    (store.index_dir / "metadata_index.json").write_text("{not json")
    (store.index_dir / "tag_index.json").unlink()
    bring_derived_current(store)  # what the worker does (its interval does not hold back damaged files)
    assert json_files(store) == fresh_json(store, tmp_path)
    assert check_store(store).ok and not check_store(store).notes


# ---------------------------------------------------------------- the JSON indexes' freshness contract
def test_json_indexes_leave_the_write_path_and_the_pass_makes_them_equal_a_reindex(isolated_memory, tmp_path):
    store = a_store(isolated_memory)
    assert not (store.index_dir / "metadata_index.json").exists()  # no write touched them
    assert fingerprint.derived_behind(isolated_memory)  # so a session start starts the worker
    assert store.refresh_json_indexes() is True
    assert not fingerprint.derived_behind(isolated_memory)
    assert store.refresh_json_indexes() is False  # current: nothing rewritten
    before = json_files(store)
    store.create_chunk("A third memory about the cache", tags=["cache"])
    assert json_files(store) == before  # the write left them alone...
    assert not fingerprint.derived_behind(isolated_memory)  # ...and a session start now would not start a pass,
    later = time.time_ns() + 601 * 10**9  # ...but one ten minutes after the last pass would
    assert fingerprint.derived_behind(isolated_memory, now_ns=later)
    assert "behind" in " ".join(check_store(store).notes)
    assert store.refresh_json_indexes() is True
    assert json_files(store) == fresh_json(store, tmp_path)


def test_share_refresh_forces_the_json_indexes_current(isolated_memory):
    store = a_store(isolated_memory)
    result = CliRunner().invoke(cli, ["share", "refresh"])
    assert result.exit_code == 0, result.output
    state = json_indexes.read_state(store.index_dir)
    conn = search_index.connect(isolated_memory, readonly=True)
    try:
        assert (state["epoch"], state["generation"]) == search_index.generation(conn)
    finally:
        conn.close()


# ---------------------------------------------------------------- forget --permanent
SECRET_WORDS = "Zorblaxian quintessential frobnication of the wibbleton manifold"
MARKERS = (b"orblaxian", b"wibbleton", b"robnicat")  # word tails: full-text segments store words prefix-compressed


def files_holding(root, markers) -> list:
    found = []
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            with open(path, "rb") as fh:
                data = fh.read()
            if any(m in data for m in markers):
                found.append(os.path.relpath(path, root))
    return sorted(found)


def test_forget_permanent_purges_the_text_from_every_derived_file(tmp_path, isolated_memory):
    project = tmp_path / "project"
    project.mkdir()
    (project / ".rlm-mem.json").write_text('{"project": "app"}')
    store = a_store(isolated_memory)
    for i in range(30):  # enough rows that the full-text index has several segments
        store.create_chunk(f"Filler memory {i} about the build pipeline", metadata={"project": "app"})
    secret = store.create_chunk(SECRET_WORDS, tags=["wibbleton"], metadata={"project": "app", "pinned": True}).id
    for i in range(10):
        store.create_chunk(f"Later memory {i} about the release train", metadata={"project": "app"})
    store.refresh_json_indexes()
    from brain.recall.core import build_core, write_core
    from brain.store.episodes import append_episode

    write_core(isolated_memory, build_core(isolated_memory, "app")["text"], project="app")
    append_episode(isolated_memory, None, "Zorblaxian notes", secret, "fact", ["wibbleton"], SECRET_WORDS)
    started = fire("SessionStart", {"session_id": "s", "cwd": str(project), "source": "startup"},
                   env=dict(os.environ, RLM_MEM_BACKGROUND="0"))[0]
    assert "Zorblaxian" in started.context  # the cached brief holds it too
    store.delete_chunk(store.get_chunk(secret, track=False).id)  # archived: the archive keeps it, the index not
    held = files_holding(isolated_memory, MARKERS)
    assert any(name.startswith("index/search.db") for name in held), held  # the detector sees old FTS segments
    result = CliRunner().invoke(cli, ["forget", secret, "--permanent"])
    assert result.exit_code == 0, result.output
    assert files_holding(isolated_memory, MARKERS) == []
    conn = search_index.connect(isolated_memory, readonly=True)
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, fts, 'row')")
        assert not conn.execute("SELECT term FROM temp.vocab WHERE term LIKE '%wibbleton%'").fetchall()
    finally:
        conn.close()
    assert check_store(store).ok


# ---------------------------------------------------------------- writes and reindex serialise
WRITER = r"""
import sys
from brain.scripts import ChunkStore
from brain.store.lifecycle import remember_memory
store = ChunkStore(sys.argv[1])
for i in range(int(sys.argv[2])):
    remember_memory(store, f"Serialised memory number {i} about queue {i * 7}", project="app")
    print(i, flush=True)
"""

REINDEXER = r"""
import os, sys
from brain.scripts import ChunkStore
store = ChunkStore(sys.argv[1])
n = 0
while not os.path.exists(sys.argv[2]) or n < 2:  # until the writer is done
    store.reindex()
    n += 1
print(n)
"""


def test_remember_during_reindex_never_fails(isolated_memory, tmp_path):
    a_store(isolated_memory)
    env = dict(os.environ, PYTHONPATH=str(BUNDLE_ROOT), RLM_MEM_LOCK_TIMEOUT="60")
    done = tmp_path / "writer-done"
    reindexer = subprocess.Popen([sys.executable, "-c", REINDEXER, str(isolated_memory), str(done)], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    writer = subprocess.run([sys.executable, "-c", WRITER, str(isolated_memory), "25"], env=env,
                            capture_output=True, text=True, timeout=100)
    done.touch()
    out, err = reindexer.communicate(timeout=100)
    assert writer.returncode == 0, writer.stderr[-2000:]
    assert reindexer.returncode == 0, err[-2000:]
    assert int(out) >= 2, "the reindexer hardly ran: the test proves nothing"
    store = ChunkStore(isolated_memory)
    assert len(store.list_chunks()) == 27
    assert len(recall(isolated_memory, "serialised memory queue", track=False, limit=100).items) >= 1
    assert check_store(store).ok


# ---------------------------------------------------------------- a full disk: what was and was not saved
@pytest.fixture
def full_disk():
    """full_disk(folder): a small tmpfs mounted at `folder` (its present files copied in) and filled up, so that
    writing there fails with ENOSPC: a real full file system (skipped where this process may not mount one)."""
    mounted = []

    def mount(folder):
        saved = folder.with_name(folder.name + "-saved")
        if folder.exists():
            shutil.copytree(folder, saved, symlinks=True)
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", str(folder)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a small tmpfs here ({done.stderr.strip()[:80]}): the full-disk cases need one")
        mounted.append(folder)
        if saved.exists():
            shutil.copytree(saved, folder, symlinks=True, dirs_exist_ok=True)
        with os.fdopen(os.open(folder / "filler", os.O_WRONLY | os.O_CREAT, 0o600), "wb", buffering=0) as fh:
            try:
                while True:
                    fh.write(b"\0" * 4096)
            except OSError:
                pass
        return folder

    def unmount(folder):
        """The full file system away: the folder as it was before (the copy), whatever was written meanwhile lost."""
        subprocess.run(["umount", str(folder)], check=True)
        mounted.remove(folder)
        saved = folder.with_name(folder.name + "-saved")
        if saved.exists():
            shutil.copytree(saved, folder, symlinks=True, dirs_exist_ok=True)

    mount.unmount = unmount
    yield mount
    for folder in reversed(mounted):
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def test_a_full_disk_for_the_chunk_files_saves_nothing_and_says_so(isolated_memory, full_disk):
    store = ChunkStore(isolated_memory)
    old = store.create_chunk("The staging database listens on port 5433", created="2025-06-01T10:00:00Z").id
    month = full_disk(store.layout.chunks_dir / time.strftime("%Y-%m", time.gmtime()))  # where new memories go
    made = rlm("remember", "The billing service listens on port 8087")
    assert made.returncode == 1 and "nothing was saved" in made.stderr and "No space left" in made.stderr
    assert made.stdout == ""
    specs = [dict(content=f"Bulk memory {i} about the ledger", tags=["ledger"]) for i in range(30)]
    with pytest.raises(Exception, match="nothing was saved"):
        store.create_many(specs, bulk=True)  # written on a pool of threads: the failure still undoes the batch
    assert not list(month.glob("chunk-*.json")) and not list(month.glob(".tmp-*"))
    assert [c.id for c in store.list_chunks()] == [old]
    report = check_store(store)
    assert report.ok, [p.to_dict() for p in report.problems]


def test_a_full_disk_for_the_index_or_the_audit_log_keeps_the_memory_and_says_so(isolated_memory, full_disk):
    store = a_store(isolated_memory)
    store.refresh_json_indexes()
    index = full_disk(store.index_dir)
    made = rlm("remember", "The billing service listens on port 8087")
    assert made.returncode == 0, made.stderr
    chunk_id = made.stdout.strip()
    assert store.layout.chunk_path(chunk_id).is_file()  # saved: the person must not retry
    assert f"saved {chunk_id}" in made.stderr and "search index could not be updated" in made.stderr
    full_disk.unmount(index)
    again = rlm("remember", "Deploy windows are on Wednesdays")  # room again: this write indexes the first too
    assert again.returncode == 0, again.stderr
    found = rlm("recall", "which port does the billing service listen on?")
    assert "8087" in found.stdout, found.stdout + found.stderr
    assert [c.id for c in ChunkStore(isolated_memory).list_chunks() if "8087" in c.content] == [chunk_id]
    shutil.rmtree(isolated_memory / "audit")  # this month's audit file is to be made: it needs a block
    full_disk(isolated_memory / "audit")
    made = rlm("remember", "The cache evicts entries after ten minutes")
    assert made.returncode == 0, made.stderr
    assert "the audit line could not be written" in made.stderr and made.stdout.strip() in made.stderr


def test_the_background_pass_coalesces_writes_but_never_waits_on_damage(isolated_memory):
    store = a_store(isolated_memory)
    bring_derived_current(store)
    written = json_files(store)
    store.create_chunk("A memory written just after the pass", tags=["db"])
    bring_derived_current(store)  # behind by one write, written moments ago: it waits for more
    assert json_files(store) == written and not fingerprint.derived_behind(isolated_memory)
    state = json_indexes.state_path(store.index_dir)
    past = time.time() - 11 * 60
    os.utime(state, (past, past))  # the files were written eleven minutes ago
    bring_derived_current(store)
    assert json_files(store) != written and not fingerprint.derived_behind(isolated_memory)
    store.create_chunk("Another memory", tags=["db"])
    (store.index_dir / "link_graph.json").write_text("{}")  # damaged: a session start sees it, the pass rewrites it
    assert fingerprint.derived_behind(isolated_memory)
    bring_derived_current(store)
    assert json.loads((store.index_dir / "link_graph.json").read_text())["links"]
