"""Sharing a memory folder through git: two clones add memories, merge without conflicts, indexes catch up."""
import json
import os
import shutil
import sqlite3
import subprocess

import pytest
from click.testing import CliRunner

from brain.cli.main import cli
from brain.interop.share import GITATTRIBUTES, GITIGNORE, init_share
from brain.store.chunk_store import ChunkStore

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(cwd, *args):
    env = dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="t",
               GIT_AUTHOR_EMAIL="t@example.invalid", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"git {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def indexed_ids(root):
    conn = sqlite3.connect(root / "index" / "search.db")
    try:
        return {row[0] for row in conn.execute("SELECT id FROM chunks")}
    finally:
        conn.close()


def fts_hits(root, word):
    conn = sqlite3.connect(root / "index" / "search.db")
    try:
        return {row[0] for row in conn.execute(
            "SELECT chunks.id FROM fts JOIN chunks ON chunks.rowid = fts.rowid WHERE fts MATCH ?", (word,))}
    finally:
        conn.close()


def add(store, *texts):
    # the same month for everyone: both people write into one month folder, the case a merge must handle
    return [store.create_chunk(t, tags=["team"], created=f"2026-03-0{i + 1}T10:00:00Z").id
            for i, t in enumerate(texts)]


def test_init_share_writes_both_files_once(tmp_path):
    root = tmp_path / "memory"
    (root).mkdir()
    (root / ".gitignore").write_text("notes.tmp")  # someone's own line, no final newline
    added = init_share(root)
    assert added == {".gitignore": list(GITIGNORE), ".gitattributes": list(GITATTRIBUTES)}
    ignore = (root / ".gitignore").read_text()
    assert ignore.startswith("notes.tmp\n") and all(line in ignore.splitlines() for line in GITIGNORE)
    assert init_share(root) == {".gitignore": [], ".gitattributes": []}
    assert (root / ".gitattributes").read_text().count("audit/*.jsonl merge=union") == 1


def test_two_clones_merge_without_conflicts(tmp_path):
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "--bare", "-b", "main", str(origin))
    a_repo, b_repo = tmp_path / "alice", tmp_path / "bob"
    git(tmp_path, "clone", str(origin), str(a_repo))
    a_root = a_repo / "memory"
    alice = ChunkStore(a_root, actor="alice")
    a_first = add(alice, "Alice: the API gateway terminates TLS.", "Alice: deploys happen on Tuesdays.")
    init_share(a_root)
    git(a_repo, "add", "-A")
    git(a_repo, "commit", "-m", "alice: first memories")
    git(a_repo, "push", "origin", "main")
    tracked = git(a_repo, "ls-files").split()
    assert "memory/.gitignore" in tracked and not any(p.startswith("memory/index/") for p in tracked)
    assert any(p.startswith("memory/audit/") for p in tracked)

    git(tmp_path, "clone", str(origin), str(b_repo))
    b_root = b_repo / "memory"
    bob = ChunkStore(b_root, actor="bob")
    assert bob.sync_derived() is not None  # a fresh clone has no index: built from the chunk files
    assert indexed_ids(b_root) == set(a_first)
    b_ids = add(bob, "Bob: the nightly backup runs at 02:00.", "Bob: zebrafish is the staging cluster name.")
    git(b_repo, "add", "-A")
    git(b_repo, "commit", "-m", "bob: memories")

    a_more = add(alice, "Alice: feature flags live in LaunchDarkly.", "Alice: the search cluster has 3 nodes.")
    git(a_repo, "add", "-A")
    git(a_repo, "commit", "-m", "alice: more memories")
    git(a_repo, "push", "origin", "main")

    git(b_repo, "pull", "--no-rebase", "origin", "main")  # a real merge: both sides changed the same folders
    assert git(b_repo, "status", "--porcelain") == ""
    assert "Merge" in git(b_repo, "log", "-1", "--format=%s")
    everyone = set(a_first + a_more + b_ids)
    audit_lines = "".join(p.read_text() for p in (b_root / "audit").glob("*.jsonl"))
    assert all(cid in audit_lines for cid in everyone)  # union merge kept both people's audit lines
    assert {c.id for c in bob.list_chunks()} == everyone  # the files are there at once
    assert indexed_ids(b_root) == set(a_first + b_ids)  # the index is stale until synced
    result = bob.sync_derived()
    assert result is not None and result["months"] == ["2026-03"]
    assert indexed_ids(b_root) == everyone
    assert fts_hits(b_root, "LaunchDarkly") == {a_more[0]}
    assert bob.sync_derived() is None  # nothing changed since

    git(b_repo, "push", "origin", "main")
    git(a_repo, "pull", "--no-rebase", "origin", "main")
    alice.create_chunk("Alice: any write also catches up the index.", created="2026-03-09T10:00:00Z")
    assert indexed_ids(a_root) >= everyone
    assert fts_hits(a_root, "zebrafish") == {b_ids[1]}


def test_share_cli(tmp_path):
    runner = CliRunner()
    env = {"RLM_MEM_DIR": str(tmp_path / "memory")}
    result = runner.invoke(cli, ["share", "init"], env=env)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "memory" / ".gitattributes").read_text().splitlines()[-2:] == list(GITATTRIBUTES)
    again = runner.invoke(cli, ["share", "init", "--json"], env=env)
    assert again.exit_code == 0 and '"added"' in again.output and "index/" not in again.output.split('"added"')[1]
    ChunkStore(tmp_path / "memory").create_chunk("Shared memories are plain files.")
    synced = runner.invoke(cli, ["share", "refresh"], env=env)
    assert synced.exit_code == 0 and synced.output.strip() == "indexes are up to date"
    # the command's first name still runs it, for scripts written with it, and is not listed
    ChunkStore(tmp_path / "memory").create_chunk("Scripts may still call it by its first name.")
    former = runner.invoke(cli, ["share", "sync", "--json"], env=env)
    assert former.exit_code == 0 and json.loads(former.output)["indexed"] == 0, former.output
    listed = runner.invoke(cli, ["share", "--help"], env=env).output
    assert "refresh" in listed and " sync " not in listed
