"""The daily episode log and the reflection report."""
import json
import multiprocessing
from datetime import datetime, timezone

import pytest
from click.testing import CliRunner

from brain.cli.main import cli
from brain.garden.reflect import reflect, render, write_reflection
from brain.index import access
from brain.store.chunk_store import ChunkStore
from brain.store.episodes import append_episode, episode_path, forget_episode, read_episodes


@pytest.fixture
def store(tmp_path):
    return ChunkStore(tmp_path / "mem", actor="test")


def test_entries_append_under_one_heading_per_day(tmp_path):
    cid = "chunk-2026-02-10-a1b2c3d4"
    append_episode(tmp_path, "2026-02-10T14:05:00Z", "Chose SQLite FTS5", cid, "decision", ["recall", "sqlite"],
                   "FTS5 ships with Python; no server")
    append_episode(tmp_path, datetime(2026, 2, 10, 16, 30, tzinfo=timezone.utc), "Session record",
                   "chunk-2026-02-10-0000beef", "session", [], "Fixed the login bug.\nFollow-ups: add a test")
    text = episode_path(tmp_path, "2026-02-10").read_text()
    assert text.startswith("# 2026-02-10\n") and text.count("# 2026-02-10") == 1
    assert "## 14:05 - Chose SQLite FTS5\n- **Type:** decision\n- **Tags:** recall, sqlite\n" in text
    assert f"- **Memory:** [{cid}](../chunks/2026-02/{cid}.json)" in text
    assert "Fixed the login bug. Follow-ups: add a test" in text  # one line per field
    entries = read_episodes(tmp_path)
    assert [(e["time"], e["chunk_id"], e["type"]) for e in entries] == [
        ("14:05", cid, "decision"), ("16:30", "chunk-2026-02-10-0000beef", "session")]
    assert entries[0]["tags"] == ["recall", "sqlite"]
    assert read_episodes(tmp_path, since="2026-02-11") == []


def test_same_chunk_is_logged_once_and_bad_ids_are_refused(tmp_path):
    cid = "chunk-2026-02-10-a1b2c3d4"
    assert append_episode(tmp_path, "2026-02-10T14:05:00Z", "t", cid) is not None
    assert append_episode(tmp_path, "2026-02-10T14:05:00Z", "t", cid) is None
    with pytest.raises(ValueError):
        append_episode(tmp_path, "2026-02-10T14:05:00Z", "t", "../../etc/passwd")


def test_secrets_in_summaries_are_redacted(tmp_path):
    append_episode(tmp_path, "2026-02-10T14:05:00Z", "Set the key", None, "note", [],
                   "export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD")
    text = episode_path(tmp_path, "2026-02-10").read_text()
    assert "abcdefghijklmnop" not in text and "REDACTED" in text


def _writer(args):
    root, n = args
    for i in range(25):
        append_episode(root, "2026-03-01T10:00:00Z", f"writer {n} entry {i}", None, "note", ["t"], "x" * 500)


def test_concurrent_writers_never_interleave(tmp_path):
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        pool.map(_writer, [(str(tmp_path), n) for n in range(4)])
    text = episode_path(tmp_path, "2026-03-01").read_text()
    assert text.count("# 2026-03-01\n") == 1
    entries = read_episodes(tmp_path)
    assert len(entries) == 100 and all(set(e["summary"].rstrip("…")) == {"x"} for e in entries)
    assert {e["title"] for e in entries} == {f"writer {n} entry {i}" for n in range(4) for i in range(25)}
    assert all(e["type"] == "note" and e["tags"] == ["t"] for e in entries)


def _seed(store):
    ids = {}
    ids["fix"] = store.create_chunk("Fixed the flaky login test by mocking time", tags=["fix", "python"],
                                    metadata={"project": "shop", "kind": "learning"}).id
    store.create_chunk("Fixed a race in the upload worker", tags=["fix", "python"], metadata={"project": "cms"})
    store.create_chunk("Fixed the CSV export encoding", tags=["fix", "python"], metadata={"project": "shop"})
    store.create_chunk("Deploys use blue-green switching", tags=["deploy", "docker"], metadata={"project": "cms"})
    ids["pattern"] = store.create_chunk("Always pin Docker base images by digest", chunk_type="pattern",
                                        tags=["deploy", "docker"]).id
    store.create_chunk("user: hello there", tags=["fix", "python"], metadata={"kind": "turn", "role": "user"})
    access.record_access(store.root, [ids["pattern"]] * 1)
    access.record_access(store.root, [ids["pattern"]])
    access.record_access(store.root, [ids["fix"]])
    return ids


def test_reflection_themes_projects_usage_and_insights(store):
    ids = _seed(store)
    report = reflect(store.root)
    assert report["memories"] == 5  # the turn is left out
    assert report["themes"][0] == {"tags": ["fix", "python"], "count": 3,
                                   "examples": report["themes"][0]["examples"]}
    assert len(report["themes"][0]["examples"]) == 3
    assert {"tags": ["deploy", "docker"], "count": 2} == {k: report["themes"][1][k] for k in ("tags", "count")}
    spanning = {c["tag"]: c["projects"] for c in report["cross_project"]}
    assert spanning["fix"] == {"shop": 2, "cms": 1} and "docker" not in spanning  # one project only
    assert [(m["id"], m["accesses"]) for m in report["most_used"]] == [(ids["pattern"], 2), (ids["fix"], 1)]
    assert {i["id"] for i in report["insights"]} == {ids["fix"], ids["pattern"]}
    assert report["states"]["active"] == 5
    text = render(report)
    for heading in ("## Themes", "## Cross-Project Patterns", "## Most Used", "## Recent Insights", "## Gardening"):
        assert heading in text
    assert "**fix + python**: 3 memories" in text and "fix**: shop (2), cms (1)" in text


def test_reflect_cli_writes_reflection_md_and_counts_runs(store):
    _seed(store)
    env = {"RLM_MEM_DIR": str(store.root)}
    first = CliRunner().invoke(cli, ["reflect"], env=env)
    assert first.exit_code == 0, first.output
    assert "# Reflection Summary" in first.output and (store.root / "REFLECTION.md").is_file()
    second = CliRunner().invoke(cli, ["reflect", "--json"], env=env)
    data = json.loads(second.output)
    assert data["reflections"] == 2 and data["path"].endswith("REFLECTION.md")
    assert "Total reflections: 2" in (store.root / "REFLECTION.md").read_text()


def test_reflection_of_an_empty_store(tmp_path):
    report = reflect(tmp_path / "none")
    assert report["memories"] == 0 and report["themes"] == []
    path = write_reflection(tmp_path / "none", report)
    assert "- none yet" in path.read_text()


def test_a_log_rewritten_for_a_delete_keeps_what_is_appended_meanwhile(tmp_path):
    """forget_episode and forget_kept_versions rewrite a log that others append to without a lock: a line or an
    entry appended while the rewrite runs is kept."""
    import threading
    import time

    from brain.store.audit import audit, forget_kept_versions, read_audit
    from brain.util.files import store_lock

    doomed, other = "chunk-2026-02-10-0000dead", "chunk-2026-02-10-0000beef"
    stop, appended = threading.Event(), []

    def appender():
        while not stop.is_set():
            n = len(appended)
            audit(tmp_path, "update", other, reason=f"meanwhile {n}")
            append_episode(tmp_path, "2026-02-10T14:05:00Z", f"Meanwhile {n}", summary="appended meanwhile")
            appended.append(n)
            time.sleep(0.001)  # a busy writer, not a flood: the logs stay small enough to rewrite quickly

    thread = threading.Thread(target=appender)
    thread.start()
    try:
        for _ in range(60):
            audit(tmp_path, "sync", doomed, details={"lost": {"content": "old text"}})
            append_episode(tmp_path, "2026-02-10T14:05:00Z", "About the doomed one", chunk_id=doomed)
            with store_lock(tmp_path):
                forget_kept_versions(tmp_path, doomed)
                forget_episode(tmp_path, doomed)
    finally:
        stop.set()
        thread.join()
    reasons = {e["reason"] for e in read_audit(tmp_path, other)}
    titles = {e["title"] for e in read_episodes(tmp_path)}
    assert len(appended) > 60  # the two really ran together
    assert {f"meanwhile {n}" for n in appended} <= reasons
    assert {f"Meanwhile {n}" for n in appended} <= titles
    assert not read_audit(tmp_path, doomed, "sync") and "About the doomed one" not in titles
