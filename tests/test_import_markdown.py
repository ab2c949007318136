"""rlm-mem's markdown format read by hand: partial files, unquoted YAML dates, conflicts, bad files."""
from pathlib import Path

import pytest

from brain.interop import detect_format, export_store, import_path
from brain.store.chunk_store import ChunkStore

MARKDOWN = Path(__file__).parent / "fixtures" / "import" / "markdown"


@pytest.fixture
def store(tmp_path):
    return ChunkStore(tmp_path / "memory", actor="test")


def test_hand_written_file_becomes_a_memory(store):
    assert detect_format(MARKDOWN) == "markdown"
    report = import_path(store, "auto", [MARKDOWN])
    assert report.created == 1 and [Path(e.path).name for e in report.errors] == ["not_yaml.md"]
    (chunk,) = store.list_chunks()
    assert chunk.type == "fact" and chunk.tags == ["docs"] and chunk.metadata["title"] == "Docs build"
    assert chunk.created == "2026-01-08T00:00:00Z"  # an unquoted YAML date, read as text again
    assert chunk.content == "The documentation site builds with mkdocs and deploys from the gh-pages branch."
    assert import_path(store, "markdown", [MARKDOWN]).created == 0


def test_hand_edited_export_with_unquoted_timestamps_still_restores(store, tmp_path):
    store.create_chunk("The build cache lives on the NAS.", created="2026-02-02T10:00:00Z")
    export_store(store, "markdown", tmp_path / "out")
    (path,) = (tmp_path / "out").rglob("*.md")
    path.write_text(path.read_text().replace("created: '2026-02-02T10:00:00Z'", "created: 2026-02-02T10:00:00Z"))
    other = ChunkStore(tmp_path / "other", actor="test")
    report = import_path(other, "markdown", [path])
    assert report.created == 1 and not report.errors
    assert other.list_chunks()[0].to_dict() == store.list_chunks()[0].to_dict()


def test_same_id_with_other_content_is_reported_not_overwritten(store, tmp_path):
    chunk = store.create_chunk("The queue is RabbitMQ.", created="2026-02-03T10:00:00Z")
    export_store(store, "markdown", tmp_path / "out")
    (path,) = (tmp_path / "out").rglob("*.md")
    path.write_text(path.read_text().replace("The queue is RabbitMQ.", "The queue is Kafka."))
    report = import_path(store, "markdown", [path])
    assert report.created == 0 and "already stored with other content" in report.errors[0].message
    assert store.get_chunk(chunk.id, track=False).content == "The queue is RabbitMQ."


def test_invalid_whole_chunk_is_reported(store, tmp_path):
    bad = tmp_path / "bad.md"
    bad.write_text("---\nid: chunk-2026-02-03-0000abcd\ntype: opinion\ntokens: 3\ntags: []\n"
                   "metadata: {created: '2026-02-03T00:00:00Z', conversation_id: null, source: import,"
                   " confidence: 0.8, access_count: 0, last_accessed: null}\nlinks: {}\n---\n\nSome words.\n")
    report = import_path(store, "markdown", [bad])
    assert report.created == 0 and "invalid chunk" in report.errors[0].message
    assert report.bad_paths == [str(bad)]


def test_secrets_in_an_import_are_redacted(store, tmp_path):
    source = tmp_path / "leak.md"
    source.write_text("---\ntype: fact\ntitle: 'Deploy password=Hunter2-extra-long'\n---\n\n"
                      "The deploy password=Tr0ub4dor-and-3 is in the vault.\n")
    import_path(store, "markdown", [source])
    (chunk,) = store.list_chunks()
    assert "Tr0ub4dor" not in chunk.content and "Hunter2" not in chunk.metadata["title"]
