"""An index made by an older rlm-mem (search.db's meta.schema): recall reads it as it is, the detached worker
rebuilds it in one transaction (a writer killed half-way leaves the old index whole), session start never waits
on that rebuild, and an index from a newer rlm-mem is left alone."""
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
