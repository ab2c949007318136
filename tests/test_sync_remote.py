"""`rlm-mem sync` facing what a remote may hold and what git may do: a damaged or hostile tree (links, names that
are not UTF-8, files rlm-mem does not know, log lines and tombstones of no kind of its own), another release of
rlm-mem on another machine, blobs too big to read; a remote that hangs, the person's own ssh. Two machines (two
HOMEs), a bare repository, real git and the real command line."""
import json
import shutil
import subprocess

import pytest
from harness.machines import remote, two  # noqa: F401 - the fixtures
from harness.machines import put_on_main, tree_of

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
