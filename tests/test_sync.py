"""`rlm-mem sync`: two machines (two HOMEs, two memory roots) and a bare repository, with real git.

What one remembers the other recalls; concurrent changes on both converge with nothing lost and no conflict marker
anywhere; a permanent delete stays deleted; a secret is in no object of any repository; an offline, refusing or
foreign remote says so in one line and leaves the stores as they were; a sync killed at random points is finished
by the next one; the background worker syncs after a session without SessionStart waiting for the network.
"""
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest
from harness.claude_code import BUNDLE_ROOT, fire
from harness.machines import remote, two  # noqa: F401 - the fixtures
from harness.machines import RLM_MEM, Machine, SilentServer, all_objects, git, processes_mentioning

from brain.hud.textwidth import display_width
from brain.index import search_index
from brain.store.chunk_store import ChunkStore
from brain.store.write_session import writing
from brain.sync.apply import apply
from brain.sync.git import Repository
from brain.sync.merge import Merged, merge_fields, union_entries, union_lines
from brain.sync.tracked import scan

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

sys.path.insert(0, str(BUNDLE_ROOT / "scripts"))
from demo import SESSION_1, write_transcript  # noqa: E402

CONFLICT_MARKERS = (b"<<<<<<<", b">>>>>>>", b"\n=======\n")


def no_conflict_markers(*places) -> None:
    for place in places:
        if place.name.endswith(".git") or (place / "HEAD").is_file():
            blob = all_objects(place)
            assert not any(m in blob for m in CONFLICT_MARKERS), place
            continue
        for path in place.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                assert not any(m in data for m in CONFLICT_MARKERS), path


# ------------------------------------------------------------------ the acceptance
def test_what_one_remembers_the_other_recalls_after_sync(two, remote):
    laptop, desktop = two
    laptop.remember("The staging database listens on port 5433", "--tags", "db")
    assert "sent" in laptop.sync("--remote", str(remote)).stdout
    out = desktop.sync("--remote", str(remote)).stdout
    assert "received 1 memory file(s)" in out
    assert not search_index.is_stale(desktop.root)  # indexed by the pull itself: nothing left to re-index
    assert "5433" in desktop.run("recall", "which port does the staging database use?").stdout
    desktop.remember("Deploys to production happen on Tuesdays only")
    desktop.sync()
    laptop.sync()
    assert "Tuesdays" in laptop.run("recall", "when do we deploy to production?").stdout
    assert laptop.memories() == desktop.memories()
    assert not (remote / "index").exists()
    tracked = git("--git-dir", str(remote), "ls-tree", "-r", "--name-only", "main").split()
    assert all(p.split("/")[0] in ("chunks", "archive", "audit", "episodes") or p in ("tombstones.txt",
               "rlm-mem-sync.json") for p in tracked), tracked  # no index/, state/, lock or temp file
    for machine in two:
        assert machine.run("doctor").exit_code == 0


def test_a_remote_with_memory_is_merged_into_a_store_with_memory(two, remote):
    laptop, desktop = two
    mine = [laptop.remember(f"Laptop knew this first: fact {i} about the billing service") for i in range(3)]
    theirs = [desktop.remember(f"Desktop knew this first: fact {i} about the search cluster") for i in range(3)]
    laptop.sync("--remote", str(remote))
    out = desktop.sync("--remote", str(remote)).stdout  # two histories that never met
    assert "received 3 memory file(s)" in out
    laptop.sync()
    assert set(mine + theirs) <= set(laptop.memories()) and laptop.memories() == desktop.memories()
    audit = [line for f in (desktop.root / "audit").glob("*.jsonl") for line in f.read_text().splitlines()]
    assert {json.loads(line)["chunk_id"] for line in audit} >= set(mine + theirs)  # both logs, by union
    no_conflict_markers(laptop.root, desktop.root, remote)


def test_concurrent_changes_converge_with_nothing_lost_and_no_conflict_marker(two, remote):
    laptop, desktop = two
    m1, m2, m3, m4 = (laptop.remember(t) for t in ("The API gateway terminates TLS", "Use ruff for linting",
                                                    "Releases are cut from the release branch",
                                                    "The cache TTL is 300 seconds"))
    laptop.sync("--remote", str(remote))
    desktop.sync("--remote", str(remote))
    # both machines work before either syncs again
    a_new = [laptop.remember(f"Laptop memory {i}: the billing job runs at 0{i}:00") for i in range(3)]
    laptop.run("update", m1, "--content", "The API gateway terminates TLS with certificates from Vault")
    laptop.run("pin", m2)
    laptop.run("forget", m3)
    laptop.run("pin", m4)
    b_new = [desktop.remember(f"Desktop memory {i}: the search index rebuilds nightly at 2{i}:00") for i in range(3)]
    time.sleep(1.1)  # the desktop's edit of m1 is the later one (metadata.updated counts whole seconds)
    desktop.run("update", m1, "--content", "The API gateway terminates TLS at the load balancer")
    desktop.run("update", m2, "--tags", "lint,python")
    desktop.run("pin", m3)
    desktop.run("forget", m4)
    laptop.sync()
    out = desktop.sync().stdout
    assert "changed on both sides" in out
    laptop.sync()
    a, b = laptop.memories(), desktop.memories()
    assert a == b  # the same memory on both
    assert set(a_new + b_new + [m1, m2, m3, m4]) <= set(a)  # nothing lost
    assert a[m1][1] == "The API gateway terminates TLS at the load balancer"  # the later change
    assert a[m2][0] == "live" and a[m2][3] is True and a[m2][2] == ["lint", "python"]  # pin and tags both kept
    assert a[m3][0] == "archived" and a[m3][3] is True  # the forget and the pin travel
    assert a[m4][0] == "archived" and a[m4][3] is True
    for machine in two:  # the losing edit is kept in the audit log, on both machines
        kept = [json.loads(line) for f in (machine.root / "audit").glob("*.jsonl")
                for line in f.read_text().splitlines() if '"sync"' in line]
        assert any(e["chunk_id"] == m1 and "certificates from Vault" in e["details"]["lost"]["content"]
                   for e in kept)
        assert machine.run("doctor").exit_code == 0
    no_conflict_markers(laptop.root, desktop.root, remote)
    assert set(laptop.files()) == set(desktop.files())  # the same files (logs may hold their lines in other orders)
    head = git("--git-dir", str(remote), "rev-parse", "main")
    laptop.sync(), desktop.sync()
    assert git("--git-dir", str(remote), "rev-parse", "main") == head  # settled: no commit back and forth


def test_a_permanent_delete_does_not_come_back(two, remote, tmp_path):
    laptop, desktop = two
    doomed = laptop.remember("The interim admin password policy is twelve characters")
    keep = laptop.remember("Incidents are tracked in the ops channel", "--tags", "ops")
    laptop.run("link", keep, doomed, "--type", "supports")
    laptop.sync("--remote", str(remote))
    desktop.sync("--remote", str(remote))
    laptop.run("forget", doomed, "--permanent")
    desktop.run("update", doomed, "--content", "The interim admin policy now says fourteen characters")
    desktop.run("pin", doomed)
    for machine in (laptop, desktop, laptop, desktop):
        machine.sync()
    third = Machine(tmp_path, "server")
    third.sync("--remote", str(remote))
    for machine in (laptop, desktop, third):
        mem = machine.memories()
        assert doomed not in mem and keep in mem
        assert doomed not in mem[keep][4].get("supports", [])  # no link to it is left either
        assert doomed in (machine.root / "state" / "deleted-keys.txt").read_text().split()
        assert "fourteen" not in machine.run("recall", "admin password policy characters").stdout
        for path in (machine.root / "chunks").rglob("*"):
            assert doomed not in path.name
        for folder in ("episodes", "audit"):
            for path in (machine.root / folder).glob("*"):
                assert "fourteen characters" not in path.read_text()
        assert machine.run("doctor").exit_code == 0
    assert doomed not in git("--git-dir", str(remote), "ls-tree", "-r", "--name-only", "main")


def test_a_link_made_elsewhere_to_a_memory_deleted_for_good_here_goes_with_it(two, remote):
    laptop, desktop = two
    source = laptop.remember("Use ruff for linting")
    doomed = laptop.remember("Releases are cut on Fridays")
    laptop.sync("--remote", str(remote))
    desktop.sync("--remote", str(remote))
    desktop.run("link", source, doomed, "--type", "supports")  # meanwhile, on the other machine
    laptop.run("forget", doomed, "--permanent")
    desktop.sync()  # the link goes out before the delete comes in
    for machine in (laptop, desktop, laptop):
        machine.sync()
        assert doomed not in machine.memories()[source][4].get("supports", []), machine.name
        assert machine.run("doctor").exit_code == 0
    assert laptop.memories() == desktop.memories()


def test_a_merge_never_writes_a_memory_deleted_for_good_meanwhile(two, remote):
    """A merge is worked out before it is applied: a memory deleted for good in between stays deleted."""
    laptop, _ = two
    doomed = laptop.remember("The interim build server is build-7")
    laptop.sync("--remote", str(remote))
    laptop.run("forget", doomed, "--permanent")
    store = ChunkStore(laptop.root)
    repo = Repository(laptop.root / "sync")
    stale = Merged()
    stale.tree = repo.listing(repo.resolve("refs/heads/main"))  # the merge's result, from before the delete
    with writing(store.layout, bulk=True) as session:
        done = apply(session, store, stale, scan(laptop.root), repo.blobs)
    assert done.written == [] and doomed not in laptop.memories()


def test_a_memory_gardening_archives_as_dormant_here_stays_live_elsewhere(two, remote):
    """Access counts are each machine's own, so is gardening's judgement that a memory is dormant: that archive
    does not travel; a forget does, and a memory changed elsewhere comes back here."""
    laptop, desktop = two
    store = ChunkStore(laptop.root, actor="laptop")
    old = [c.id for c in store.create_many([{"content": f"The legacy billing cron number {i} runs on host b{i}",
                                             "created": "2025-01-10T10:00:00Z"} for i in range(4)])]
    laptop.sync("--remote", str(remote))
    desktop.sync("--remote", str(remote))
    assert "4 dormant memories archived" in laptop.run("garden", "--apply").stdout
    laptop.sync()
    desktop.sync()
    assert all(desktop.memories()[i][0] == "live" for i in old)  # used on the desktop, maybe daily
    assert all(laptop.memories()[i][0] == "archived" for i in old)
    desktop.run("update", old[0], "--content", "The legacy billing cron number 0 now runs on host heron")
    desktop.run("forget", old[1])
    desktop.sync()
    laptop.sync()
    mine, theirs = laptop.memories(), desktop.memories()
    assert mine[old[0]][:2] == ("live", "The legacy billing cron number 0 now runs on host heron")
    assert mine[old[1]][0] == theirs[old[1]][0] == "archived"  # a forget travels
    assert [mine[i][0] for i in old[2:]] == ["archived", "archived"] and [theirs[i][0] for i in old[2:]] == ["live"] * 2
    head = git("--git-dir", str(remote), "rev-parse", "main")
    laptop.sync(), desktop.sync()
    assert git("--git-dir", str(remote), "rev-parse", "main") == head  # settled
    for machine in two:
        assert machine.run("doctor").exit_code == 0


def test_a_secret_typed_on_one_machine_is_in_no_object_of_the_repository(two, remote, tmp_path):
    laptop, desktop = two
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    aws = "AKIA" + "Q7WX3ZK2LMN4PR6T"  # not AWS's documented example, which is left as it is
    laptop.remember(f"The CI deploy token is {token} and the AWS key id is {aws}")
    project = tmp_path / "project"
    project.mkdir()
    transcript = tmp_path / "s1.jsonl"
    secret_words = "the vault unseal phrase is purple-elephant-42"
    write_transcript(transcript, "s1", project, [
        ("user", f"Remember that the staging database listens on port 5433. <private>{secret_words}</private>"),
        ("assistant", "Noted: staging is on port 5433."),
    ])
    laptop.run("ingest", str(transcript))
    # a chunk file nobody wrote through rlm-mem (a hand edit) holding a key: held back, never pushed
    original = next((laptop.root / "chunks").rglob("chunk-*.json"))
    planted = json.loads(original.read_text())
    planted["id"] = planted["id"][:-8] + "0badc0de"
    planted["content"] = "hand edit: sk-ant-api03-" + "x" * 90 + "AA"
    (original.parent / f"{planted['id']}.json").write_text(json.dumps(planted, indent=2))
    out = laptop.sync("--remote", str(remote)).stdout
    assert "held back 1 file(s)" in out
    desktop.sync("--remote", str(remote))
    assert any("port 5433" in m[1] for m in desktop.memories().values())
    for repo in (remote, laptop.root / "sync", desktop.root / "sync"):
        blob = all_objects(repo)
        assert b"5433" in blob  # the search is real: the memory is there
        for secret in (token, aws, "purple-elephant", "sk-ant-api03-"):
            assert secret.encode() not in blob, (repo, secret)
    status = laptop.run("sync", "--status", "--json").stdout
    assert planted["id"] in status
    report = laptop.run("doctor", ok=False)
    assert report.exit_code == 1 and "[sync_held]" in report.stdout and planted["id"] in report.stdout


def test_an_offline_remote_leaves_both_stores_intact_and_says_so(two, remote, tmp_path):
    laptop, desktop = two
    laptop.remember("The message queue is RabbitMQ")
    laptop.sync("--remote", str(remote))
    desktop.sync("--remote", str(remote))
    away = tmp_path / "away.git"
    remote.rename(away)  # the server is gone
    new = laptop.remember("The queue's dead-letter exchange is called dlx")
    before = laptop.files(), laptop.memories()
    failed = laptop.run("sync", ok=False)
    assert failed.exit_code == 1
    assert len(failed.output.strip().splitlines()) == 1 and failed.output.startswith("Error: ")
    assert "cannot reach the remote" in failed.output
    assert (laptop.files(), laptop.memories()) == before  # nothing changed here
    desktop_before = desktop.files()
    assert desktop.run("sync", ok=False).exit_code == 1
    assert desktop.files() == desktop_before
    hud = laptop.run("hud").stdout
    assert "sync behind" in hud
    assert {display_width(line) for line in hud.splitlines() if line.startswith(("║", "╔", "╚", "╠"))} == {80}
    assert "sync behind" in laptop.run("statusline").stdout
    report = laptop.run("doctor", ok=False)
    assert report.exit_code == 1 and "[sync_behind]" in report.stdout and "cannot reach" in report.stdout
    away.rename(remote)  # back online
    laptop.sync()
    assert "sync behind" not in laptop.run("hud").stdout
    assert laptop.run("doctor").exit_code == 0
    desktop.sync()
    assert new in desktop.memories()


def test_a_memory_file_lost_here_comes_back_from_the_repository(two, remote):
    laptop, _ = two
    kept = laptop.remember("The on-call phone number is in the wiki")
    laptop.sync("--remote", str(remote))
    path = next((laptop.root / "chunks").rglob(f"{kept}.json"))
    path.unlink()  # lost (a bad disk, a hand `rm`): not a permanent delete, which leaves a tombstone
    out = laptop.sync().stdout
    assert "received 1 memory file(s)" in out and path.is_file()
    assert kept in laptop.run("list").stdout and laptop.run("doctor").exit_code == 0


def test_status_and_off(two, remote):
    laptop, _ = two
    laptop.remember("Postgres runs with 200 max connections")
    laptop.sync("--remote", str(remote))
    laptop.remember("Postgres logs slow queries over 500 ms")
    state = json.loads(laptop.run("sync", "--status", "--json").stdout)
    assert state["configured"] and state["remote"] == str(remote) and state["changed_files"] >= 2
    assert state["error"] is None and state["unpushed_commits"] == 0
    assert "wait for the next sync" in laptop.run("doctor").stdout  # a note, not a problem
    before = laptop.memories()
    assert "sync stopped" in laptop.run("sync", "--off").stdout
    assert laptop.memories() == before and not (laptop.root / "sync").exists()
    assert "not set up" in laptop.run("sync", "--status").stdout
    assert "not set up" in laptop.run("sync", ok=False).output


def test_setting_up_with_an_unreachable_remote_says_so_and_keeps_the_memory(tmp_path):
    machine = Machine(tmp_path, "laptop")
    machine.remember("The on-call rotation changes on Mondays")
    before = machine.files()
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    failed = machine.run("sync", "--remote", f"http://127.0.0.1:{port}/memory.git", ok=False)
    assert failed.exit_code == 1 and len(failed.output.strip().splitlines()) == 1
    assert machine.files() == before
    assert "sync behind" in machine.run("hud").stdout


def test_a_remote_that_is_not_rlm_mems_is_refused_and_nothing_changes(tmp_path, remote):
    work = tmp_path / "code"
    git("init", "--quiet", "-b", "main", str(work))
    (work / "README.md").write_text("my project\n")
    git("add", "README.md", cwd=work)
    git("commit", "--quiet", "-m", "code", cwd=work)
    git("push", "--quiet", str(remote), "main", cwd=work)
    machine = Machine(tmp_path, "laptop")
    machine.remember("Code reviews need two approvals")
    before, head = machine.files(), git("--git-dir", str(remote), "rev-parse", "main")
    failed = machine.run("sync", "--remote", str(remote), ok=False)
    assert failed.exit_code == 1 and len(failed.output.strip().splitlines()) == 1
    assert "other than rlm-mem memory" in failed.output
    assert machine.files() == before and not (machine.root / "sync").exists()
    assert git("--git-dir", str(remote), "rev-parse", "main") == head
    assert "not set up" in machine.run("sync", "--status").stdout


@pytest.mark.parametrize("url", ["https://alice:hunter2@git.example.com/me/memory.git",
                                 "https://ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8@github.com/me/memory.git"])
def test_a_remote_url_with_credentials_is_refused_before_anything_keeps_it(tmp_path, url):
    machine = Machine(tmp_path, "laptop")
    machine.remember("Use pnpm in the frontend")
    failed = machine.run("sync", "--remote", url, ok=False)
    assert failed.exit_code == 1 and "credential helper" in failed.output and "hunter2" not in failed.output
    assert not (machine.root / "sync").exists()
    for path in machine.root.rglob("*"):
        if path.is_file():
            assert b"hunter2" not in path.read_bytes() and b"ghp_A1b2" not in path.read_bytes()


def test_a_push_the_remote_refuses_says_so_and_is_sent_later(two, remote):
    laptop, desktop = two
    laptop.remember("Feature flags live in LaunchDarkly")
    laptop.sync("--remote", str(remote))
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'quota exceeded' >&2\nexit 1\n")
    hook.chmod(0o755)
    laptop.remember("Flags are cleaned up after two releases")
    failed = laptop.run("sync", ok=False)
    assert failed.exit_code == 1 and "refused the push" in failed.output
    assert len(failed.output.strip().splitlines()) == 1
    assert "sync behind" in laptop.run("hud").stdout
    hook.unlink()
    laptop.sync()
    desktop.sync("--remote", str(remote))
    assert any("two releases" in m[1] for m in desktop.memories().values())


def test_syncs_racing_each_other_all_land(two, remote):
    laptop, desktop = two
    laptop.sync("--remote", str(remote))
    desktop.sync("--remote", str(remote))
    made = []
    for round_ in range(3):
        for machine in two:
            made += [machine.remember(f"{machine.name} round {round_} fact {i} about the deploy pipeline")
                     for i in range(3)]
        runs = [subprocess.Popen([*RLM_MEM, "sync"], env=m.environ(), stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE) for m in two]
        for run in runs:
            out, err = run.communicate(timeout=120)
            assert run.returncode == 0, err
    laptop.sync(), desktop.sync()
    assert set(made) <= set(laptop.memories()) and laptop.memories() == desktop.memories()


@pytest.mark.timeout(600)
def test_kill_9_of_a_sync_at_random_points_then_a_new_sync_loses_nothing(two, remote):
    laptop, desktop = two
    laptop.sync("--remote", str(remote))
    desktop.sync("--remote", str(remote))
    rng, made, killed, round_ = random.Random(37), [], 0, -1
    shared = laptop.remember("The nightly export writes to the reports bucket")
    # Kill points fall inside the sync on a fast, slow or loaded machine alike: the first round's sync runs whole
    # and is timed here, and one kill point is drawn in each eighth of that span (in random order), so the kills
    # spread from the start to the push. A sync that ends before its point times the span again (the shortest
    # seen) and that eighth is drawn again.
    span, spans, eighths = None, [], rng.sample(range(8), 8)
    while killed < 8 and round_ < 30:
        round_ += 1
        for machine in two:
            made += [machine.remember(f"{machine.name} kill round {round_}: fact {i} about queue {rng.random()}")
                     for i in range(3)]
        laptop.run("update", shared, "--content", f"The nightly export writes to bucket number {round_}")
        if round_ % 3 == 0:
            desktop.run("forget", made[-1])
        machine = two[round_ % 2]
        kill_at = None if span is None else span * (eighths[killed] + rng.random()) / 8
        started = time.monotonic()
        run = subprocess.Popen([*RLM_MEM, "sync"], env=machine.environ(), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        try:
            assert run.wait(timeout=kill_at if kill_at is not None else 120) == 0
            spans.append(round(time.monotonic() - started, 3))
            span = min(span or spans[-1], spans[-1])
        except subprocess.TimeoutExpired:
            os.kill(run.pid, signal.SIGKILL)
            run.wait()
            killed += 1
        time.sleep(0.05)
        assert not processes_mentioning(machine.root / "sync")  # git died with the sync that started it
    assert killed >= 8, f"{killed} of {round_ + 1} syncs killed; uninterrupted ones took {spans} s"
    for machine in (laptop, desktop, laptop):
        machine.sync()
    a, b = laptop.memories(), desktop.memories()
    assert a == b and set(made) <= set(a)
    assert a[shared][1] == f"The nightly export writes to bucket number {round_}"
    for machine in two:
        report = machine.run("doctor", ok=False)
        assert report.exit_code == 0, report.stdout
    no_conflict_markers(laptop.root, desktop.root, remote)


@pytest.mark.timeout(600)
def test_a_big_pull_killed_midway_is_finished_by_the_next_sync(two, remote):
    laptop, desktop = two
    laptop.sync("--remote", str(remote))
    desktop.sync("--remote", str(remote))
    store = ChunkStore(laptop.root, actor="laptop")
    made = [c.id for c in store.create_many([{"content": f"Bulk fact {i}: service {i} listens on port {9000 + i}",
                                              "tags": ["bulk"]} for i in range(400)])]
    laptop.sync()
    rng = random.Random(7)
    for _ in range(5):  # the pull writes 400 files in one batch (a helper process creates most of them)
        run = subprocess.Popen([*RLM_MEM, "sync"], env=desktop.environ(), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.3, 2.5))
        if run.poll() is None:
            os.kill(run.pid, signal.SIGKILL)
        run.wait()
    desktop.sync()
    assert set(made) <= set(desktop.memories()) and desktop.memories() == laptop.memories()
    assert desktop.run("doctor", ok=False).exit_code == 0
    assert not search_index.is_stale(desktop.root)


# ------------------------------------------------------------------ automatic
def _wait_for(predicate, seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def test_the_session_end_worker_syncs_after_capture(two, remote, tmp_path, monkeypatch):
    laptop, desktop = two
    laptop.sync("--remote", str(remote))
    desktop.sync("--remote", str(remote))
    project = tmp_path / "payments"
    project.mkdir()
    transcript = tmp_path / "s1.jsonl"
    write_transcript(transcript, "s1", project, SESSION_1)
    env = dict(laptop.environ(), RLM_MEM_BACKGROUND="1")
    payload = {"session_id": "s1", "transcript_path": str(transcript), "cwd": str(project)}
    assert fire("SessionStart", dict(payload, source="startup"), env=env)[0].returncode == 0
    head = git("--git-dir", str(remote), "rev-parse", "main")
    end = fire("SessionEnd", dict(payload, reason="exit"), env=env)[0]
    assert end.returncode == 0
    assert _wait_for(lambda: git("--git-dir", str(remote), "rev-parse", "main") != head), "no background sync"
    assert _wait_for(lambda: not (laptop.root / "state" / "queue").exists()
                     or not any((laptop.root / "state" / "queue").iterdir()))
    desktop.sync()
    monkeypatch.chdir(project)  # the session's project, on the other machine
    assert "5433" in desktop.run("recall", "which port does the staging database use?").stdout


def test_session_start_never_waits_for_the_network(two, remote, tmp_path):
    laptop, _ = two
    laptop.remember("I always build with Bazel", "--scope", "user")
    laptop.sync("--remote", str(remote))
    server = SilentServer()
    try:
        subprocess.run(["git", f"--git-dir={laptop.root / 'sync'}", "config", "remote.origin.url",
                        f"http://127.0.0.1:{server.port}/memory.git"], check=True)
        status = json.loads((laptop.root / "state" / "sync.json").read_text())
        status["remote"], status["attempted_at"] = f"http://127.0.0.1:{server.port}/memory.git", 0
        (laptop.root / "state" / "sync.json").write_text(json.dumps(status))
        project = tmp_path / "proj"
        project.mkdir()
        env = dict(laptop.environ(), RLM_MEM_BACKGROUND="1", RLM_MEM_SYNC_TIMEOUT="10")
        run = fire("SessionStart", {"session_id": "s9", "transcript_path": "", "cwd": str(project),
                                    "source": "startup"}, env=env)[0]
        assert run.returncode == 0 and "Bazel" in run.context
        # the hook is done while the worker's sync still waits for the remote (its 10 s are not over), however
        # loaded the machine is
        assert run.seconds < 10 and "sync behind" not in laptop.run("hud").stdout, run.seconds
        assert _wait_for(lambda: "sync behind" in laptop.run("hud").stdout, 60)
    finally:
        server.close()


# ------------------------------------------------------------------ team and person
def test_user_scope_memories_never_enter_a_projects_shared_memory_folder(tmp_path, monkeypatch):
    machine = Machine(tmp_path, "laptop")
    project = tmp_path / "team-app"
    git("init", "--quiet", "-b", "main", str(project))
    (project / ".rlm-mem.json").write_text(json.dumps({"memory_dir": ".rlm-mem"}))
    shared = project / ".rlm-mem"
    monkeypatch.chdir(project)
    team = machine.remember("The team's API listens on port 8080")
    mine = machine.run("remember", "Answer me in British English", "--scope", "user")
    mine_id = mine.stdout.split()[0]
    assert "your own memory" in mine.stderr
    later = machine.remember("In every project, I like short commit messages")  # about the person, by its words
    moved = machine.remember("Use tabs in the Makefile")
    machine.run("scope", moved, "user")
    transcript = tmp_path / "s1.jsonl"
    write_transcript(transcript, "s1", project, [
        ("user", "From now on, in every project, always answer me in French."),
        ("assistant", "D'accord."),
    ])
    machine.run("ingest", str(transcript))

    def scopes(root):
        return {p.stem: json.loads(p.read_text())["metadata"].get("scope") for p in root.rglob("chunk-*.json")}

    in_team, in_mine = scopes(shared), scopes(machine.root)
    assert team in in_team and "user" not in in_team.values(), in_team
    assert {mine_id, later, moved} <= set(in_mine) and moved not in in_team
    assert any(s == "user" and cid not in (mine_id, later, moved) for cid, s in in_mine.items())  # the captured one
    # the conversation's turns and session record are the project's; the memory taken from them about the person
    typed = [json.loads(p.read_text()) for p in shared.rglob("chunk-*.json")]
    assert not any("French" in c["content"] for c in typed if c["metadata"].get("kind") not in ("turn", "session"))
    assert any("French" in json.loads(p.read_text())["content"] for p in machine.root.rglob("chunk-*.json"))


def test_a_memory_moved_to_the_persons_own_store_keeps_only_links_it_can_follow(tmp_path, monkeypatch):
    machine = Machine(tmp_path, "laptop")
    project = tmp_path / "team-app"
    git("init", "--quiet", "-b", "main", str(project))
    (project / ".rlm-mem.json").write_text(json.dumps({"memory_dir": ".rlm-mem"}))
    monkeypatch.chdir(project)
    team = machine.remember("The team's API listens on port 8080")
    mine = machine.remember("Use tabs in the Makefile")
    machine.run("link", mine, team, "--type", "supports")
    machine.run("scope", mine, "user")
    assert mine in machine.memories() and team not in machine.memories()[mine][4]["supports"]
    monkeypatch.chdir(tmp_path)
    assert machine.run("doctor", ok=False).exit_code == 0  # no link to a memory the own store lacks


# ------------------------------------------------------------------ the rules, one by one
def _chunk(content, updated, **md):
    return {"id": "chunk-2026-11-20-0000abcd", "content": content, "tokens": 5, "type": "fact",
            "metadata": {"created": "2026-11-20T10:00:00Z", "conversation_id": None, "source": "interaction",
                         "confidence": 0.9, "access_count": 0, "last_accessed": None, "updated": updated, **md},
            "links": {"supports": []}, "tags": []}


def test_a_field_changed_on_both_sides_takes_the_later_change_and_keeps_the_other():
    base = _chunk("port 5433", "2026-11-20T10:00:00Z")
    ours = dict(_chunk("port 5434", "2026-11-20T11:00:00Z", pinned=True), tags=["db"])
    theirs = dict(_chunk("port 6000", "2026-11-20T12:00:00Z"), links={"supports": ["chunk-2026-11-20-11112222"]})
    merged, lost = merge_fields(base, ours, theirs, ours_wins=False)
    assert merged["content"] == "port 6000" and lost == {"content": "port 5434"}
    assert merged["metadata"]["pinned"] is True and merged["tags"] == ["db"]  # one side's changes kept
    assert merged["links"]["supports"] == ["chunk-2026-11-20-11112222"]
    assert merged["metadata"]["updated"] == "2026-11-20T12:00:00Z"
    again, _ = merge_fields(base, theirs, ours, ours_wins=True)  # the other machine decides alike
    assert again == merged


def test_sets_merge_by_what_each_side_added_and_removed():
    base = dict(_chunk("x", "t0"), tags=["a", "b", "c"])
    ours = dict(_chunk("x", "t1"), tags=["a", "c", "d"])  # removed b, added d
    theirs = dict(_chunk("x", "t2"), tags=["a", "b", "e"])  # removed c, added e
    merged, lost = merge_fields(base, ours, theirs, ours_wins=False)
    assert merged["tags"] == ["a", "d", "e"] and lost == {}


def test_logs_merge_by_union_in_one_order_and_drop_what_a_delete_took():
    who = '"chunk_id": "chunk-2026-11-20-0000abcd", "actor": "laptop"'
    one = '{"time": "2026-11-20T10:00:00Z", "action": "create", ' + who + '}\n'
    two = '{"time": "2026-11-20T11:00:00Z", "action": "pin", ' + who + '}\n'
    kept = '{"time": "2026-11-20T12:00:00Z", "action": "sync", ' + who + ', "details": {"lost": {"content": "old"}}}\n'
    assert union_lines(one + kept, two) == union_lines(two, one + kept) == (one + two + kept).encode()
    assert union_lines(one + kept, two, {"chunk-2026-11-20-0000abcd"}) == (one + two).encode()
    # a line only one side has passes the checks a local line passes: an entry of the schema's, no secret in it
    bad = ['{"time": "2026-11-20T13:00:00Z", "action": "create"}', "/etc/passwd", "not json",
           '{"time": "2026-11-20T14:00:00Z", "action": "x", ' + who + ', "reason": "token ghp_'
           + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8" + '"}']
    assert union_lines(one, two + "\n".join(bad) + "\n") == union_lines("\n".join(bad), one + two) \
        == (one + two).encode()
    day = "# 2026-11-20\n"
    a = "\n## 10:00 - First\n- **Memory:** [chunk-2026-11-20-0000abcd](x)\n"
    b = "\n## 11:00 - Second\n- **Type:** note\n"
    secret = "\n## 12:00 - Third\n- **Summary:** the password is hunter2hunter2\n"
    assert union_entries(day + a, day + b) == union_entries(day + b, day + a)
    assert "First" not in union_entries(day + a, day + b, {"chunk-2026-11-20-0000abcd"}).decode()
    assert "Third" not in union_entries(day + a, day + b + secret).decode()


def test_a_private_span_is_in_no_object_of_the_repository(two, remote):
    laptop, desktop = two
    typed = laptop.remember("The lab door code is <private>typed-door-code-4711</private> on weekdays",
                            "--tags", "lab,<private>typed-tag-word</private>")
    laptop.run("update", typed, "--content", "The door code <private>updated-door-code</private> changed")
    # files written before spans were redacted at the write boundary (an older rlm-mem): held back, never pushed
    old = laptop.remember("An older memory about the lab")
    path = next((laptop.root / "chunks").rglob(f"{old}.json"))
    data = json.loads(path.read_text())
    data["content"] = "An older memory <private>older-span-words</private> about the lab"
    path.write_text(json.dumps(data, indent=2) + "\n")
    audit_log = next((laptop.root / "audit").glob("*.jsonl"))
    with audit_log.open("a") as fh:
        fh.write(json.dumps({"time": "2026-01-01T00:00:00Z", "action": "update", "chunk_id": old, "actor": "x",
                             "reason": "<private>audit-span-words</private>"}) + "\n")
    out = laptop.sync("--remote", str(remote)).stdout
    assert "held back 1 file(s)" in out and old in out
    desktop.sync("--remote", str(remote))
    assert "changed" in desktop.memories()[typed][1]
    for repo in (remote, laptop.root / "sync", desktop.root / "sync"):
        blob = all_objects(repo)
        assert b"changed" in blob  # the search is real
        for word in (b"typed-door-code", b"typed-tag-word", b"updated-door-code", b"older-span-words",
                     b"audit-span-words", b"<private"):
            assert word not in blob, (repo, word)


def test_a_second_sync_reads_only_what_changed(two, remote):
    """The scan's cache (state/sync-files.txt) must come back as written: when its header was redacted as a token,
    every sync read and checked every file again (10 new memories into 10,000 took 5 s instead of 1)."""
    from brain.sync.tracked import read_cache

    laptop, _ = two
    laptop.remember("The nightly export writes to the reports bucket")
    laptop.sync("--remote", str(remote))
    cached = read_cache(laptop.root)
    assert cached.files and cached.taken, (laptop.root / "state" / "sync-files.txt").read_text()[:200]
