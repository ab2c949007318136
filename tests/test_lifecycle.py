"""A memory's life: supersede (CLI and library), write-time dedup, contradictions, contest/retract, pins."""
import json
import sqlite3

import pytest
from click.testing import CliRunner

from brain.cli.main import cli
from brain.index import access, search_index
from brain.recall.core import select_for_session
from brain.store import lifecycle
from brain.store.audit import read_audit
from brain.store.chunk_store import ChunkStore
from brain.util.errors import ChunkNotFound, ChunkValidationError


@pytest.fixture
def store(tmp_path):
    return ChunkStore(tmp_path / "mem", actor="test")


def run(store, *args):
    result = CliRunner().invoke(cli, list(args), env={"RLM_MEM_DIR": str(store.root), "RLM_MEM_ACTOR": "test"})
    return result


def db_status(root, chunk_id):
    conn = search_index.connect(root, readonly=True)
    try:
        row = conn.execute("SELECT status FROM chunks WHERE id=?", (chunk_id,)).fetchone()
    finally:
        conn.close()
    return row[0] if row else None


def test_cli_remember_supersedes_marks_old_and_recall_offers_only_new(store):
    old = run(store, "remember", "The staging database listens on port 5432", "--tags", "db").output.strip()
    result = run(store, "remember", "The staging database now listens on port 5433", "--tags", "db",
                 "--supersedes", old)
    assert result.exit_code == 0, result.output
    new = result.output.strip()
    assert db_status(store.root, old) == "superseded" and db_status(store.root, new) == "active"
    old_chunk = store.get_chunk(old, track=False)  # kept readable
    assert old_chunk.content.endswith("5432") and old_chunk.metadata["superseded_at"]
    assert old_chunk.links["superseded_by"] == [new]
    assert store.get_chunk(new, track=False).links["supersedes"] == [old]
    offered = [r["id"] for r in select_for_session(store.root, None)]
    assert new in offered and old not in offered
    assert [e["chunk_id"] for e in read_audit(store.root, action="supersede")] == [old]


def test_recall_never_returns_the_superseded_memory_as_current(store):
    recall_mod = pytest.importorskip("brain.recall.recall")
    for topic in ("billing", "linting", "docker", "frontend", "vpn", "backups", "grafana", "invoices"):
        store.create_chunk(f"The {topic} setup is documented in the wiki", tags=[topic])
    old = lifecycle.remember_memory(store, "Deploys go out on Tuesdays", tags=["deploy"])[0]
    new = lifecycle.remember_memory(store, "Deploys go out on Thursdays", tags=["deploy"], supersedes=[old.id])[0]
    items = recall_mod.recall(store.root, "when do deploys go out", track=False).to_dict()["items"]
    assert new.id in [i["id"] for i in items]
    assert not [i for i in items if i["id"] == old.id and i["status"] == "active"]


def test_supersede_unknown_id_is_a_clear_error_and_stores_nothing(store):
    with pytest.raises(ChunkNotFound):
        lifecycle.remember_memory(store, "new fact", supersedes=["chunk-2026-01-01-00000000"])
    assert store.list_chunks() == []
    result = run(store, "remember", "x y z", "--supersedes", "chunk-2026-01-01-00000000")
    assert result.exit_code == 1 and "Error:" in result.output


def test_identical_content_reinforces_instead_of_copying(store):
    first = lifecycle.remember_memory(store, "The CI runs on GitHub Actions", confidence=0.7)[0]
    again = lifecycle.remember_memory(store, "  the ci runs on   GitHub actions ", confidence=0.95)
    assert [c.id for c in again] == [first.id]
    assert len(store.list_chunks()) == 1
    assert access.pending_access(store.root)[first.id][0] == 1  # counted as a use
    assert store.get_chunk(first.id, track=False).metadata["confidence"] == 0.95
    assert [e["chunk_id"] for e in read_audit(store.root, action="reinforce")] == [first.id]


def test_dedup_ignores_superseded_memories(store):
    old = lifecycle.remember_memory(store, "Use tabs")[0]
    lifecycle.remember_memory(store, "Use spaces", supersedes=[old.id])
    back = lifecycle.remember_memory(store, "Use tabs")[0]  # the person changed their mind back
    assert back.id != old.id and back.status == "active"


def test_dedup_with_pin_pins_the_existing_memory(store):
    first = lifecycle.remember_memory(store, "Never force-push to main")[0]
    again = lifecycle.remember_memory(store, "Never force-push to main", pinned=True)[0]
    assert again.id == first.id and store.get_chunk(first.id, track=False).pinned


def _linked_pair(store, *, pin_old=False):
    old = store.create_chunk("The user wants dark mode", created="2026-01-05T09:00:00Z",
                             metadata={"pinned": True} if pin_old else None)
    new = store.create_chunk("The user wants light mode", created="2026-02-08T10:00:00Z")
    store.link_chunks(new.id, old.id, "contradicts")
    return old, new


def test_contradiction_trusts_the_newer_and_notes_the_date(store):
    old, new = _linked_pair(store)
    assert lifecycle.resolve_contradiction(store, old.id, new.id) == (old.id, new.id)
    stale = store.get_chunk(old.id, track=False)
    assert stale.status == "superseded" and stale.links["superseded_by"] == [new.id]
    assert stale.metadata["extra"]["change_note"] == "User changed mind 2026-02-08"
    assert store.get_chunk(new.id, track=False).links["supersedes"] == [old.id]
    assert "User changed mind 2026-02-08" in read_audit(store.root, action="supersede")[-1]["reason"]


def test_contradiction_needs_a_link_and_spares_a_pinned_memory(store):
    a = store.create_chunk("Port is 1", created="2026-01-01T00:00:00Z")
    b = store.create_chunk("Port is 2", created="2026-01-02T00:00:00Z")
    with pytest.raises(ChunkValidationError, match="not linked"):
        lifecycle.resolve_contradiction(store, a.id, b.id)
    old, new = _linked_pair(store, pin_old=True)
    with pytest.raises(ChunkValidationError, match="pinned"):
        lifecycle.resolve_contradiction(store, old.id, new.id)
    assert store.get_chunk(old.id, track=False).status == "active"


def test_contest_retract_and_reinstate(store):
    chunk = store.create_chunk("The cache TTL is 60 seconds")
    lifecycle.contest(store, chunk.id, reason="logs show 30")
    assert db_status(store.root, chunk.id) == "contested"
    # disputed, not withdrawn: still shown at session start (the brief marks it), unlike a retracted one
    assert [r["status"] for r in select_for_session(store.root, None) if r["id"] == chunk.id] == ["contested"]
    lifecycle.retract(store, chunk.id, reason="wrong")
    assert db_status(store.root, chunk.id) == "retracted"
    assert chunk.id not in [r["id"] for r in select_for_session(store.root, None)]
    lifecycle.reinstate(store, chunk.id)
    assert db_status(store.root, chunk.id) == "active"
    actions = [e["action"] for e in read_audit(store.root, chunk_id=chunk.id)]
    assert actions.count("contest") == actions.count("retract") == actions.count("reinstate") == 1


def test_audit_actions_used_here_are_in_the_schema():
    from pathlib import Path

    schema = json.loads((Path(__file__).resolve().parents[1] / "schemas" / "audit_entry.schema.json").read_text())
    enum = set(schema["properties"]["action"]["enum"])
    assert {"garden", "contest", "retract", "consolidate", "supersede", "pin", "unpin", "reinforce"} <= enum


def test_cli_pin_and_unpin(store):
    chunk = store.create_chunk("Always run the linter before committing")
    result = run(store, "pin", chunk.id)
    assert result.exit_code == 0 and "pinned" in result.output
    conn = sqlite3.connect(search_index.db_path(store.root))
    assert conn.execute("SELECT pinned FROM chunks WHERE id=?", (chunk.id,)).fetchone()[0] == 1
    conn.close()
    assert run(store, "unpin", chunk.id).exit_code == 0
    assert not store.get_chunk(chunk.id, track=False).pinned
    assert [e["action"] for e in read_audit(store.root) if e["action"] in ("pin", "unpin")] == ["pin", "unpin"]
    missing = run(store, "pin", "chunk-2026-01-01-00000000")
    assert missing.exit_code == 1 and "Error:" in missing.output
    assert run(store, "pin", "../etc/passwd").exit_code == 1


def test_contradiction_stored_in_the_same_second_trusts_the_link_source(store):
    a = store.create_chunk("The user wants dark mode", created="2026-03-01T10:00:00Z")
    b = store.create_chunk("The user wants light mode", created="2026-03-01T10:00:00Z")
    store.link_chunks(b.id, a.id, "contradicts")  # b says it contradicts a: b is the newer statement
    assert lifecycle.resolve_contradiction(store, a.id, b.id) == (a.id, b.id)
    c = store.create_chunk("Tabs", created="2026-03-02T10:00:00Z")
    d = store.create_chunk("Spaces", created="2026-03-02T10:00:00Z")
    store.link_chunks(c.id, d.id, "contradicts")
    store.link_chunks(d.id, c.id, "contradicts")
    with pytest.raises(ChunkValidationError, match="same time"):
        lifecycle.resolve_contradiction(store, c.id, d.id)
