"""Claude Code's own auto memory as a source (issue 34): real memory files in Claude Code's layout, read by the
real capture worker after a session ends through the real hooks; new and changed entries become typed memories
with their provenance, a changed entry supersedes its earlier version, an unchanged file is not read again."""
import json
import os
import subprocess
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from harness.claude_code import BUNDLE_ROOT, fire
from harness.transcripts import Assistant, User, write_session

from brain.capture.queue import worker_running
from brain.context.project import ProjectInfo
from brain.interop import auto_memory, claude_memory
from brain.scripts import ChunkStore

RLM = str(BUNDLE_ROOT / ".venv" / "bin" / "rlm-mem")
TOPIC = ("---\nname: deploys\ndescription: How the app is deployed\ntype: project\n---\n"
         "Deploys go through Kamal to the two Hetzner hosts; staging first, every time.\n")
INDEX = "# Memory\n- [Deploys](deploys.md) — how we deploy\n- The staging database listens on port 5433\n"


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "app"
    folder.mkdir()
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    return folder


def memory_folder(project) -> Path:
    slug = "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in os.path.realpath(project))
    return Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / slug / "memory"


def end_session(project, sid: str, days_ago: int) -> None:
    """A session in Claude Code's projects folder, ended through the real hooks, then the queued capture run by
    the real worker (`rlm-mem ingest`)."""
    folder = memory_folder(project).parent
    folder.mkdir(parents=True, exist_ok=True)
    start = datetime.now(timezone.utc) - timedelta(days=days_ago)
    path = write_session(folder / f"{sid}.jsonl", sid, project, start,
                         [User("Check the deploy notes."), Assistant("Read them.")])
    base = {"session_id": sid, "transcript_path": str(path), "cwd": str(project)}
    assert all(run.returncode == 0 for run in fire("SessionStart", dict(base, source="startup")))
    assert all(run.returncode == 0 for run in fire("SessionEnd", dict(base, reason="prompt_input_exit")))
    done = subprocess.run([RLM, "ingest"], capture_output=True, text=True, cwd=project)
    assert done.returncode == 0, done.stderr
    deadline = time.monotonic() + 60  # the worker SessionEnd started may be the one that captured it
    while worker_running(os.environ["RLM_MEM_DIR"]) and time.monotonic() < deadline:
        time.sleep(0.1)


def from_auto_memory(root) -> dict:
    """{entry: its memory} of the memories read from auto memory that are not superseded."""
    chunks = [c for c in ChunkStore(root).layout.iter_chunks()
              if (c["metadata"].get("provenance") or {}).get("format") == "claude-memory"
              and c["metadata"].get("status", "active") == "active"]
    return {c["metadata"]["provenance"]["ref"]: c for c in chunks}


def touch(path: Path, text: str) -> None:
    before = path.stat().st_mtime if path.exists() else None
    path.write_text(text, encoding="utf-8")
    if before is not None:
        os.utime(path, (before + 10, before + 10))  # a later time even on a coarse clock


def test_entries_become_typed_memories_and_a_changed_entry_supersedes_its_earlier_version(project,
                                                                                         isolated_memory):
    folder = memory_folder(project)
    folder.mkdir(parents=True)
    touch(folder / "MEMORY.md", INDEX)
    touch(folder / "deploys.md", TOPIC)
    end_session(project, "s1", days_ago=3)
    first = from_auto_memory(isolated_memory)
    assert set(first) == {"deploys.md", "MEMORY.md:The staging database listens on port 5433"}
    topic = first["deploys.md"]
    assert "Kamal" in topic["content"] and topic["metadata"]["provenance"]["file"] == str(folder / "deploys.md")
    assert topic["metadata"]["provenance"]["kind"] == "artifact" and topic["metadata"]["project_name"] == "app"

    touch(folder / "deploys.md", TOPIC.replace("Kamal", "Kamal 2"))
    touch(folder / "MEMORY.md", INDEX.replace("port 5433", "port 6432 since the move"))
    end_session(project, "s2", days_ago=2)
    second = from_auto_memory(isolated_memory)
    old_topic = json.loads(subprocess.run([RLM, "get", topic["id"], "--json"], capture_output=True, text=True,
                                          cwd=project).stdout)
    assert old_topic["metadata"]["status"] == "superseded"
    assert old_topic["links"]["superseded_by"] == [second["deploys.md"]["id"]]
    assert "Kamal 2" in second["deploys.md"]["content"]
    note = second["MEMORY.md:The staging database listens on port 6432 since the move"]
    old_note = first["MEMORY.md:The staging database listens on port 5433"]
    assert note["links"]["supersedes"] == [old_note["id"]]  # the same note in other words

    end_session(project, "s3", days_ago=1)  # nothing changed: nothing new
    assert {k: c["id"] for k, c in from_auto_memory(isolated_memory).items()} == \
        {k: c["id"] for k, c in second.items()}


def test_an_unchanged_file_costs_a_stat_and_is_not_read_again(tmp_path, isolated_memory, monkeypatch):
    folder = tmp_path / "memory-files"
    folder.mkdir()
    touch(folder / "MEMORY.md", INDEX)
    touch(folder / "deploys.md", TOPIC)
    store, project = ChunkStore(isolated_memory), ProjectInfo("p1", "app", None, "test")
    reads = []
    real_read = claude_memory.read
    monkeypatch.setattr(claude_memory, "read", lambda src, context=None: reads.append(src.name) or
                        real_read(src, context))
    assert len(auto_memory.read_auto_memory(store, project, [folder])["created"]) == 2
    assert sorted(reads) == ["MEMORY.md", "deploys.md"]
    reads.clear()
    assert auto_memory.read_auto_memory(store, project, [folder])["created"] == [] and reads == []
    touch(folder / "deploys.md", TOPIC + "Rollbacks: `kamal rollback`.\n")
    result = auto_memory.read_auto_memory(store, project, [folder])
    assert reads == ["deploys.md"] and len(result["created"]) == 1 and len(result["superseded"]) == 1


def test_the_folder_autoMemoryDirectory_names_is_read(tmp_path, project, monkeypatch):
    notes = tmp_path / "synced" / "app-memory"
    notes.mkdir(parents=True)
    config = Path(os.environ["CLAUDE_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("HOME", str(tmp_path))
    (config / "settings.json").write_text(json.dumps({"autoMemoryDirectory": "~/synced/app-memory"}))
    assert auto_memory.memory_folders(project) == [notes]
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryDirectory": str(tmp_path)}))
    assert auto_memory.memory_folders(project) == [notes]  # a project's shared settings may not send it elsewhere


def test_a_folder_named_memory_beside_a_transcript_elsewhere_is_not_read(tmp_path, isolated_memory):
    """Only Claude Code's projects folder holds auto memory beside transcripts; rlm-mem's own memory folder (its
    episodes are markdown) is never read as auto memory."""
    assert auto_memory.memory_folders(None, tmp_path / "s1.jsonl") == []
    (isolated_memory / "episodes").mkdir(parents=True)
    (isolated_memory / "episodes" / "2026-01-05.md").write_text("- decided things\n")
    result = auto_memory.read_auto_memory(ChunkStore(isolated_memory), ProjectInfo("p", "p", None, "t"),
                                          [isolated_memory, isolated_memory / "episodes"])
    assert result["created"] == []
