"""Export to markdown and jsonl, and import back to the very same chunks."""
import json

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brain.cli.main import cli
from brain.interop import export_store, import_path
from brain.store.chunk_store import ChunkStore
from brain.store.lifecycle import supersede


def populate(store):
    """Chunks with every kind of field: links, metadata, YAML-looking strings, a multi-line body."""
    a = store.create_chunk("The staging database listens on port 5433.", tags=["db", "yes", "2025-01-01"],
                           conversation_id="conv-1", created="2026-01-10T09:00:00Z",
                           metadata={"title": "null", "category": "present", "importance": 0.7, "pinned": True,
                                     "extra": {"on": "off", "nested": {"when": "2026-01-01"}}})
    b = store.create_chunk("---\nWe decided to move staging to port 6543.\n\n  indented line\n\ttab\r\nend",
                           conversation_id="conv-1", created="2026-01-10T09:02:00Z", chunk_type="decision",
                           metadata={"kind": "decision", "title": "true", "files": ["src/db.py"]})
    supersede(store, a.id, b.id)
    store.link_chunks(b.id, a.id, "supports")
    store.get_chunk(b.id)  # a pending access count, exported as if folded
    store.create_chunk("Ünïcödé and emoji 🧠 survive; so does a colon: here # and a hash.",
                       created="2025-12-31T23:59:59Z", tags=["i18n"])
    return store


def snapshot(store):
    return {c.id: c.to_dict() for c in store.list_chunks()}


@pytest.fixture
def source(tmp_path):
    return populate(ChunkStore(tmp_path / "source", actor="test"))


@pytest.mark.parametrize("fmt", ["markdown", "jsonl"])
def test_round_trip_gives_back_the_same_chunks(source, tmp_path, fmt):
    out = tmp_path / f"export-{fmt}"
    exported = export_store(source, fmt, out)
    assert exported.chunks == 3
    target = ChunkStore(tmp_path / "target", actor="test")
    report = import_path(target, "auto", [out if fmt == "markdown" else out / "memories.jsonl"])
    assert report.created == 3 and not report.errors and report.format == fmt
    assert snapshot(target) == snapshot(source)
    again = import_path(target, fmt, [out])
    assert again.created == 0 and again.skipped_existing == 3
    # the restored chunks are indexed like any other
    assert sorted(target.reindex().values()) == [0, 3]


def test_markdown_layout_one_file_per_chunk(source, tmp_path):
    report = export_store(source, "markdown", tmp_path / "out")
    files = sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*.md"))
    assert files == sorted(f"{cid[6:13]}/{cid}.md" for cid in snapshot(source))
    assert len(report.files) == 3
    text = (tmp_path / "out" / files[0]).read_text(encoding="utf-8")
    assert text.startswith("---\nid: chunk-") and text.endswith("\n") and not text.endswith("\n\n")
    head = text.split("---\n")[1]
    assert head.index("id:") < head.index("type:") < head.index("metadata:") < head.index("links:")  # not sorted


def test_jsonl_export_is_one_chunk_a_line(source, tmp_path):
    export_store(source, "jsonl", tmp_path / "out")
    lines = (tmp_path / "out" / "memories.jsonl").read_text(encoding="utf-8").splitlines()
    assert sorted(json.loads(line)["id"] for line in lines) == sorted(snapshot(source))


def test_export_does_not_change_the_store(source, tmp_path):
    before = {p.name: p.read_bytes() for p in source.layout.iter_chunk_paths()}
    export_store(source, "markdown", tmp_path / "out")
    assert {p.name: p.read_bytes() for p in source.layout.iter_chunk_paths()} == before


def test_export_refuses_the_memory_folder_itself(source):
    with pytest.raises(ValueError):
        export_store(source, "markdown", source.root / "export")
    with pytest.raises(ValueError):
        export_store(source, "legacy", source.root.parent / "x")


def test_progress_counts_every_chunk(source, tmp_path):
    seen = []
    export_store(source, "markdown", tmp_path / "out", progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)]


def test_cli_export_then_import(source, tmp_path):
    runner = CliRunner()
    out = tmp_path / "cli-out"
    result = runner.invoke(cli, ["export", "--format", "jsonl", str(out)], env={"RLM_MEM_DIR": str(source.root)})
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"exported 3 chunks as jsonl to {out}"
    target = tmp_path / "target"
    result = runner.invoke(cli, ["import", "--format", "jsonl", str(out / "memories.jsonl"), "--json"],
                           env={"RLM_MEM_DIR": str(target)})
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["created"] == 3
    inside = runner.invoke(cli, ["export", str(source.root / "x")], env={"RLM_MEM_DIR": str(source.root)})
    assert inside.exit_code == 1 and inside.output.startswith("Error: export into a folder outside")


_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=120)
_tag = st.text("abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=_text.filter(lambda s: s.strip()), title=_text, tags=st.lists(_tag, max_size=4),
       extra=st.dictionaries(_tag, st.one_of(_text, st.booleans(), st.none(), st.integers()), max_size=3))
def test_markdown_round_trip_of_arbitrary_text(tmp_path_factory, content, title, tags, extra):
    base = tmp_path_factory.mktemp("rt")
    store = ChunkStore(base / "s", actor="test")
    store.create_chunk(content, tags=tags, created="2026-04-01T00:00:00Z",
                       metadata={"title": title[:300], "extra": extra})
    export_store(store, "markdown", base / "out")
    target = ChunkStore(base / "t", actor="test")
    report = import_path(target, "markdown", [base / "out"])
    assert not report.errors, report.errors
    assert snapshot(target) == snapshot(store)
