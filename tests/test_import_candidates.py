"""MEMORY_CANDIDATES blocks: from a file or stdin, categories kept, idempotent without any time in the source."""
import io
from pathlib import Path

import pytest

from brain.capture.candidates import format_candidates
from brain.interop import import_path
from brain.store.chunk_store import ChunkStore

CANDIDATES = Path(__file__).parent / "fixtures" / "import" / "candidates"


@pytest.fixture
def store(tmp_path):
    return ChunkStore(tmp_path / "memory", actor="test")


def test_block_in_a_file(store):
    report = import_path(store, "candidates", [CANDIDATES / "system_notes.txt"])
    assert report.created == 3 and not report.errors
    chunks = {c.metadata["extra"]["candidate_file"]: c for c in store.list_chunks()}
    commits = chunks["user_prefers_small_focused_commits.md"]
    assert commits.content == "The user wants one logical change per commit, with a message that says why."
    assert commits.metadata["category"] == "present" and commits.tags == ["git", "preference"]
    assert commits.metadata["title"] == "user prefers small focused commits"
    assert chunks["migrated_ci_to_self_hosted_runners.md"].metadata["category"] == "past"
    assert chunks["next_step_add_load_tests.md"].metadata["category"] == "future"


def test_block_from_stdin(store):
    text = format_candidates([{"filename": "team_uses_trunk_based_development.md", "category": "present",
                               "tags": ["git"], "content": "Everyone merges to main at least daily."}])
    report = import_path(store, "candidates", ["-"], stdin=io.StringIO(text))
    assert report.created == 1
    (chunk,) = store.list_chunks()
    assert chunk.metadata["provenance"]["file"] == "<stdin>"
    assert chunk.content == "Everyone merges to main at least daily."


def test_reimport_on_another_day_adds_nothing(store, monkeypatch):
    import brain.interop.writer as writer

    text = (CANDIDATES / "system_notes.txt").read_text()
    import_path(store, "candidates", ["-"], stdin=io.StringIO(text))
    # no time in a candidates block: the id's date is the import day, so a later day must still find them
    monkeypatch.setattr(writer, "utc_now", lambda: "2031-05-05T05:05:05Z")
    again = import_path(store, "candidates", ["-"], stdin=io.StringIO(text))
    assert again.created == 0 and again.skipped_existing == 3
    assert len(store.list_chunks()) == 3


def test_text_without_candidates_is_a_bad_path(store):
    report = import_path(store, "candidates", [CANDIDATES / "nothing_here.txt"])
    assert report.created == 0 and report.bad_paths == [str(CANDIDATES / "nothing_here.txt")]
    assert "no MEMORY_CANDIDATES items" in report.errors[0].message


def test_stdin_is_only_for_candidates(store):
    report = import_path(store, "jsonl", ["-"], stdin=io.StringIO('{"content": "x"}\n'))
    assert report.bad_paths == ["-"] and report.created == 0
