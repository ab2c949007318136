"""JSONL bulk import: bad lines reported by number, batches through create_many, redaction, kept ids."""
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brain.interop import import_path
from brain.interop.jsonl import quick_valid
from brain.store.chunk_store import ChunkStore
from brain.store.validation import schema_errors

RECORDS = Path(__file__).parent / "fixtures" / "import" / "jsonl" / "records.jsonl"


@pytest.fixture
def store(tmp_path):
    return ChunkStore(tmp_path / "memory", actor="test")


def write_lines(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_good_lines_imported_bad_lines_reported_with_their_number(store):
    report = import_path(store, "jsonl", [RECORDS])
    assert report.created == 4
    assert [(e.line, e.message.split(":")[0]) for e in report.errors] == [
        (3, "not JSON"), (4, "confidence"), (5, "a line must hold a JSON object"),
        (7, "created is not an ISO 8601 time")]
    assert str(report.errors[0]).startswith(f"{RECORDS}:3: ")


def test_fields_map_onto_the_chunk(store):
    import_path(store, "jsonl", [RECORDS])
    chunks = store.list_chunks()
    webhooks, invoices, deploy, answers = chunks
    assert webhooks.type == "fact" and webhooks.tags == ["billing", "webhooks"]
    assert webhooks.conversation_id == "conv-billing-1" and webhooks.metadata["confidence"] == 0.9
    assert invoices.tags == ["billing", "invoices"] and invoices.links["follows"] == [webhooks.id]
    assert invoices.links["context_of"] == ["conv-billing-1"]
    assert "Tr0ub4dor" not in deploy.content and "[REDACTED:password]" in deploy.content
    assert answers.metadata["category"] == "present"
    assert answers.metadata["extra"] == {"origin_app": "notes"}
    assert {k: v for k, v in answers.metadata["provenance"].items() if k != "hash"} == {"kind": "import", "file": str(RECORDS), "format": "jsonl",
                                              "ref": "None|2026-01-07T08:00:00Z"}


def test_one_create_many_per_batch(store, tmp_path, monkeypatch):
    calls = []
    real = store.create_many

    def counting(specs, **kw):
        calls.append(len(specs))
        return real(specs, **kw)

    monkeypatch.setattr(store, "create_many", counting)
    source = write_lines(tmp_path / "many.jsonl", [
        {"content": f"Service number {i} answers on port {2000 + i}.", "created": "2026-02-01T00:00:00Z"}
        for i in range(25)])
    report = import_path(store, "jsonl", [source], batch_size=10)
    assert report.created == 25 and calls == [10, 10, 5]
    assert len(list(store.layout.iter_chunk_paths())) == 25


def test_progress_reaches_the_whole_file(store, tmp_path):
    source = write_lines(tmp_path / "p.jsonl", [{"content": f"Fact {i} about the cache."} for i in range(12)])
    seen = []
    import_path(store, "jsonl", [source], batch_size=5, progress=lambda done, total: seen.append((done, total)))
    size = source.stat().st_size
    assert seen[-1] == (size, size) and len(seen) >= 3
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_reimport_and_duplicates_inside_one_file(store, tmp_path):
    same = {"content": "The cache is warmed at 05:00.", "created": "2026-02-01T00:00:00Z"}
    source = write_lines(tmp_path / "dup.jsonl", [same, same, {"content": "Another fact about the queue."}])
    first = import_path(store, "jsonl", [source])
    assert first.created == 2 and first.skipped_existing == 1
    again = import_path(store, "jsonl", [source])
    assert again.created == 0 and again.skipped_existing == 3


def test_records_with_a_chunk_id_keep_it(store, tmp_path):
    source = write_lines(tmp_path / "ids.jsonl", [
        {"id": "chunk-2026-01-15-0badc0de", "content": "The VPN drops idle sessions after 10 minutes.",
         "created": "2026-01-15T09:00:00Z", "tags": ["vpn"]},
        {"id": "legacy-42", "content": "Foreign ids become part of the key, not the chunk id."}])
    report = import_path(store, "jsonl", [source])
    assert report.created == 2 and not report.errors
    kept = store.get_chunk("chunk-2026-01-15-0badc0de", track=False)
    assert kept.tags == ["vpn"] and kept.metadata["source"] == "import"
    assert import_path(store, "jsonl", [source]).created == 0


def test_long_content_is_split_and_chained(store, tmp_path):
    paragraph = "The ingestion pipeline reads events, validates them, and writes batches to storage. " * 20
    source = write_lines(tmp_path / "long.jsonl", [{"content": "\n\n".join([paragraph] * 6),
                                                    "created": "2026-03-01T00:00:00Z"}])
    report = import_path(store, "jsonl", [source])
    chunks = store.list_chunks()
    assert report.created == len(chunks) > 1
    parts = sorted(chunks, key=lambda c: c.metadata["part"]["index"])
    assert all(c.tokens <= 800 for c in parts)
    assert [c.links["follows"] for c in parts[1:]] == [[p.id] for p in parts[:-1]]
    assert import_path(store, "jsonl", [source]).created == 0


def test_byte_order_mark_and_undecodable_lines(store, tmp_path):
    source = tmp_path / "odd.jsonl"
    source.write_bytes(b'\xef\xbb\xbf{"content": "First line after a BOM."}\n{"content": "bad \xff byte"}\n')
    report = import_path(store, "jsonl", [source])
    assert report.created == 1 and [(e.line, e.message[:10]) for e in report.errors] == [(2, "not UTF-8 ")]


def test_a_folder_of_jsonl_files(store, tmp_path):
    folder = tmp_path / "dump"
    folder.mkdir()
    write_lines(folder / "a.jsonl", [{"content": "Alpha uses gRPC."}])
    write_lines(folder / "b.jsonl", [{"content": "Beta uses REST."}])
    (folder / "notes.txt").write_text("not a record file")
    report = import_path(store, "auto", [folder])
    assert report.format == "jsonl" and report.created == 2 and report.files == 2


_values = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.floats(-1, 2, allow_nan=False),
                    st.text(max_size=5), st.lists(st.one_of(st.text(max_size=3), st.integers()), max_size=2),
                    st.dictionaries(st.text(max_size=3), st.integers(), max_size=1),
                    st.sampled_from(["fact", "note", "import", "derived"]))
_records = st.dictionaries(st.sampled_from(["content", "type", "tags", "conversation_id", "created", "confidence",
                                            "source", "id", "metadata", "links", "project", "other"]), _values)


@settings(max_examples=300, deadline=None)
@given(_records)
def test_quick_check_never_accepts_what_the_schema_rejects(record):
    if quick_valid(record):
        assert schema_errors("import_record", record) == []
