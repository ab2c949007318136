"""Legacy memory files: fields kept, [CORRECTION]/[CRITICAL] meaning, DEPRECATED → supersede, bad files skipped."""
import shutil
from pathlib import Path

import pytest

from brain.interop import detect_format, import_path
from brain.store.chunk_store import ChunkStore

LEGACY = Path(__file__).parent / "fixtures" / "import" / "legacy"


@pytest.fixture
def store(tmp_path):
    return ChunkStore(tmp_path / "memory", actor="test")


def by_title(store):
    return {c.metadata["title"]: c for c in store.list_chunks()}


def test_folder_import_keeps_fields_and_reports_bad_files(store):
    report = import_path(store, "legacy", [LEGACY])
    assert report.created == 5 and report.skipped_existing == 0
    bad = sorted(Path(e.path).name for e in report.errors)
    assert bad == ["header_without_body.md", "no_title_line.md"]
    assert report.bad_paths == []  # the folder as a whole imported fine
    chunks = by_title(store)
    dark = chunks["User prefers a dark editor theme"]
    assert dark.created == "2025-11-03T09:15:00Z"
    assert dark.metadata["category"] == "present"
    assert dark.tags == ["preference", "editor", "ui"]
    assert dark.content.startswith("User prefers a dark editor theme\n\nThe user works late")
    assert dark.metadata["source"] == "import"
    assert {k: v for k, v in dark.metadata["provenance"].items() if k != "hash"} == {"kind": "import", "file": str(LEGACY / "user_prefers_dark_editor_theme.md"),
                                           "format": "legacy", "ref": "user_prefers_dark_editor_theme.md"}


def test_correction_and_critical_titles_keep_their_meaning(store):
    import_path(store, "legacy", [LEGACY])
    chunks = by_title(store)
    correction = chunks["Staging database port"]
    assert correction.kind == "correction" and correction.metadata["confidence"] >= 0.95
    assert "[CORRECTION]" not in correction.metadata["title"]
    critical = chunks["Never force-push the main branch"]
    assert critical.pinned and critical.kind == "memory"
    assert not chunks["User prefers a dark editor theme"].pinned


def test_deprecated_line_supersedes_when_the_named_file_is_imported(store):
    report = import_path(store, "legacy", [LEGACY])
    chunks = by_title(store)
    old, new = chunks["Auth service architecture (Python)"], chunks["Auth service architecture (Rust)"]
    assert old.status == "superseded" and old.links["superseded_by"] == [new.id]
    assert new.links["supersedes"] == [old.id] and new.status == "active"
    assert report.links == 1


def test_deprecated_line_without_its_target_stays_a_plain_memory(store):
    report = import_path(store, "legacy", [LEGACY / "auth_service_architecture_python.md"])
    (chunk,) = store.list_chunks()
    assert chunk.status == "active" and "DEPRECATED" in chunk.content
    assert report.unresolved_links == 1 and report.links == 0


def test_import_twice_adds_nothing(store):
    import_path(store, "legacy", [LEGACY])
    files_before = sorted(p.name for p in store.layout.iter_chunk_paths())
    again = import_path(store, "legacy", [LEGACY])
    assert again.created == 0 and again.skipped_existing == 5 and again.links == 0
    assert sorted(p.name for p in store.layout.iter_chunk_paths()) == files_before


def test_moved_source_folder_is_still_the_same_memories(store, tmp_path):
    import_path(store, "legacy", [LEGACY])
    moved = shutil.copytree(LEGACY, tmp_path / "elsewhere")
    assert import_path(store, "legacy", [moved]).created == 0


def test_missing_created_falls_back_and_odd_category_is_kept_aside(store, tmp_path):
    folder = tmp_path / "allmemories"
    folder.mkdir()
    (folder / "odd_category_memory_file.md").write_text(
        "# Odd one\n**Category**: someday\n**Tags:** ops\n---\nThe ops runbook lives in the wiki.\n")
    report = import_path(store, "auto", [folder])
    assert detect_format(folder) == "legacy" and report.created == 1 and not report.errors
    (chunk,) = store.list_chunks()
    assert "category" not in chunk.metadata and chunk.metadata["extra"]["category"] == "someday"
    assert chunk.tags == ["ops"] and chunk.created  # the file's time stands in


def test_a_folder_of_only_bad_files_is_a_bad_path(store, tmp_path):
    folder = tmp_path / "broken"
    folder.mkdir()
    shutil.copy(LEGACY / "no_title_line.md", folder)
    report = import_path(store, "legacy", [folder])
    assert report.created == 0 and report.bad_paths == [str(folder)]
    assert str(report.errors[0]).startswith(str(folder / "no_title_line.md") + ": ")
