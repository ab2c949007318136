"""`rlm-mem sync` facing what a remote may hold and what git may do: a damaged or hostile tree (links, names that
are not UTF-8, files rlm-mem does not know, log lines and tombstones of no kind of its own), another release of
rlm-mem on another machine, blobs too big to read; a remote that hangs, the person's own ssh. Two machines (two
HOMEs), a bare repository, real git and the real command line."""
import hashlib
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from harness.claude_code import BUNDLE_ROOT
from harness.machines import remote, two  # noqa: F401 - the fixtures
from harness.machines import SilentServer, blob_of, git, processes_mentioning, put_on_main, tree_of

from brain.store.validation import FILES_VERSION
from brain.sync.tracked import MAX_FILE

sys.path.insert(0, str(BUNDLE_ROOT / "scripts"))
from demo import write_transcript  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def doctor_clean(machine) -> None:
    report = machine.run("doctor", ok=False)
    assert report.exit_code == 0, report.stdout


def test_a_hostile_tree_is_checked_as_local_files_are_and_not_carried_on(two, remote):
    laptop, desktop = two
    kept = laptop.remember("The build cache lives on the NFS share")
    laptop.sync("--remote", str(remote))
    desktop.sync("--remote", str(remote))
    good = json.dumps({"time": "2026-01-05T10:00:00Z", "action": "update", "chunk_id": kept, "actor": "desktop",
                       "reason": "a line of rlm-mem's own"})
    put_on_main(remote, {
        "audit/2026-01.jsonl": "\n".join([good, "/etc/passwd", '{"time": "x", "action": "create"}', "{not json"])
                               .encode() + b"\n",
        "audit/2026-02.jsonl": ("link", "/etc/passwd"),
        "episodes/2026-01-05.md": ("link", "../../.bashrc"),
        "tombstones.txt": b"garbage-token ../../etc/passwd key:zz\n",
        "notes/README.txt": b"a file rlm-mem does not know\n",
        b"chunks/2026-01/\xff\xfe-not-utf8.json": b"{}\n",
    })
    for round_ in range(2):  # not stuck on any of it: the second sync of each runs as the first did
        for machine in (laptop, desktop):
            machine.sync()
            doctor_clean(machine)
    audit = (laptop.root / "audit" / "2026-01.jsonl").read_text()
    assert good in audit and "passwd" not in audit and "not json" not in audit
    assert not (laptop.root / "audit" / "2026-02.jsonl").exists()
    assert not (laptop.root / "episodes" / "2026-01-05.md").exists()
    buried = laptop.root / "state" / "deleted-keys.txt"
    assert not buried.exists() or buried.read_text().split() == []
    tip = tree_of(remote)
    assert set(tip) == set(tree_of(laptop.root / "sync")) == set(tree_of(desktop.root / "sync"))
    assert all(p.split("/")[0] in ("chunks", "archive", "audit", "episodes") or p in ("tombstones.txt",
               "rlm-mem-sync.json") for p in tip), tip  # nothing rlm-mem does not know is carried on
    listing = subprocess.run(["git", f"--git-dir={remote}", "ls-tree", "-r", "-z", "main"], capture_output=True,
                             check=True).stdout
    assert b"\xff" not in listing and b"120000" not in listing
    assert laptop.memories() == desktop.memories() and kept in laptop.memories()


# ------------------------------------------------------------------ another release on another machine
def newer_release(tmp_path: Path, *, says_so: bool) -> Path:
    """A copy of this bundle standing in for a later release whose memories may hold a field this one's schema
    refuses (metadata.mood). `says_so`: it raised FILES_VERSION for it, as a release must."""
    copy = tmp_path / ("newer" if says_so else "newer-unmarked")
    for folder in ("brain", "schemas", "scripts"):
        shutil.copytree(BUNDLE_ROOT / folder, copy / folder, ignore=shutil.ignore_patterns("__pycache__"))
    if (BUNDLE_ROOT / ".venv").is_dir():
        (copy / ".venv").symlink_to(BUNDLE_ROOT / ".venv")  # the same packages
    schema = json.loads((copy / "schemas" / "chunk.schema.json").read_text())
    schema["properties"]["metadata"]["properties"]["mood"] = {"type": "string"}
    (copy / "schemas" / "chunk.schema.json").write_text(json.dumps(schema, indent=2))
    if says_so:
        code = copy / "brain" / "store" / "validation.py"
        code.write_text(code.read_text().replace(f"FILES_VERSION = {FILES_VERSION}",
                                                 f"FILES_VERSION = {FILES_VERSION + 1}"))
    return copy


def with_mood(machine, chunk_id: str, mood: str) -> None:
    """What the newer release writes: a memory with the new field."""
    path = next(machine.root.rglob(f"{chunk_id}.json"))
    data = json.loads(path.read_text())
    data["metadata"]["mood"] = mood
    path.write_text(json.dumps(data, indent=2) + "\n")


def test_an_older_release_refuses_a_remote_a_newer_one_wrote_and_changes_nothing(two, remote, tmp_path):
    laptop, desktop = two
    newer = newer_release(tmp_path, says_so=True)
    laptop.remember("The deploy window is Tuesday")
    laptop.sync("--remote", str(remote))
    desktop.command("sync", "--remote", str(remote), bundle=newer)
    made = desktop.command("remember", "The on-call phone is the red one", bundle=newer).stdout.split()[0]
    with_mood(desktop, made, "calm")
    desktop.command("sync", bundle=newer)
    before, head = laptop.files(), git("--git-dir", str(remote), "rev-parse", "main")
    refused = laptop.command("sync", ok=False)
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.startswith("Error: ") and len(refused.stderr.strip().splitlines()) == 1
    assert "update rlm-mem on this machine" in refused.stderr
    assert laptop.files() == before and git("--git-dir", str(remote), "rev-parse", "main") == head
    assert "sync behind" in laptop.run("hud").stdout
    laptop.command("sync", bundle=newer)  # updated: it reads them now
    assert laptop.memories()[made][5]["mood"] == "calm"


def test_a_memory_this_release_cannot_read_is_never_merged_reverted_or_dropped(two, remote, tmp_path):
    """A later release that forgot to raise FILES_VERSION (or a damaged blob): nothing it wrote is rewritten."""
    laptop, desktop = two
    newer = newer_release(tmp_path, says_so=False)
    edited = laptop.remember("The deploy window is Tuesday")
    laptop.sync("--remote", str(remote))
    desktop.command("sync", "--remote", str(remote), bundle=newer)
    desktop.command("update", edited, "--content", "The deploy window moved to Thursday", bundle=newer)
    with_mood(desktop, edited, "calm")
    made = desktop.command("remember", "The on-call phone is the red one", bundle=newer).stdout.split()[0]
    with_mood(desktop, made, "busy")
    desktop.command("sync", bundle=newer)
    tip = tree_of(remote)
    for _ in range(3):
        out = laptop.command("sync").stdout
        assert "held back" in out
        assert tree_of(remote) == tip  # the edit stands, the new memory stays: nothing reverted, nothing flips
        desktop.command("sync", bundle=newer)
        assert tree_of(remote) == tip
    assert laptop.memories()[edited][1] == "The deploy window is Tuesday" and made not in laptop.memories()
    mine = desktop.memories()
    assert mine[edited][1] == "The deploy window moved to Thursday" and mine[made][5]["mood"] == "busy"
    report = laptop.run("doctor", ok=False)
    assert "[sync_held]" in report.stdout and "update rlm-mem here" in report.stdout
    laptop.command("sync", bundle=newer)  # updated: it takes them
    assert laptop.memories()[edited][1] == "The deploy window moved to Thursday" and made in laptop.memories()


# ------------------------------------------------------------------ size
# `rlm-mem ARGS` in this process, which says its peak resident memory on its way out (Linux's /proc).
PEAK_MEMORY = ("import atexit, runpy, sys\n"
               "atexit.register(lambda: sys.stderr.write(next(line for line in open('/proc/self/status')\n"
               "                                          if line.startswith('VmHWM'))))\n"
               "sys.argv = sys.argv[1:]\n"
               "runpy.run_path(sys.argv[0], run_name='__main__')\n")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads peak memory from /proc")
def test_a_blob_bigger_than_a_sync_reads_is_never_read(two, remote):
    laptop, desktop = two
    kept = laptop.remember("The build cache lives on the NFS share")
    laptop.sync("--remote", str(remote))
    desktop.sync("--remote", str(remote))
    line = '{"time": "2026-01-05T10:00:00Z", "action": "update", "chunk_id": "%s", "actor": "x", "reason": "%08d"}'
    huge = "\n".join(line % (kept, i) for i in range(MAX_FILE // 110 + 1000)).encode() + b"\n"
    assert len(huge) > MAX_FILE
    put_on_main(remote, {"audit/2026-01.jsonl": huge, f"chunks/{kept[6:13]}/{kept}.json": huge})
    desktop.remember("Desktop's memory of the day")
    for machine in (laptop, desktop, laptop):
        run = subprocess.run([sys.executable, "-c", PEAK_MEMORY, str(BUNDLE_ROOT / "scripts" / "rlm_mem.py"), "sync"],
                             env=machine.environ(), capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        peak = int(run.stderr.split("VmHWM:")[1].split()[0]) * 1024
        assert peak < MAX_FILE, peak  # its own peak (git's processes apart): the blob was never read
        assert machine == desktop or "held back" in run.stdout
    for machine in two:
        audit = machine.root / "audit" / "2026-01.jsonl"
        assert not audit.exists() or audit.stat().st_size < 1024 * 1024
        assert machine.memories()[kept][1] == "The build cache lives on the NFS share"
        report = machine.run("doctor", ok=False)
        assert "[audit_log]" not in report.stdout and "[state_file]" not in report.stdout
    assert laptop.memories() == desktop.memories()
    tip = subprocess.run(["git", f"--git-dir={remote}", "cat-file", "--batch-check", "--batch-all-objects"],
                         capture_output=True, text=True, check=True).stdout
    sizes = {line.split()[0]: int(line.split()[2]) for line in tip.splitlines()}
    tip = tree_of(remote)
    assert "audit/2026-01.jsonl" not in tip  # the merged log (nothing in it here) replaced it
    assert sizes[tip[f"chunks/{kept[6:13]}/{kept}.json"]] > MAX_FILE  # a memory never read is never replaced


def test_doctor_says_what_to_do_with_each_kind_of_file_held_back(two, remote):
    laptop, _ = two
    kept = laptop.remember("The build cache lives on the NFS share")
    laptop.sync("--remote", str(remote))
    (laptop.root / "audit" / "2025-12.jsonl").write_bytes(b'{"time": "2025-12-01T00:00:00Z"} \xff\xfe\n')
    path = next((laptop.root / "chunks").rglob(f"{kept}.json"))
    data = json.loads(path.read_text())
    data["content"] = "hand edit: the token is ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    path.write_text(json.dumps(data, indent=2) + "\n")
    assert "held back 2 file(s)" in laptop.sync().stdout
    report = laptop.run("doctor", ok=False).stdout
    said = [line for line in report.splitlines() if "[sync_held]" in line]
    assert any("audit/2025-12.jsonl" in line and "move it out of the memory folder" in line for line in said)
    assert any(kept in line and f"rlm-mem update {kept}" in line for line in said)
    (laptop.root / "audit" / "2025-12.jsonl").rename(laptop.home / "aside.jsonl")  # as it says
    laptop.run("update", kept, "--content", "The build cache lives on the NFS share, volume two")
    laptop.sync()
    assert laptop.run("doctor", ok=False).exit_code == 0


# ------------------------------------------------------------------ git and the network
BACKGROUND_SYNC = "import sys\nfrom brain.sync.engine import sync\nsync(sys.argv[1], background=True)\n"


def background_sync(machine, **env):
    """The background worker's sync (session/maintenance.sync_if_due), in a process of its own."""
    return subprocess.run([sys.executable, "-c", BACKGROUND_SYNC, str(machine.root)],
                          env=dict(machine.environ(), **env), capture_output=True, text=True, timeout=300)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="looks for processes left in /proc")
@pytest.mark.parametrize("background", [False, True])
def test_a_remote_that_hangs_leaves_no_git_helper_behind(two, remote, background):
    laptop, _ = two
    laptop.remember("The release notes live in the wiki")
    laptop.sync("--remote", str(remote))
    server = SilentServer()
    try:
        git("--git-dir", str(laptop.root / "sync"), "config", "remote.origin.url",
            f"http://127.0.0.1:{server.port}/memory.git")
        run = background_sync(laptop, RLM_MEM_SYNC_TIMEOUT="3") if background else \
            laptop.command("sync", ok=False, RLM_MEM_SYNC_TIMEOUT="3")
        assert run.returncode == 1 and "did not finish within 3 s" in (run.stdout + run.stderr)
        time.sleep(0.5)
        assert processes_mentioning(f"127.0.0.1:{server.port}") == []  # git remote-http died with git
    finally:
        server.close()


def test_the_persons_own_ssh_command_is_used_in_the_background(two, remote, tmp_path):
    laptop, desktop = two
    log = tmp_path / "ssh.log"
    ssh = tmp_path / "my-ssh"
    ssh.write_text(f'#!/bin/sh\necho "$*" >> {log}\nfor last; do :; done\nexec sh -c "$last"\n')
    ssh.chmod(0o755)
    for machine in two:
        (machine.home / ".gitconfig").write_text(f"[core]\n\tsshCommand = {ssh}\n")
    laptop.remember("Deploys go through the bastion host")
    laptop.sync("--remote", f"myhost:{remote}")  # in the foreground, theirs was always used
    assert "git-receive-pack" in log.read_text()
    log.unlink()
    desktop.sync("--remote", f"myhost:{remote}")
    desktop.remember("The bastion host is bastion-2")
    run = background_sync(desktop)
    assert run.returncode == 0, run.stderr
    assert "git-receive-pack" in log.read_text() and "BatchMode" not in log.read_text()
    laptop.sync()
    assert any("bastion-2" in m[1] for m in laptop.memories().values())


@pytest.mark.parametrize("value", ["abc", "0", "-5", "nan"])
def test_a_bad_sync_timeout_stops_the_sync_alone_and_says_so(two, remote, tmp_path, value):
    laptop, _ = two
    laptop.remember("The staging database listens on port 5433")
    laptop.sync("--remote", str(remote))
    new = laptop.remember("The queue's dead-letter exchange is called dlx")
    before = laptop.files()
    failed = laptop.command("sync", ok=False, RLM_MEM_SYNC_TIMEOUT=value)
    assert failed.returncode == 1 and failed.stderr.startswith("Error: RLM_MEM_SYNC_TIMEOUT")
    assert len(failed.stderr.strip().splitlines()) == 1 and laptop.files() == before
    assert laptop.command("doctor", RLM_MEM_SYNC_TIMEOUT=value).returncode == 0
    transcript = tmp_path / "s1.jsonl"
    write_transcript(transcript, "s1", tmp_path, [("user", "Remember that the build uses Bazel 7."),
                                                  ("assistant", "Noted.")])
    laptop.command("ingest", str(transcript), RLM_MEM_SYNC_TIMEOUT=value)  # the capture worker's code
    assert any("Bazel 7" in m[1] for m in laptop.memories().values())
    laptop.sync()
    assert f"chunks/{new[6:13]}/{new}.json" in tree_of(remote)


def test_git_upkeep_runs_and_a_killed_write_leaves_no_temporary_pack(two, remote):
    laptop, _ = two
    for i in range(12):
        laptop.remember(f"Upkeep fact {i}: the cron job number {i} runs at 0{i % 10}:15")
    laptop.sync("--remote", str(remote))
    repo = laptop.root / "sync"
    stale = [repo / "objects" / "pack" / "tmp_pack_Ab12Cd", repo / "objects" / "pack" / "tmp_idx_Ab12Cd"]
    for path in stale:
        path.write_bytes(b"PACK left by a killed fast-import")
    # git estimates its loose objects from the folder objects/17: two there pass a threshold of 1
    git("--git-dir", str(repo), "config", "gc.auto", "1")
    planted = (f"upkeep {n}".encode() for n in range(100_000))
    for data in [d for d in planted if hashlib.sha1(b"blob %d\0" % len(d) + d).hexdigest().startswith("17")][:2]:
        blob_of(repo, data)
    assert int(dict(line.split(": ") for line in git("--git-dir", str(repo), "count-objects", "-v")
                    .splitlines())["count"]) > 12
    laptop.remember("One more fact for the last sync")
    laptop.sync()
    assert not any(path.exists() for path in stale)
    counted = dict(line.split(": ") for line in git("--git-dir", str(repo), "count-objects", "-v").splitlines())
    # packed by `gc --auto`: all but the two planted, which nothing reaches (git prunes those after two weeks)
    assert int(counted["count"]) == 2 and int(counted["packs"]) >= 1, counted


# ------------------------------------------------------------------ where the remote and the memory are
def test_a_remote_given_as_a_path_is_read_from_where_the_person_stands(two, remote, monkeypatch):
    laptop, desktop = two
    laptop.remember("The deploy key rotates every quarter")
    monkeypatch.chdir(remote.parent)
    laptop.sync("--remote", "remote.git")  # relative to here, not to the sync repository
    assert git("--git-dir", str(laptop.root / "sync"), "config", "remote.origin.url").strip() == str(remote)
    monkeypatch.chdir(laptop.root / "sync")
    before = git("--git-dir", str(remote), "rev-parse", "main")
    for itself in (".", str(laptop.root), "../chunks"):
        refused = laptop.run("sync", "--remote", itself, ok=False)
        assert refused.exit_code == 1 and "inside the memory folder" in refused.output, itself
    assert git("--git-dir", str(laptop.root / "sync"), "config", "remote.origin.url").strip() == str(remote)
    assert git("--git-dir", str(remote), "rev-parse", "main") == before
    missing = desktop.run("sync", "--remote", str(remote.parent / "nowhere.git"), ok=False)
    assert missing.exit_code == 1 and len(missing.output.strip().splitlines()) == 1
    assert "does not appear to be a git repository" in missing.output  # git's telling line, not its advice


def test_a_home_folder_kept_in_git_syncs_but_a_projects_memory_does_not(two, remote, tmp_path):
    laptop, desktop = two
    git("init", "--quiet", "-b", "main", str(laptop.home))  # dotfiles
    (laptop.home / ".bashrc").write_text("export EDITOR=vim\n")
    git("add", ".bashrc", cwd=laptop.home)
    git("commit", "--quiet", "-m", "dotfiles", cwd=laptop.home)
    laptop.remember("My shell is zsh on the laptop")
    assert "sent" in laptop.sync("--remote", str(remote)).stdout
    desktop.sync("--remote", str(remote))
    assert any("zsh" in m[1] for m in desktop.memories().values())
    git("add", "-f", str(next((laptop.root / "chunks").rglob("chunk-*.json"))), cwd=laptop.home)  # tracked now
    refused = laptop.run("sync", ok=False)
    assert refused.exit_code == 1 and "shared through its git repository" in refused.output
    project = tmp_path / "team-app"
    git("init", "--quiet", "-b", "main", str(project))
    (project / ".rlm-mem.json").write_text(json.dumps({"memory_dir": ".rlm-mem"}))
    team = project / ".rlm-mem"
    desktop.run("--dir", str(team), "remember", "The team's API listens on port 8080")
    refused = desktop.run("--dir", str(team), "sync", "--remote", str(tmp_path / "other.git"), ok=False)
    assert refused.exit_code == 1 and "shared through its git repository" in refused.output
