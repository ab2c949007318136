"""Every test runs against its own memory folder: nothing touches the real home or the bundle's brain/memory."""
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"  # the workplace's shared data, beside the clone (never copied into it)
SHARED_TRANSCRIPTS = SHARED / "data" / "transcripts"  # real Claude Code transcripts


@pytest.fixture(autouse=True)
def isolated_memory(tmp_path, monkeypatch):
    memory = tmp_path / "memory"
    monkeypatch.setenv("RLM_MEM_DIR", str(memory))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))  # Claude Code's own files, auto memory
    for name in ("CLAUDE_PLUGIN_DATA", "CLAUDE_PLUGIN_ROOT", "RLM_MEM_DISABLE", "RLM_MEM_PROJECT",
                 "CLAUDE_PROJECT_DIR", "RLM_MEM_MAX_SENSITIVITY", "CLAUDECODE", "RLM_MEM_TRANSCRIPT",
                 "CLAUDE_ENV_FILE"):
        monkeypatch.delenv(name, raising=False)
    return memory


@pytest.fixture
def project(tmp_path):
    """A project folder (the `cwd` hooks are given) under tmp_path."""
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


# Times relative to now, for gardening and session-start tests that need old or recent memories.
NOW = datetime.now(timezone.utc).replace(microsecond=0)


def ago(days: float) -> str:
    return (NOW - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture
def store(tmp_path):
    """A store under tmp_path (test modules with a `store` fixture of their own use theirs)."""
    from brain.store.chunk_store import ChunkStore

    return ChunkStore(tmp_path / "mem", actor="test")


@pytest.fixture
def recall_sql(monkeypatch):
    """Every SQL statement recall runs from here on, in order (its search-index connections traced)."""
    from brain.recall import recall as recall_module

    seen = []
    real = recall_module.connect

    def traced(root, **kw):
        conn = real(root, **kw)
        conn.set_trace_callback(seen.append)
        return conn

    monkeypatch.setattr(recall_module, "connect", traced)
    return seen
