"""Seed 003's cognitive memories: types mapped (original kept), procedures kept structured, relations and edge
files become links of the same type with their strength and context."""
from pathlib import Path

import pytest

from brain.interop import import_path
from brain.store.chunk_store import ChunkStore

COGNITIVE = Path(__file__).parent / "fixtures" / "import" / "cognitive"


@pytest.fixture
def imported(tmp_path):
    store = ChunkStore(tmp_path / "memory", actor="test")
    report = import_path(store, "auto", [COGNITIVE])
    return store, report, {c.metadata["extra"]["cognitive_id"][:8]: c for c in store.list_chunks()}


def test_memories_imported_and_derived_files_skipped(imported):
    store, report, chunks = imported
    assert report.format == "cognitive"
    assert report.created == 5 and sorted(chunks) == ["0a9b8c7d", "3c3c3c3c", "5e5e5e5e", "6f1c2a9e", "7d7d7d7d"]
    assert [Path(e.path).name for e in report.errors] == ["broken-frontmatter-445566.md"]
    assert not any("Memory Core" in c.content or "Chose advisory" in c.content for c in chunks.values())


def test_types_map_without_losing_the_original(imported):
    _, _, chunks = imported
    solution, problem, procedure, decision = (chunks[k] for k in ("6f1c2a9e", "0a9b8c7d", "3c3c3c3c", "7d7d7d7d"))
    assert (solution.type, solution.metadata["original_type"]) == ("fact", "solution")
    assert (problem.type, problem.metadata["original_type"]) == ("note", "problem")
    assert (procedure.type, procedure.metadata["original_type"]) == ("pattern", "procedure")
    assert (decision.type, decision.kind) == ("decision", "decision")
    assert solution.metadata["importance"] == 0.7 and solution.metadata["confidence"] == 0.85
    assert solution.created == "2025-12-06T16:25:58Z" and solution.metadata["updated"] == "2025-12-07T08:00:00Z"
    assert solution.metadata["title"] == "Capped Celery worker memory with max-tasks-per-child"
    assert solution.content.startswith("Capped Celery worker memory with max-tasks-per-child\n\nSet worker_max")
    assert "Steps:\n1. Bump the version in app.json" in procedure.content
    assert procedure.metadata["procedure"]["steps"][2] == "Upload the build to both stores"
    assert "steps" not in procedure.metadata["extra"]


def test_relations_become_links_of_their_own_type_with_strength_and_context(imported):
    _, report, chunks = imported
    solution, problem = chunks["6f1c2a9e"], chunks["0a9b8c7d"]
    # stated on both sides (outgoing on the solution, incoming on the problem): one link
    assert solution.links["solves"] == [problem.id] and solution.links["supports"] == []
    assert problem.links.get("solves", []) == []
    assert solution.metadata["relations"] == [{"type": "solves", "target": problem.id, "strength": 0.9,
                                               "context": "Recycling workers bounds the leak"}]
    assert "relations" not in solution.metadata["extra"]


def test_edge_files_link_and_record_their_description(imported):
    _, report, chunks = imported
    decision, solution = chunks["7d7d7d7d"], chunks["6f1c2a9e"]
    assert decision.links["builds_on"] == [solution.id]
    assert decision.metadata["relations"] == [{"type": "builds_on", "target": solution.id, "strength": 0.5}]
    (relation,) = [r for r in decision.metadata["extra"]["relations"] if r["type"] == "BUILDS_ON"]
    assert relation["target"] == "6f1c2a9e-0b7d-4c1e-9a55-1d2e3f4a5b6c"
    assert relation["description"].startswith("The single-runner scheduler relies")
    assert report.links == 2
    assert report.unresolved_links == 1  # the REQUIRES edge points at a memory that is not in this import


def test_vault_memories_are_pinned(imported):
    _, _, chunks = imported
    assert chunks["5e5e5e5e"].pinned and not chunks["6f1c2a9e"].pinned


def test_import_twice_adds_nothing(imported):
    store, _, _ = imported
    before = {c.id: c.to_dict() for c in store.list_chunks()}
    again = import_path(store, "cognitive", [COGNITIVE])
    assert again.created == 0 and again.skipped_existing == 5 and again.links == 0
    assert {c.id: c.to_dict() for c in store.list_chunks()} == before


def test_relation_to_a_memory_imported_later_is_linked_then(tmp_path):
    store = ChunkStore(tmp_path / "memory", actor="test")
    graph = COGNITIVE / "graph"
    first = import_path(store, "cognitive", [graph / "problems"])
    assert first.unresolved_links == 1
    both = import_path(store, "cognitive", [graph / "problems", graph / "solutions"])
    assert both.created == 1 and both.links == 1
    solution = next(c for c in store.list_chunks() if c.metadata["original_type"] == "solution")
    problem = next(c for c in store.list_chunks() if c.metadata["original_type"] == "problem")
    assert solution.links["solves"] == [problem.id]
