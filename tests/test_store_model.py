"""Property tests: random sequences of store operations against a small in-memory model.

After each sequence the chunk files agree with the model, every link points at a chunk that exists, doctor is
clean, and, once the background pass has run, the JSON indexes equal a fresh `reindex` byte for byte.
"""
import json
import shutil
import tempfile
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    precondition,
    rule,
    run_state_machine_as_test,
)

from brain.index.json_indexes import FILES, JsonIndexes
from brain.store.chunk import CHUNK_TYPES
from brain.store.chunk_store import ChunkStore
from brain.store.doctor import check_store
from brain.util.errors import ChunkNotFound, ChunkValidationError

WORDS = ["port", "deploy", "staging", "database", "ruff", "lint", "cache", "token", "branch", "review", "schema",
         "queue", "retry", "timeout", "backup", "index"]
TAGS = ["db", "deploy", "python", "ops", "ui", "turn"]
TIMES = ["2025-12-31T23:58:00Z", "2026-01-15T10:00:00Z", "2026-01-15T10:03:00Z", "2026-01-15T10:30:00Z",
         "2026-02-01T09:00:00Z"]  # three months, and pairs within the 5-minute `follows` window
MANUAL = ("supports", "contradicts")

contents = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)
tag_lists = st.lists(st.sampled_from(TAGS), max_size=3, unique=True)
confidences = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
unknown_ids = st.sampled_from(["chunk-2026-01-15-00000000", "chunk-2024-06-01-ffffffff"])


def read_or(path: Path, default: bytes) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return default


class StoreModel(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="rlm-model-"))
        self.store = ChunkStore(self.dir / "mem", actor="model")
        self.model = {}  # id -> {"state": live|archived, content, tags, type, confidence, conv, links: {type: set}}

    def ids(self, *states):
        # creation order, not id order: ids are random, and a draw must pick the same chunk when hypothesis replays
        return [cid for cid, m in self.model.items() if m["state"] in states]

    # ------------------------------------------------------------ operations
    @rule(content=contents, tags=tag_lists, conv=st.sampled_from([None, "conv-a", "conv-b"]),
          chunk_type=st.sampled_from(CHUNK_TYPES), confidence=confidences, created=st.sampled_from(TIMES))
    def create(self, content, tags, conv, chunk_type, confidence, created):
        chunk = self.store.create_chunk(content, chunk_type, conv, tags=tags, confidence=confidence, created=created)
        assert chunk.id not in self.model
        self.model[chunk.id] = {"state": "live", "content": content, "tags": list(tags), "type": chunk_type,
                                "confidence": confidence, "conv": conv, "links": {t: set() for t in MANUAL}}

    @precondition(lambda self: self.ids("live"))
    @rule(data=st.data(), content=st.none() | contents, tags=st.none() | tag_lists,
          chunk_type=st.none() | st.sampled_from(CHUNK_TYPES), confidence=st.none() | confidences)
    def update(self, data, content, tags, chunk_type, confidence):
        cid = data.draw(st.sampled_from(self.ids("live")))
        changes = {k: v for k, v in dict(content=content, tags=tags, chunk_type=chunk_type,
                                         confidence=confidence).items() if v is not None}
        if not changes:
            return
        self.store.update_chunk(cid, **changes)
        m = self.model[cid]
        m.update({("type" if k == "chunk_type" else k): (list(v) if k == "tags" else v) for k, v in changes.items()})

    @precondition(lambda self: self.ids("live"))
    @rule(data=st.data())
    def soft_delete(self, data):
        cid = data.draw(st.sampled_from(self.ids("live")))
        assert self.store.delete_chunk(cid) is True
        self.model[cid]["state"] = "archived"

    @precondition(lambda self: self.ids("archived"))
    @rule(data=st.data())
    def restore(self, data):
        cid = data.draw(st.sampled_from(self.ids("archived")))
        assert self.store.restore_chunk(cid).id == cid
        self.model[cid]["state"] = "live"

    @precondition(lambda self: self.ids("live", "archived"))
    @rule(data=st.data())
    def permanent_delete(self, data):
        cid = data.draw(st.sampled_from(self.ids("live", "archived")))
        assert self.store.delete_chunk(cid, permanent=True) is True
        del self.model[cid]
        for m in self.model.values():
            for targets in m["links"].values():
                targets.discard(cid)

    @precondition(lambda self: self.ids("live") and len(self.ids("live", "archived")) > 1)
    @rule(data=st.data(), link_type=st.sampled_from(MANUAL), remove=st.booleans())
    def link(self, data, link_type, remove):
        src = data.draw(st.sampled_from(self.ids("live")))
        dst = data.draw(st.sampled_from([c for c in self.ids("live", "archived") if c != src]))
        self.store.link_chunks(src, dst, link_type, remove=remove)
        (self.model[src]["links"][link_type].discard if remove else self.model[src]["links"][link_type].add)(dst)

    # ------------------------------------------------------------ refusals change nothing
    @rule(data=st.data(), unknown=unknown_ids)
    def refused(self, data, unknown):
        live = self.ids("live")
        cid = data.draw(st.sampled_from(self.ids("archived") + [unknown]))  # never a live chunk
        if cid not in self.model:
            assert self.store.delete_chunk(cid) is False
            assert self.store.delete_chunk(cid, permanent=True) is False
            with pytest.raises(ChunkNotFound):
                self.store.restore_chunk(cid)
        assert self.store.update_chunk(cid, content="never stored") is False  # seed 000: logged, False
        with pytest.raises(ChunkNotFound):
            self.store.revise_chunk(cid, content="never stored")
        if live:
            with pytest.raises(ChunkNotFound):
                self.store.link_chunks(cid, live[0], "supports")
            with pytest.raises(ChunkNotFound):
                self.store.restore_chunk(live[0])
            with pytest.raises(ChunkValidationError):
                self.store.update_chunk(live[0], content="   ")
            if cid not in self.model:
                with pytest.raises(ChunkNotFound):
                    self.store.link_chunks(live[0], cid, "supports")

    # ------------------------------------------------------------ the final comparison
    def teardown(self):
        try:
            self.compare()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def compare(self):
        store = self.store
        if not store.root.exists():
            assert not self.model
            return
        assert {p.stem for p in store.layout.iter_chunk_paths()} == set(self.ids("live"))
        assert {p.stem for p in store.layout.iter_archive_paths()} == set(self.ids("archived"))
        known = set(self.model)
        for cid, m in self.model.items():
            path = store.layout.chunk_path(cid) if m["state"] == "live" else store.layout.archive_path(cid)
            data = store.layout.read_file(path)
            assert data is not None, cid
            assert data["content"] == m["content"] and data["tags"] == m["tags"] and data["type"] == m["type"]
            assert data["metadata"]["confidence"] == m["confidence"]
            assert data["metadata"]["conversation_id"] == m["conv"]
            assert data["links"]["context_of"] == ([m["conv"]] if m["conv"] else [])
            for link_type in MANUAL:
                assert set(data["links"][link_type]) == m["links"][link_type], (cid, link_type)
            for link_type, targets in data["links"].items():
                if link_type != "context_of":
                    assert set(targets) <= known - {cid}, (cid, link_type, targets)
        store.refresh_json_indexes()  # the background pass: then the JSON files are what a reindex makes
        report = check_store(store)  # which doctor checks byte for byte against the chunk files
        assert report.ok, [p.to_dict() for p in report.problems]
        empty = {name: text.encode() for name, text in JsonIndexes(store.index_dir).dumps().items()}
        before = {name: read_or(store.index_dir / name, empty[name]) for name in FILES}  # no write yet: empty
        store.reindex()
        after = {name: (store.index_dir / name).read_bytes() for name in FILES}
        assert before == after
        live_in_index = json.loads(after["metadata_index.json"])["chunks"]
        assert set(live_in_index) == set(self.ids("live"))


def test_store_agrees_with_model():
    # fsync only matters for power loss (test_crash covers kills); skipping it keeps this test quick
    with mock.patch("os.fsync"), mock.patch("os.sync"):
        run_state_machine_as_test(StoreModel, settings=settings(
            max_examples=40, stateful_step_count=20, deadline=None, database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]))


def test_create_many_with_a_bad_spec_writes_nothing(tmp_path):
    store = ChunkStore(tmp_path / "mem")
    store.create_chunk("already here", conversation_id="conv-a")
    before = sorted(p.name for p in store.layout.iter_chunk_paths())
    specs = [dict(content="good one", conversation_id="conv-a"), dict(content="bad one", conversation_id="c" * 500)]
    with pytest.raises(ChunkValidationError):
        store.create_many(specs)
    assert sorted(p.name for p in store.layout.iter_chunk_paths()) == before
    assert check_store(store).ok
