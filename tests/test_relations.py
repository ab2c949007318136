"""Typed relations first-class (seed 003, seed 002): every type through `link`, `get --json`, export and import,
with its strength and context sentence; a Cognitive Memory graph holding every relation type and a procedure
round-trips through rlm-mem's export; a procedure stays a procedure."""
import json

import pytest
from click.testing import CliRunner

from brain.cli.main import cli
from brain.interop import export_store, import_path
from brain.store.chunk import MANUAL_LINK_TYPES
from brain.store.chunk_store import ChunkStore

COGNITIVE_TYPES = ("SOLVES", "CAUSES", "BUILDS_ON", "ALTERNATIVE_TO", "REQUIRES", "FOLLOWS", "RELATED_TO")


def run(root, *args):
    result = CliRunner().invoke(cli, ["--dir", str(root), *args], catch_exceptions=False)
    return result


def snapshot(store):
    return {c.id: c.to_dict() for c in store.list_chunks()}


@pytest.mark.parametrize("link_type", MANUAL_LINK_TYPES)
def test_each_relation_type_through_link_get_export_and_import(tmp_path, link_type):
    root = tmp_path / "memory"
    store = ChunkStore(root, actor="test")
    a = store.create_chunk("Added socket_keepalive to the Redis client configuration.")
    b = store.create_chunk("Redis connections drop after ten idle minutes in production.")
    linked = run(root, "link", a.id[-8:], b.id[-8:], "--type", link_type, "--strength", "0.8",
                 "--context", "Keepalive stops the idle disconnections")
    assert linked.exit_code == 0, linked.output
    shown = json.loads(run(root, "get", a.id, "--json").output)
    assert shown["links"][link_type] == [b.id]
    assert {"type": link_type, "target": b.id, "strength": 0.8,
            "context": "Keepalive stops the idle disconnections"} in shown["metadata"]["relations"]
    text = run(root, "get", a.id).output
    assert f"{link_type} → {b.id} (strength 0.8, \"Keepalive stops the idle disconnections\")" in text
    for fmt in ("jsonl", "markdown"):
        out = tmp_path / f"out-{fmt}"
        export_store(store, fmt, out)
        target = ChunkStore(tmp_path / f"back-{fmt}", actor="test")
        report = import_path(target, fmt, [out])
        assert report.created == 2 and not report.errors
        assert snapshot(target) == snapshot(store)


def test_link_refuses_bad_strength_and_unknown_types(tmp_path):
    root = tmp_path / "memory"
    store = ChunkStore(root, actor="test")
    a, b = store.create_chunk("First memory here."), store.create_chunk("Second memory here.")
    bad = run(root, "link", a.id, b.id, "--type", "solves", "--strength", "1.5")
    assert bad.exit_code == 2 and "1.5" in bad.output
    unknown = run(root, "link", a.id, b.id, "--type", "fixes")
    assert unknown.exit_code == 2 and "solves" in unknown.output
    assert store.get_chunk(a.id).links.get("solves", []) == []


def test_relinking_updates_the_note_and_unlinking_removes_it(tmp_path):
    store = ChunkStore(tmp_path / "memory", actor="test")
    a, b = store.create_chunk("The fix."), store.create_chunk("The problem.")
    store.link_chunks(a.id, b.id, "solves", strength=0.4, context="partly")
    store.link_chunks(a.id, b.id, "solves", strength=0.9)
    assert store.get_chunk(a.id).metadata["relations"] == [{"type": "solves", "target": b.id, "strength": 0.9,
                                                            "context": "partly"}]
    store.link_chunks(a.id, b.id, "solves", remove=True)
    chunk = store.get_chunk(a.id)
    assert chunk.links["solves"] == [] and "relations" not in chunk.metadata


def test_deleting_the_target_for_good_removes_the_link_and_its_note(tmp_path):
    store = ChunkStore(tmp_path / "memory", actor="test")
    a, b = store.create_chunk("The fix."), store.create_chunk("The problem.")
    store.link_chunks(a.id, b.id, "requires", strength=0.5, context="needs it")
    assert store.delete_chunk(b.id, permanent=True)
    chunk = store.get_chunk(a.id)
    assert chunk.links["requires"] == [] and "relations" not in chunk.metadata


def write_graph(folder):
    """A seed 003 graph: one memory per relation type, each relation with a strength and a context, plus a
    procedure with steps and conditions, and an edge file."""
    ids = [f"{i:08x}-0000-4000-8000-000000000000" for i in range(1, 10)]
    hub = ids[0]
    relations = "\n".join(f"  - target: {ids[i + 1]}\n    type: {kind}\n    direction: outgoing\n"
                          f"    strength: 0.{i + 1}\n    context: \"{kind.lower()} context\""
                          for i, kind in enumerate(COGNITIVE_TYPES))
    (folder / "graph" / "solutions").mkdir(parents=True)
    (folder / "graph" / "problems").mkdir()
    (folder / "graph" / "procedures").mkdir()
    (folder / "graph" / "edges").mkdir()
    (folder / "graph" / "solutions" / "hub-000001.md").write_text(
        f"---\nid: {hub}\ntype: solution\ntitle: \"Redis keepalive\"\nimportance: 0.8\n"
        f"created: 2026-01-05T10:00:00+00:00\nupdated: 2026-01-05T10:00:00+00:00\nrelations:\n{relations}\n---\n\n"
        "Added socket_keepalive=True to the Redis client.\n")
    for i, kind in enumerate(COGNITIVE_TYPES):
        (folder / "graph" / "problems" / f"other-{i}.md").write_text(
            f"---\nid: {ids[i + 1]}\ntype: problem\ntitle: \"Memory {i} on the {kind.lower()} side\"\n"
            f"importance: 0.5\ncreated: 2026-01-0{i + 1}T09:00:00+00:00\n---\n\nNumber {i} of the graph.\n")
    (folder / "graph" / "procedures" / "deploy-000009.md").write_text(
        f"---\nid: {ids[8]}\ntype: procedure\ntitle: \"Deploy the worker\"\nimportance: 0.9\n"
        "steps:\n  - \"Run tests\"\n  - \"Build the image\"\n  - \"Roll out\"\n"
        "preconditions:\n  - \"On main\"\npostconditions:\n  - \"Health check green\"\n"
        "created: 2026-01-09T09:00:00+00:00\n---\n\nHow the worker is deployed.\n")
    (folder / "graph" / "edges" / "deploy--REQUIRES--hub-aa0001.md").write_text(
        f"---\nid: e0000000-0000-4000-8000-000000000000\ntype: REQUIRES\nfrom_id: {ids[8]}\nto_id: {hub}\n"
        "strength: 0.6\n---\n\nDeploying needs the keepalive in place first.\n")
    return ids


def test_a_cognitive_graph_with_every_relation_type_round_trips(tmp_path):
    graph = tmp_path / "cognitive"
    write_graph(graph)
    first = ChunkStore(tmp_path / "first", actor="test")
    report = import_path(first, "cognitive", [graph])
    assert report.created == 9 and report.links == 8 and not report.errors
    hub = next(c for c in first.list_chunks() if c.metadata["title"] == "Redis keepalive")
    held = {kind: targets for kind, targets in hub.links.items() if targets and kind != "related_to"}
    assert set(held) | ({"related_to"} if hub.links["related_to"] else set()) == \
        {kind.lower() for kind in COGNITIVE_TYPES}
    notes = {n["type"]: (n["strength"], n["context"]) for n in hub.metadata["relations"]}
    assert notes == {kind.lower(): (float(f"0.{i + 1}"), f"{kind.lower()} context")
                     for i, kind in enumerate(COGNITIVE_TYPES)}
    procedure = next(c for c in first.list_chunks() if c.metadata.get("original_type") == "procedure")
    assert procedure.metadata["procedure"] == {"steps": ["Run tests", "Build the image", "Roll out"],
                                               "preconditions": ["On main"],
                                               "postconditions": ["Health check green"]}
    assert procedure.links["requires"] == [hub.id]
    assert procedure.metadata["relations"] == [{"type": "requires", "target": hub.id, "strength": 0.6}]
    for fmt in ("jsonl", "markdown"):
        export_store(first, fmt, tmp_path / f"export-{fmt}")
        again = ChunkStore(tmp_path / f"again-{fmt}", actor="test")
        back = import_path(again, fmt, [tmp_path / f"export-{fmt}"])
        assert back.created == 9 and not back.errors
        assert snapshot(again) == snapshot(first)
        twice = import_path(again, "cognitive", [graph])  # the source again: nothing new, nothing changed
        assert twice.created == 0 and snapshot(again) == snapshot(first)


def test_a_procedure_stays_a_procedure_through_remember_get_and_export(tmp_path):
    root = tmp_path / "memory"
    made = run(root, "remember", "Release checklist for the API", "--step", "Run the tests", "--step",
               "Tag the release", "--precondition", "On main", "--postcondition", "Tag pushed", "--json")
    assert made.exit_code == 0, made.output
    (chunk,) = json.loads(made.output)
    assert chunk["metadata"]["procedure"] == {"steps": ["Run the tests", "Tag the release"],
                                              "preconditions": ["On main"], "postconditions": ["Tag pushed"]}
    assert chunk["type"] == "pattern" and chunk["metadata"]["original_type"] == "procedure"
    assert "Steps:\n1. Run the tests\n2. Tag the release" in chunk["content"]
    shown = run(root, "get", chunk["id"]).output
    assert "procedure:" in shown and "steps: 1. Run the tests 2. Tag the release" in shown
    store = ChunkStore(root, actor="test")
    export_store(store, "jsonl", tmp_path / "out")
    back = ChunkStore(tmp_path / "back", actor="test")
    import_path(back, "jsonl", [tmp_path / "out"])
    assert back.get_chunk(chunk["id"]).metadata["procedure"] == chunk["metadata"]["procedure"]
