"""Claude Code's auto memory: MEMORY.md index plus typed topic files."""
from pathlib import Path

import pytest

from brain.interop import detect_format, import_path
from brain.store.chunk_store import ChunkStore

CLAUDE = Path(__file__).parent / "fixtures" / "import" / "claude-memory"


@pytest.fixture
def store(tmp_path):
    return ChunkStore(tmp_path / "memory", actor="test")


def test_topic_files_and_index_notes(store):
    report = import_path(store, "claude-memory", [CLAUDE])
    assert report.created == 5
    assert [Path(e.path).name for e in report.errors] == ["broken_yaml_topic.md"]
    chunks = {c.metadata["original_type"]: c for c in store.list_chunks()}
    assert sorted(chunks) == ["feedback", "index-note", "project", "reference", "user"]
    assert {t: chunks[t].type for t in ("user", "feedback", "project", "reference")} == {
        "user": "fact", "feedback": "preference", "project": "fact", "reference": "note"}
    feedback = chunks["feedback"]
    assert feedback.kind == "preference"
    assert feedback.metadata["title"] == "Integration tests hit a real database"  # the index's link text
    assert "Integration tests must run against a real Postgres" in feedback.content  # the description
    assert "How to apply: use the docker-compose Postgres" in feedback.content
    assert feedback.metadata["extra"]["claude_memory_file"] == "feedback_real_database_in_tests.md"
    note = chunks["index-note"]
    assert note.content == "The user reads replies on a phone in the mornings, so keep the first line short."
    assert all(c.metadata["provenance"]["format"] == "claude-memory" for c in chunks.values())


def test_index_file_path_means_the_whole_folder(store):
    assert detect_format(CLAUDE / "MEMORY.md") == "claude-memory"
    assert import_path(store, "auto", [CLAUDE / "MEMORY.md"]).created == 5


def test_single_topic_file_without_index_uses_its_own_name(store):
    report = import_path(store, "auto", [CLAUDE / "user_role.md"])
    assert report.created == 1
    (chunk,) = store.list_chunks()
    assert chunk.metadata["title"] == "user role"


def test_import_twice_adds_nothing(store):
    import_path(store, "claude-memory", [CLAUDE])
    again = import_path(store, "claude-memory", [CLAUDE])
    assert again.created == 0 and again.skipped_existing == 5
