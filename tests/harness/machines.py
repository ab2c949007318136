"""Machines of one person for the sync tests: each its own HOME (so its memory root is the default one), a bare
repository as the remote, real git and the real command line; and a way to put any tree on a remote's main branch
(what a damaged or hostile remote holds)."""
import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner
from harness.claude_code import BUNDLE_ROOT

from brain.cli.main import cli

RLM_MEM = [sys.executable, str(BUNDLE_ROOT / "scripts" / "rlm_mem.py")]


def git(*args, cwd=None) -> str:
    env = dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="t",
               GIT_AUTHOR_EMAIL="t@example.invalid", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


def all_objects(repo: Path) -> bytes:
    """Every object of a repository, whole (what anyone with the repository could read)."""
    return subprocess.run(["git", f"--git-dir={repo}", "cat-file", "--batch-all-objects", "--batch"],
                          capture_output=True, check=True).stdout


class Machine:
    """One person's machine: its own HOME, so its memory root is the default one, ~/.local/share/rlm-mem/memory."""

    def __init__(self, tmp_path: Path, name: str):
        self.name, self.home = name, tmp_path / name
        self.home.mkdir()
        self.root = self.home / ".local" / "share" / "rlm-mem" / "memory"
        self.env = {"HOME": str(self.home), "RLM_MEM_DIR": None, "XDG_DATA_HOME": None,
                    "XDG_STATE_HOME": str(self.home / ".local" / "state"), "RLM_MEM_ACTOR": name,
                    "GIT_CONFIG_NOSYSTEM": "1"}

    def environ(self) -> dict:
        env = {k: v for k, v in os.environ.items() if k not in self.env}
        env.update({k: v for k, v in self.env.items() if v is not None})
        return env

    def run(self, *args, ok: bool = True):
        result = CliRunner().invoke(cli, list(args), env=self.env)
        if ok:
            assert result.exit_code == 0, (args, result.output, result.exception)
        return result

    def remember(self, text: str, *options) -> str:
        return self.run("remember", text, *options).stdout.split()[0]

    def sync(self, *options):
        return self.run("sync", *options)

    def memories(self) -> dict:
        """id -> where it is and what it says (this machine's access counts left out)."""
        out = {}
        for where, folder in (("live", self.root / "chunks"), ("archived", self.root / "archive")):
            for path in sorted(folder.rglob("chunk-*.json")):
                data = json.loads(path.read_text())
                md = {k: v for k, v in data["metadata"].items() if k not in ("access_count", "last_accessed")}
                out[data["id"]] = (where, data["content"], sorted(data.get("tags") or []), md.get("pinned"),
                                   data["links"], md)
        return out

    def files(self) -> dict:
        return {p.relative_to(self.root).as_posix(): p.read_bytes() for p in self.root.rglob("*")
                if p.is_file() and p.relative_to(self.root).parts[0] in ("chunks", "archive", "audit", "episodes")}

    def command(self, *args, bundle: Path = BUNDLE_ROOT, ok: bool = True, **env):
        """`rlm-mem ARGS` as a new process of the bundle at `bundle` (another release's copy, say)."""
        done = subprocess.run([sys.executable, str(Path(bundle) / "scripts" / "rlm_mem.py"), *args],
                              env=dict(self.environ(), **env), capture_output=True, text=True, timeout=300)
        if ok:
            assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done


@pytest.fixture
def remote(tmp_path):
    """An empty bare repository: the person's remote."""
    path = tmp_path / "remote.git"
    git("init", "--quiet", "--bare", "-b", "main", str(path))
    return path


@pytest.fixture
def two(tmp_path, remote):
    """The person's laptop and desktop."""
    return Machine(tmp_path, "laptop"), Machine(tmp_path, "desktop")


def blob_of(repo: Path, data: bytes) -> str:
    return subprocess.run(["git", f"--git-dir={repo}", "hash-object", "-w", "--stdin", "--literally"], input=data,
                          capture_output=True, check=True).stdout.decode().strip()


def put_on_main(repo: Path, files: dict) -> str:
    """Commit on `repo`'s main branch its tree changed by `files`: path (bytes or str) -> bytes, ("link", target)
    for a symbolic link, or None to remove it. Returns the commit."""
    head = git("--git-dir", str(repo), "rev-parse", "main").strip()
    entries = {}
    listing = subprocess.run(["git", f"--git-dir={repo}", "ls-tree", "-r", "-z", head], capture_output=True,
                             check=True).stdout
    for entry in listing.split(b"\0"):
        if entry:
            meta, _, path = entry.partition(b"\t")
            mode, _, oid = meta.split(b" ")
            entries[path] = (mode, oid)
    for path, value in files.items():
        path = path.encode() if isinstance(path, str) else path
        if value is None:
            entries.pop(path, None)
        elif isinstance(value, tuple):
            entries[path] = (b"120000", blob_of(repo, value[1].encode()).encode())
        else:
            entries[path] = (b"100644", blob_of(repo, value).encode())

    def tree(level: dict) -> bytes:
        nested, lines = {}, b""
        for path, value in level.items():
            first, slash, rest = path.partition(b"/")
            if slash:
                nested.setdefault(first, {})[rest] = value
            else:
                nested[first] = value
        for name, value in sorted(nested.items()):
            if isinstance(value, dict):
                lines += b"040000 tree " + tree(value) + b"\t" + name + b"\0"
            else:
                lines += value[0] + b" blob " + value[1] + b"\t" + name + b"\0"
        return subprocess.run(["git", f"--git-dir={repo}", "mktree", "-z"], input=lines, capture_output=True,
                              check=True).stdout.strip()

    commit = git("--git-dir", str(repo), "commit-tree", tree(entries).decode(), "-p", head, "-m", "crafted").strip()
    git("--git-dir", str(repo), "update-ref", "refs/heads/main", commit)
    return commit


def tree_of(repo: Path, ref: str = "main") -> dict:
    """path -> blob id of a commit's files."""
    out = {}
    for line in git("--git-dir", str(repo), "ls-tree", "-r", ref).splitlines():
        meta, _, path = line.partition("\t")
        out[path] = meta.split()[2]
    return out


def processes_mentioning(text) -> list:
    """The processes whose command line holds `text` (Linux's /proc): what a sync may have left running."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if str(text).encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                    found.append(pid)
            except OSError:
                pass
    return found


class SilentServer:
    """A TCP port that accepts and never answers: a remote that hangs."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.held = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                self.held.append(self.sock.accept()[0])
            except OSError:
                return

    def close(self):
        for conn in self.held:
            conn.close()
        self.sock.close()
