"""`rlm-mem doctor`: each kind of damage is reported, `--repair` fixes it without losing a memory."""
import json
import os
import sqlite3
import time

import pytest
from click.testing import CliRunner

from brain.cli.main import cli
from brain.store.audit import read_audit
from brain.store.chunk_store import ChunkStore
from brain.store.doctor import check_store, repair_store


@pytest.fixture
def store(tmp_path):
    s = ChunkStore(tmp_path / "mem", actor="test")
    a = s.create_chunk("The staging database listens on port 5433", conversation_id="conv-1", tags=["db"])
    b = s.create_chunk("Deploys run from the main branch only", conversation_id="conv-1", tags=["deploy", "db"])
    c = s.create_chunk("Use ruff for linting", chunk_type="preference", tags=["python"])
    s.link_chunks(c.id, a.id, "supports")
    s.delete_chunk(b.id)  # one archived chunk, still linked to
    s.ids = (a.id, b.id, c.id)
    return s


def codes(report):
    return sorted({p.code for p in report.problems})


def doctor(store, *args):
    return CliRunner().invoke(cli, ["--dir", str(store.root), "doctor", *args])


def chunk_file(store, cid):
    return store.layout.chunk_path(cid)


def test_clean_store_passes(store):
    report = check_store(store)
    assert report.ok, report.problems
    assert report.counts["chunks"] == 2 and report.counts["archived"] == 1
    result = doctor(store)
    assert result.exit_code == 0, result.output
    assert "ok: no problems found" in result.output
    data = json.loads(doctor(store, "--json").stdout)
    assert data["ok"] is True and data["problems"] == []


def test_missing_store_is_not_created(tmp_path):
    root = tmp_path / "nothing-here"
    result = CliRunner().invoke(cli, ["--dir", str(root), "doctor"])
    assert result.exit_code == 0 and "nothing to check" in result.output
    assert not root.exists()


def test_root_that_is_a_file_is_an_error(tmp_path):
    (tmp_path / "f").write_text("x")
    result = CliRunner().invoke(cli, ["doctor"], env={"RLM_MEM_DIR": str(tmp_path / "f")})
    assert result.exit_code == 1 and "Error:" in result.output and "Traceback" not in result.output


def test_corrupt_chunk_is_quarantined_not_deleted(store):
    a, _, c = store.ids
    path = chunk_file(store, a)
    original = path.read_bytes()
    path.write_bytes(original[: len(original) // 2])  # a torn file, as a crash without atomic writes would leave
    report = check_store(store)
    assert "corrupt_chunk" in codes(report)
    result = doctor(store)
    assert result.exit_code == 1
    assert "Error:" in result.output and "corrupt_chunk" in result.output and "--repair" in result.output
    fixed = repair_store(store)
    assert fixed.ok, fixed.problems
    moved = store.root / "quarantine" / path.name
    assert moved.read_bytes() == original[: len(original) // 2]
    assert not path.exists()
    assert any(e["details"]["to"] == f"quarantine/{path.name}" for e in read_audit(store.root, a, "quarantine"))
    # c supported a: the link now points nowhere and was dropped (audited as a repair)
    assert store.get_chunk(c, track=False).links["supports"] == []
    assert read_audit(store.root, c, "repair")
    assert any("quarantine" in line for line in fixed.repairs)


def test_schema_invalid_chunk_is_quarantined(store):
    path = chunk_file(store, store.ids[2])
    data = json.loads(path.read_text())
    data["metadata"]["confidence"] = 7
    path.write_text(json.dumps(data))
    assert "invalid_chunk" in codes(check_store(store))
    assert repair_store(store).ok
    assert (store.root / "quarantine" / path.name).exists()
    assert store.get_chunk(store.ids[2]) is None


def test_misnamed_and_misplaced_files_move_home(store):
    a, _, c = store.ids
    wrong_month = store.chunks_dir / "1999-01"
    wrong_month.mkdir(mode=0o700)
    os.replace(chunk_file(store, a), wrong_month / f"{a}.json")
    os.replace(chunk_file(store, c), chunk_file(store, c).with_name("chunk-2020-01-01-00000000.json"))
    report = check_store(store)
    assert codes(report).count("misplaced_chunk") == 1
    assert sum(p.code == "misplaced_chunk" for p in report.problems) == 2
    assert repair_store(store).ok
    assert chunk_file(store, a).exists() and chunk_file(store, c).exists()
    assert store.get_chunk(a, track=False).content.startswith("The staging database")


def test_duplicate_live_and_archived_copy(store):
    a, b, _ = store.ids
    (store.archive_dir / f"{a}.json").write_bytes(chunk_file(store, a).read_bytes())
    os.chmod(store.archive_dir / f"{a}.json", 0o600)
    assert "duplicate_chunk" in codes(check_store(store))
    assert repair_store(store).ok
    assert chunk_file(store, a).exists() and (store.root / "quarantine" / f"{a}.json").exists()


def test_json_index_drift_is_rebuilt(store):
    store.refresh_json_indexes()  # the background pass: the files now claim to show the store as it is
    meta = store.index_dir / "metadata_index.json"
    value = json.loads(meta.read_text())
    del value["chunks"][store.ids[0]]
    meta.write_text(json.dumps(value))
    (store.index_dir / "tag_index.json").unlink()
    report = check_store(store)
    messages = " ".join(p.message for p in report.problems if p.code == "json_index")
    assert store.ids[0] in messages and "missing" in messages
    assert repair_store(store).ok


def test_search_index_missing_rows_and_fts_damage(store):
    db = store.index_dir / "search.db"
    conn = sqlite3.connect(db)
    conn.execute("DELETE FROM chunks WHERE id=?", (store.ids[0],))  # row gone, its full-text entry left behind
    conn.commit()
    conn.close()
    problems = [p for p in check_store(store).problems if p.code == "search_index"]
    assert any(store.ids[0] in p.message for p in problems)
    assert any("full-text" in p.message for p in problems)
    assert repair_store(store).ok


def test_a_wrong_chunk_count_is_found_and_repaired(store):
    conn = sqlite3.connect(store.index_dir / "search.db")
    conn.execute("UPDATE counts SET value = 7 WHERE name='chunks'")  # as two counters at once would leave it
    conn.commit()
    conn.close()
    problems = [p.message for p in check_store(store).problems if p.code == "search_index"]
    assert any("counts 7 chunks for 2 rows" in m for m in problems), problems
    assert repair_store(store).ok and check_store(store).ok


def test_garbage_search_index_is_rebuilt(store):
    db = store.index_dir / "search.db"
    db.write_bytes(b"this is not a database" * 100)
    assert "search_index" in codes(check_store(store))
    assert repair_store(store).ok


def test_dangling_links_dropped_but_conversation_ids_kept(store):
    a = store.ids[0]
    path = chunk_file(store, a)
    data = json.loads(path.read_text())
    data["links"]["related_to"].append("chunk-2001-01-01-0badf00d")
    path.write_text(json.dumps(data, indent=2))
    store.reindex()  # the indexes agree with the file: only the link is wrong
    report = check_store(store)
    assert codes(report) == ["dangling_link"]
    assert "chunk-2001-01-01-0badf00d" in report.problems[0].message
    assert repair_store(store).ok
    fixed = store.get_chunk(a, track=False)
    assert fixed.links["related_to"] == [] and fixed.links["context_of"] == ["conv-1"]
    assert read_audit(store.root, a, "repair")[-1]["details"]["dropped_links"] == {
        "related_to": ["chunk-2001-01-01-0badf00d"]}


def test_stray_temp_files_old_removed_young_left(store):
    month = chunk_file(store, store.ids[0]).parent
    old, young = month / ".tmp-old123", month / ".tmp-young456"
    for path in (old, young):
        path.write_text("{half a chu")
        os.chmod(path, 0o600)
    past = time.time() - 3600
    os.utime(old, (past, past))
    report = check_store(store)
    assert codes(report) == ["stray_temp"] and report.problems[0].path.endswith(".tmp-old123")
    assert any("younger" in n for n in report.notes)
    assert repair_store(store).ok
    assert not old.exists() and young.exists()


def test_a_temp_file_too_young_to_remove_stays_young_through_a_slow_rebuild(store, monkeypatch):
    """repair leaves a temp file younger than the grace period (a write may be in progress) and rebuilds the
    indexes; at 10,000 chunks the rebuild took long enough for that file to pass the grace period before the final
    check, which then called it a problem repair had left. Ages are taken at the repair's start."""
    from brain.store import doctor as doctor_module

    temp = chunk_file(store, store.ids[0]).parent / ".tmp-almost-old"
    temp.write_text("{half a chu")
    os.chmod(temp, 0o600)
    almost = time.time() - doctor_module.TEMP_GRACE_SECONDS + 0.5
    os.utime(temp, (almost, almost))
    reindex = store.reindex

    def slow_reindex(*args, **kwargs):
        result = reindex(*args, **kwargs)
        time.sleep(1.0)
        return result

    monkeypatch.setattr(store, "reindex", slow_reindex)
    report = repair_store(store)
    assert report.ok, [p.to_dict() for p in report.problems]
    assert temp.exists() and any("younger" in n for n in report.notes)
    assert codes(check_store(store)) == ["stray_temp"]  # a check after the grace period does report it


def test_access_log_damage_is_folded(store):
    a = store.ids[0]
    store.get_chunk(a)
    log = store.index_dir / "access_log.jsonl"
    with open(log, "a") as fh:
        fh.write('{"t": "2026-01-0\n')  # torn
        fh.write(json.dumps({"t": "2026-01-01T00:00:00Z", "ids": ["chunk-2001-01-01-0badf00d"]}) + "\n")
    report = check_store(store)
    assert codes(report) == ["access_log"]
    assert any("no longer exist" in n for n in report.notes)
    fixed = repair_store(store)
    assert fixed.ok and not log.exists()
    assert store.get_chunk(a, track=False).metadata["access_count"] == 1  # the good line was folded in


def test_interrupted_fold_is_finished(store):
    store.get_chunk(store.ids[0])
    log = store.index_dir / "access_log.jsonl"
    os.replace(log, log.with_suffix(".folding"))  # a fold killed after moving the log aside
    assert "access_log" in codes(check_store(store))
    assert repair_store(store).ok
    assert store.get_chunk(store.ids[0], track=False).metadata["access_count"] == 1


def test_corrupt_archive_file_is_quarantined(store):
    path = store.layout.archive_path(store.ids[1])
    path.write_text("not json")
    assert "corrupt_chunk" in codes(check_store(store))
    assert repair_store(store).ok
    assert (store.root / "quarantine" / path.name).read_text() == "not json"


def test_symlinked_chunk_file_is_never_followed(store, tmp_path, caplog):
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0")
    month = chunk_file(store, store.ids[0]).parent
    evil = month / f"chunk-{month.name}-01-deadbeef.json"  # where get_chunk would look for that id
    evil.symlink_to(secret)
    link_id = evil.stem
    with caplog.at_level("WARNING", logger="rlm_mem"):
        assert store.get_chunk(link_id) is None
    assert any(evil.name in r.getMessage() for r in caplog.records if r.levelname == "WARNING")
    assert all(c.id != link_id for c in store.list_chunks())
    report = check_store(store)
    assert [p.code for p in report.problems] == ["symlink"] and report.problems[0].fixable
    assert repair_store(store).ok
    assert (store.root / "quarantine" / evil.name).is_symlink()
    assert secret.read_text() == "root:x:0:0"


def test_symlinked_folder_is_reported_and_left(store, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (store.chunks_dir / "2031-01").symlink_to(outside)
    report = repair_store(store)
    assert [p.code for p in report.problems] == ["symlink"] and not report.problems[0].fixable
    assert (store.chunks_dir / "2031-01").is_symlink()
    result = doctor(store, "--repair")
    assert result.exit_code == 1 and "fix by hand" in result.output and "remain after repair" in result.output


def test_loose_permissions_are_tightened(store):
    path = chunk_file(store, store.ids[0])
    os.chmod(path, 0o644)
    os.chmod(store.root, 0o755)
    report = check_store(store)
    assert codes(report) == ["permissions"] and len(report.problems) == 2
    assert repair_store(store).ok
    assert path.stat().st_mode & 0o777 == 0o600 and store.root.stat().st_mode & 0o777 == 0o700


def test_fresh_store_files_are_owner_only(tmp_path):
    """Parents made for the store, the lock file and the SQLite side files: nothing readable by others."""
    s = ChunkStore(tmp_path / "a" / "b" / "mem")
    from brain.index import search_index

    reader = search_index.connect(s.root)  # keeps -wal/-shm alive while we look
    try:
        s.create_chunk("owner only", tags=["x"])
        loose = [p for p in tmp_path.rglob("*") if p.stat().st_mode & 0o077]
        assert loose == []
    finally:
        reader.close()
    assert check_store(s).ok


def test_repair_json_output(store):
    chunk_file(store, store.ids[0]).write_text("{")
    data = json.loads(doctor(store, "--repair", "--json").stdout)
    assert data["ok"] is True and data["repairs"]
    assert data["counts"]["chunks"] == 1


# ---------------------------------------------------------------- the store itself never follows a link out
def test_store_does_not_read_or_write_through_a_symlinked_month(store, tmp_path):
    from brain.util.errors import StoreUnwritable

    outside = tmp_path / "outside"
    outside.mkdir()
    planted = json.loads(chunk_file(store, store.ids[0]).read_text())
    planted["id"] = "chunk-2031-01-05-0000beef"
    (outside / f"{planted['id']}.json").write_text(json.dumps(planted))
    (store.chunks_dir / "2031-01").symlink_to(outside)
    before = sorted(p.name for p in outside.iterdir())
    assert store.get_chunk(planted["id"]) is None
    assert planted["id"] not in [c.id for c in store.list_chunks()]
    with pytest.raises(StoreUnwritable, match="symbolic link"):
        store.create_chunk("a memory dated into the linked month", created="2031-01-05T10:00:00Z")
    assert store.delete_chunk(planted["id"]) is False
    assert store.delete_chunk(planted["id"], permanent=True) is False
    assert sorted(p.name for p in outside.iterdir()) == before
    assert store.create_chunk("still writable elsewhere").id  # the failed write left no lock or transaction


@pytest.mark.parametrize("folder", ["chunks", "archive", "index"])
def test_store_refuses_symlinked_top_folders(store, tmp_path, folder):
    from brain.util.errors import StoreUnwritable

    outside = tmp_path / "outside"
    os.replace(store.root / folder, outside)
    (store.root / folder).symlink_to(outside)
    before = sorted(p.name for p in outside.rglob("*"))
    with pytest.raises(StoreUnwritable, match="symbolic link"):
        store.create_chunk("must not land outside the store")
    with pytest.raises(StoreUnwritable, match="symbolic link"):
        store.delete_chunk(store.ids[0])
    assert sorted(p.name for p in outside.rglob("*")) == before
    assert "symlink" in codes(check_store(store))


def test_unreadable_access_state_is_set_aside(store):
    state = store.index_dir / "access_state.json"
    state.write_text('{"version": 1, "entries": {"%s": ["many", null]}}' % store.ids[0])
    os.chmod(state, 0o600)
    assert codes(check_store(store)) == ["access_state"]
    assert repair_store(store).ok
    assert (store.root / "quarantine" / "access_state.json").exists() and not state.exists()
