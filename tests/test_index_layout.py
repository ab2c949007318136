"""An index made by an older rlm-mem (search.db's meta.schema): recall reads it as it is, the detached worker
rebuilds it in one transaction (a writer killed half-way leaves the old index whole), session start never waits
on that rebuild, and an index from a newer rlm-mem is left alone."""
import os
import subprocess
import sys
from datetime import date

from harness.claude_code import BUNDLE_ROOT, fire

from brain.index import search_index
from brain.recall.recall import RecallResult, recall
from brain.scripts import ChunkStore
from brain.util.timeref import resolved, stored_spans

RLM = str(BUNDLE_ROOT / ".venv" / "bin" / "rlm-mem")


def older_layout(root, version="3"):
    """What an index made before schema 4 looks like: no when_note / when_spans columns."""
    conn = search_index.connect(root)
    conn.execute("UPDATE meta SET value=? WHERE key='schema'", (version,))
    conn.execute("ALTER TABLE chunks DROP COLUMN when_note")
    conn.execute("ALTER TABLE chunks DROP COLUMN when_spans")
    conn.close()


def layout(root):
    conn = search_index.connect(root, readonly=True)
    try:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(chunks)")}
        return search_index.schema_version(conn), "when_note" in columns, search_index.chunk_count(conn)
    finally:
        conn.close()


def a_store(root):
    store = ChunkStore(root)
    store.create_chunk("The staging database listens on port 5433; we moved it yesterday.",
                       created="2026-11-02T09:00:00Z", metadata={"project": "app"})
    return store


def test_a_writer_killed_during_the_rebuild_leaves_the_older_index_whole(isolated_memory):
    a_store(isolated_memory)
    older_layout(isolated_memory)
    script = ("import os, sys; from brain.scripts import ChunkStore\n"
              "ctx = ChunkStore(sys.argv[1])._writing().__enter__()  # dropped, recreated, re-indexed: not committed\n"
              "os._exit(9)\n")
    p = subprocess.run([sys.executable, "-c", script, str(isolated_memory)], cwd=BUNDLE_ROOT)
    assert p.returncode == 9
    assert layout(isolated_memory) == ("3", False, 1)  # rolled back: still the old layout, still its row
    assert search_index.staleness(isolated_memory) == "layout"
    ChunkStore(isolated_memory).sync_derived()
    assert layout(isolated_memory) == (search_index.SCHEMA_VERSION, True, 1)
    assert search_index.staleness(isolated_memory) is None


def test_session_start_leaves_the_rebuild_to_the_worker_and_still_serves_memory(tmp_path, isolated_memory,
                                                                               monkeypatch):
    monkeypatch.setenv("RLM_MEM_BACKGROUND", "0")  # no detached worker: what the hook itself does is checked
    project = tmp_path / "project"
    project.mkdir()
    (project / ".rlm-mem.json").write_text('{"project": "app"}')
    a_store(isolated_memory)
    older_layout(isolated_memory)
    run = fire("SessionStart", {"session_id": "s", "cwd": str(project), "source": "startup"})[0]
    assert run.returncode == 0 and "5433" in run.context
    assert layout(isolated_memory)[:2] == ("3", False)  # not rebuilt inside the hook
    prompt = fire("UserPromptSubmit", {"session_id": "s", "cwd": str(project),
                                       "prompt": "which port does the staging database listen on?"})[0]
    assert prompt.returncode == 0 and "5433" in prompt.context  # recall reads the older layout meanwhile
    worker = subprocess.run([RLM, "ingest", "--background"], capture_output=True, text=True)
    assert worker.returncode == 0, worker.stderr
    assert layout(isolated_memory) == (search_index.SCHEMA_VERSION, True, 1)
    prompt = fire("UserPromptSubmit", {"session_id": "s", "cwd": str(project),
                                       "prompt": "which port does the staging database listen on?"})[0]
    assert "(yesterday = 2026-11-01 (Sun))" in prompt.context


def test_an_index_from_a_newer_rlm_mem_is_not_dropped(isolated_memory):
    store = a_store(isolated_memory)
    conn = search_index.connect(isolated_memory)
    conn.execute("UPDATE meta SET value='99' WHERE key='schema'")
    conn.close()
    assert search_index.staleness(isolated_memory) is None
    store.create_chunk("Another memory", metadata={"project": "app"})
    assert layout(isolated_memory) == ("99", True, 2)


def test_dates_that_cannot_be_resolved_are_left_out_not_a_failed_write(isolated_memory):
    assert resolved("See you next year, and tomorrow too", "9999-12-31T10:00:00Z") == ("", "")
    assert resolved("yesterday", "not a date") == ("", "")
    note, spans = resolved("I went there yesterday and last week", "2023-05-08T13:56:00Z")
    assert note == " (yesterday = 2023-05-07 (Sun); last week = 2023-05-01..2023-05-07)"
    assert stored_spans(spans) == [(date(2023, 5, 7), date(2023, 5, 7)), (date(2023, 5, 1), date(2023, 5, 7))]
    store = ChunkStore(isolated_memory)
    made = store.create_chunk("Next year we migrate again.", created="9999-12-31T10:00:00Z")
    assert store.get_chunk(made.id) is not None and search_index.staleness(isolated_memory) is None


def test_the_legend_is_given_even_when_only_other_projects_have_memory(tmp_path, isolated_memory, monkeypatch):
    monkeypatch.setenv("RLM_MEM_BACKGROUND", "0")
    ChunkStore(isolated_memory).create_chunk("The billing service runs on Postgres 16",
                                             metadata={"project": "billing"})
    project = tmp_path / "fresh"
    project.mkdir()
    run = fire("SessionStart", {"session_id": "s", "cwd": str(project), "source": "startup"})[0]
    assert run.returncode == 0 and RecallResult.LEGEND in run.context
    assert not recall(isolated_memory, "which Postgres does billing run on?", project="other", track=False).items
    assert recall(isolated_memory, "which Postgres does billing run on?", project=None, track=False).items


def indexed_count(root) -> tuple:
    """(the kept chunk count, count(*) of the rows): they must agree."""
    conn = search_index.connect(root, readonly=True)
    try:
        return search_index.chunk_count(conn), conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    finally:
        conn.close()


def test_the_chunk_count_follows_every_write_without_triggers(isolated_memory):
    store = a_store(isolated_memory)
    made = store.create_many([dict(content=f"Bulk memory {i} about the ledger", tags=["ledger"]) for i in range(20)],
                             bulk=True)
    assert indexed_count(isolated_memory) == (21, 21)
    store.revise_chunk(made[0].id, content="Bulk memory 0 about the ledger, revised")
    store.delete_chunk(made[1].id)
    store.archive_many([made[2].id, made[3].id])
    assert indexed_count(isolated_memory) == (18, 18)
    store.reindex()
    assert indexed_count(isolated_memory) == (18, 18)


def test_an_index_counting_by_triggers_is_brought_up_to_date_in_place(isolated_memory):
    """Layout 7 kept the count with triggers: the next writer drops them and recounts, without re-indexing."""
    store = a_store(isolated_memory)
    conn = search_index.connect(isolated_memory)
    conn.execute("UPDATE meta SET value='7' WHERE key='schema'")
    conn.execute("CREATE TRIGGER chunks_counted_in AFTER INSERT ON chunks "
                 "BEGIN UPDATE counts SET value = value + 1 WHERE name = 'chunks'; END")
    conn.execute("UPDATE counts SET value = 40 WHERE name='chunks'")  # wrong, as an older writer may have left it
    epoch = search_index.get_meta(conn, "epoch")
    conn.close()
    assert search_index.staleness(isolated_memory) == "layout"
    store.create_chunk("Another memory", metadata={"project": "app"})
    conn = search_index.connect(isolated_memory, readonly=True)
    triggers = conn.execute("SELECT name FROM sqlite_master WHERE type='trigger'").fetchall()
    assert triggers == [] and search_index.get_meta(conn, "epoch") == epoch  # the same index, not a rebuilt one
    conn.close()
    assert layout(isolated_memory) == (search_index.SCHEMA_VERSION, True, 2)
    assert indexed_count(isolated_memory) == (2, 2)


def test_a_bulk_write_keeps_the_full_text_rows_in_memory_until_it_commits(isolated_memory, monkeypatch):
    """FTS5 writes its pending rows out at every statement savepoint; a statement on `chunks` that opened one (a
    trigger did) made each chunk a segment of its own to merge: 2,000 chunks cost 6,325 writes of full-text
    pages instead of 62, and the import rate fell by a fifth."""
    writes = []
    connect = search_index.connect_for_writing

    def traced(root):
        conn, replaced = connect(root)
        conn.set_trace_callback(lambda sql: writes.append(sql) if "'fts_data'" in sql and "DELETE" not in sql
                                else None)
        return conn, replaced

    monkeypatch.setattr(search_index, "connect_for_writing", traced)
    store = ChunkStore(isolated_memory)
    specs = [dict(content=f"Bulk memory {i} about the ledger service and its port {8000 + i}", tags=["ledger"])
             for i in range(300)]
    store.create_many(specs, bulk=True)
    assert len(ChunkStore(isolated_memory).list_chunks()) == 300
    assert len(writes) < 40, len(writes)


def test_the_count_triggers_an_older_install_makes_again_are_dropped_by_the_next_write(isolated_memory):
    """Two installs on one store (the plugin's hooks and an older CLI): the older one's schema script creates the
    triggers again on an index of layout 8; with them and the counting in insert_many every row counted twice."""
    store = a_store(isolated_memory)
    conn = search_index.connect(isolated_memory)
    conn.execute("CREATE TRIGGER IF NOT EXISTS chunks_counted_in AFTER INSERT ON chunks "
                 "BEGIN UPDATE counts SET value = value + 1 WHERE name = 'chunks'; END")
    conn.execute("INSERT INTO chunks(id, created, type, tokens, path, content) "
                 "VALUES('chunk-2026-11-03-00000001', '2026-11-03T09:00:00Z', 'fact', 3, 'p', 'older install')")
    conn.close()
    assert indexed_count(isolated_memory) == (2, 2)  # the older install counted its row through the trigger
    store.create_many([dict(content=f"Bulk memory {i} about the ledger") for i in range(5)], bulk=True)
    conn = search_index.connect(isolated_memory, readonly=True)
    assert conn.execute("SELECT name FROM sqlite_master WHERE type='trigger'").fetchall() == []
    conn.close()
    assert indexed_count(isolated_memory)[0] == indexed_count(isolated_memory)[1]


def test_readers_map_the_index_and_no_writer_shrinks_the_file(isolated_memory):
    """The hooks' readers (recall, the brief) map search.db rather than read it page by page; readers that stream
    all of it do not (their peak memory would count every page touched). A mapping is only safe
    while no writer truncates the file under it: deleting for good (merge, checkpoint) and a full reindex keep
    the same file at no smaller size."""
    store = ChunkStore(str(isolated_memory))
    ids = [store.create_chunk(f"memory number {n} about the staging database " * 20).id for n in range(60)]
    reader = search_index.connect(store.root, readonly=True, mapped=True)
    assert reader.execute("PRAGMA mmap_size").fetchone()[0] == search_index.READ_MMAP_BYTES
    streaming = search_index.connect(store.root, readonly=True)  # the JSON pass and the like read it all: no map
    assert streaming.execute("PRAGMA mmap_size").fetchone()[0] == 0
    streaming.close()
    assert reader.execute("SELECT count(*) FROM chunks").fetchone()[0] == 60
    path = search_index.db_path(store.root)
    inode, size = os.stat(path).st_ino, os.path.getsize(path)
    for chunk_id in ids[:50]:
        store.delete_chunk(chunk_id, permanent=True)
    store.reindex()
    assert os.stat(path).st_ino == inode and os.path.getsize(path) >= size
    assert reader.execute("SELECT count(*) FROM chunks").fetchone()[0] == 10  # the mapping reads the new rows
    reader.close()
