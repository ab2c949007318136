"""Gardening: salience, consolidation into masters, dormant archive, contradictions, audit + undo, scheduling."""
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import NOW, ago

from brain.cli.main import cli
from brain.garden import garden
from brain.index import search_index
from brain.recall.core import select_for_session
from brain.store.audit import read_audit
from brain.store.salience import ARCHIVE_BELOW, PINNED_SCORE, salience, state_of


def cli_run(store, *args):
    return CliRunner().invoke(cli, list(args), env={"RLM_MEM_DIR": str(store.root), "RLM_MEM_ACTOR": "test"})


def live_ids(store) -> set:
    return {p.stem for p in store.layout.iter_chunk_paths()}


def archived_ids(store) -> set:
    return {p.stem for p in store.layout.iter_archive_paths()}


BASE = "The staging database listens on port 5433."
EXTRAS = ["It runs Postgres 15.", "Backups run nightly at 02:00 UTC.", "Only the deploy user may connect.",
          "Connections require TLS 1.3.", "The replica lags about two seconds.", "Its disk holds 500 GB.",
          "It was migrated from MySQL in January."]


def seven_near_duplicates(store, **metadata):
    return [store.create_chunk(f"{BASE} {extra}", tags=["db", "staging"], created=ago(20 - i),
                               metadata=dict(metadata) or None).id for i, extra in enumerate(EXTRAS)]


# ---------------------------------------------------------------- salience
def row(**kw):
    base = {"type": "fact", "kind": "memory", "confidence": 0.9, "importance": None, "pinned": 0,
            "access_count": 0, "last_accessed": None, "created": ago(0), "status": "active"}
    base.update(kw)
    return base


def test_a_new_memory_starts_active_not_at_half_strength():
    assert state_of(salience(row(), NOW)) == "active"
    assert state_of(salience(row(type="note"), NOW)) == "active"


def test_corrections_and_decisions_weigh_more_and_turns_less():
    turn, memory = salience(row(kind="turn"), NOW), salience(row(), NOW)
    correction, decision = salience(row(kind="correction"), NOW), salience(row(kind="decision", type="decision"), NOW)
    assert turn < memory < correction < decision
    # and they keep their weight longer: the gap widens with age
    assert salience(row(kind="correction", created=ago(90)), NOW) / salience(row(created=ago(90)), NOW) > correction / memory


def test_decay_use_and_status():
    fresh, old = salience(row(), NOW), salience(row(created=ago(200)), NOW)
    assert old < ARCHIVE_BELOW < fresh
    used_recently = salience(row(created=ago(200), last_accessed=ago(1), access_count=4), NOW)
    assert state_of(used_recently) == "active"
    assert salience(row(access_count=10_000), NOW) <= 2 * fresh  # use helps, within a bound
    assert salience(row(status="superseded"), NOW) < fresh / 2
    assert salience(row(pinned=1, created=ago(5000)), NOW) == PINNED_SCORE
    assert salience(row(created="garbage", last_accessed=None), NOW) == fresh  # unreadable time: no decay
    assert [state_of(x) for x in (0.6, 0.3, 0.1)] == ["active", "fading", "dormant"]


# ---------------------------------------------------------------- consolidation
def test_seven_near_duplicates_become_one_master_with_every_fact(store):
    ids = seven_near_duplicates(store)
    plan = garden.run(store, apply=True)
    assert len(plan["applied"]["consolidated"]) == 1
    master_id = plan["applied"]["consolidated"][0]["master"]
    assert set(plan["applied"]["consolidated"][0]["members"]) == set(ids)
    master = store.get_chunk(master_id, track=False)
    assert master.kind == "consolidated" and master.metadata["source"] == "derived"
    assert master.content.count(BASE) == 1  # the repeated sentence once
    for extra in EXTRAS:
        assert extra in master.content
    assert sorted(master.links["derived_from"]) == sorted(ids)
    assert archived_ids(store) == set(ids) and live_ids(store) == {master_id}
    for cid in ids:
        original = json.loads(store.layout.archive_path(cid).read_text())
        assert original["links"]["consolidated_into"] == [master_id]
    assert set(master.tags) == {"db", "staging"}
    conn = search_index.connect(store.root, readonly=True)
    assert [r[0] for r in conn.execute("SELECT id FROM chunks")] == [master_id]
    conn.close()


def test_facts_that_differ_in_a_word_are_both_kept():
    facts = garden.distinct_facts(["Staging listens on port 5432.", "staging listens on PORT 5432",
                                   "- Staging listens on port 5433.",
                                   "Staging listens on port 5433. Production listens on port 5433 and needs TLS."])
    assert facts == ["Staging listens on port 5432.", "Staging listens on port 5433.",
                     "Production listens on port 5433 and needs TLS."]
    # a sentence inside a longer one is not said by it
    assert garden.distinct_facts(["Deploy on Fridays.", "Deploy on Fridays is forbidden."]) == [
        "Deploy on Fridays.", "Deploy on Fridays is forbidden."]


def test_five_on_a_topic_stay_as_they_are(store):
    for i, extra in enumerate(EXTRAS[:5]):
        store.create_chunk(f"{BASE} {extra}", tags=["db"], created=ago(5 - i))
    plan = garden.run(store, apply=True)
    assert plan["consolidate"] == [] and len(live_ids(store)) == 5


def test_unrelated_memories_are_not_merged(store):
    topics = ["The CI pipeline runs on GitHub Actions", "Alice owns the billing service",
              "Use ruff for linting Python code", "The VPN requires a hardware key",
              "Release notes live in CHANGELOG.md", "Docker images are built nightly",
              "The frontend uses React 18", "Invoices are stored for seven years"]
    for i, text in enumerate(topics):
        store.create_chunk(text, tags=["project"], created=ago(i))
    assert garden.make_plan(store.root)["consolidate"] == []


def test_turns_and_pinned_memories_are_never_consolidated(store):
    turns = seven_near_duplicates(store, kind="turn", role="user")
    pinned = seven_near_duplicates(store, pinned=True)
    plan = garden.run(store, apply=True)
    assert plan["consolidate"] == []
    assert set(turns + pinned) <= live_ids(store)


def test_a_master_absorbs_new_memories_on_its_topic_later(store):
    seven_near_duplicates(store)
    first = garden.run(store, apply=True)["applied"]["consolidated"][0]["master"]
    for i, extra in enumerate(["It has 16 GB of RAM.", "Its hostname is db-stg-1.", "It is monitored by Grafana.",
                               "Vacuum runs weekly.", "Its timezone is UTC."]):
        store.create_chunk(f"{BASE} {extra}", tags=["db", "staging"], created=ago(1 - i * 0.1))
    second = garden.run(store, apply=True)["applied"]["consolidated"]
    assert len(second) == 1 and first in second[0]["members"]
    master = store.get_chunk(second[0]["master"], track=False)
    for extra in EXTRAS + ["Its hostname is db-stg-1."]:
        assert extra in master.content
    assert "consolidated from 7 memories" not in master.content  # the old head line is not a fact


def test_a_master_is_dated_by_its_newest_member_and_titled_by_a_sentence_of_theirs(store):
    """Made today from memories of weeks ago, a master says what they said as of the newest of them: dated so, it
    does not stand first among the start brief's latest decisions; it arrives today (gardening's idleness counts
    from that), and its title is a sentence a person wrote, not a list of shared words."""
    members = seven_near_duplicates(store)
    newest = max(store.get_chunk(i, track=False).created for i in members)
    made = garden.run(store, apply=True)["applied"]["consolidated"]
    master = store.get_chunk(made[0]["master"], track=False)
    assert master.created == newest
    assert master.metadata["arrived"] > newest
    assert master.metadata["title"] == "The staging database listens on port 5433"
    assert master.content.startswith("The staging database listens on port 5433 (consolidated from 7 memories")


# ---------------------------------------------------------------- dormant archive
def test_untouched_for_200_days_is_archived_unless_pinned_used_or_a_turn(store):
    stale = store.create_chunk("The old build server was called jenkins-2", created=ago(200))
    pinned = store.create_chunk("The VPN needs a hardware key", created=ago(200), metadata={"pinned": True})
    turn = store.create_chunk("user: what was the old build server called?", created=ago(200),
                              metadata={"kind": "turn", "role": "user"})
    session = store.create_chunk("Session record: fixed the build.", created=ago(200), metadata={"kind": "session"})
    recent = store.create_chunk("The new build server is buildkite", created=ago(2))
    used = store.create_chunk("Grafana lives at grafana.internal", created=ago(200))
    from brain.index import access

    access.record_access(store.root, [used.id], ago(3))
    plan = garden.run(store, apply=True)
    assert plan["applied"]["archived"] == [stale.id]
    assert archived_ids(store) == {stale.id}
    assert {pinned.id, turn.id, session.id, recent.id, used.id} <= live_ids(store)
    assert pinned.id in [r["id"] for r in select_for_session(store.root, None)]  # pins survive garden


def test_dry_run_changes_nothing(store):
    store.create_chunk("The old build server was called jenkins-2", created=ago(200))
    seven_near_duplicates(store)
    before = sorted(p.name for p in store.root.rglob("chunk-*.json"))
    result = cli_run(store, "garden", "--json")
    assert result.exit_code == 0, result.output
    plan = json.loads(result.output)
    assert len(plan["archive"]) == 1 and len(plan["consolidate"]) == 1 and "applied" not in plan
    assert sorted(p.name for p in store.root.rglob("chunk-*.json")) == before
    assert not read_audit(store.root, action="archive")
    text = cli_run(store, "garden")
    assert "consolidate  7 memories" in text.output and "archive" in text.output and "--apply" in text.output


# ---------------------------------------------------------------- contradictions
def test_garden_resolves_contradictions_trusting_the_newer(store):
    old = store.create_chunk("The user wants dark mode", created=ago(30))
    new = store.create_chunk("The user wants light mode", created=ago(3))
    store.link_chunks(new.id, old.id, "contradicts")
    pinned_old = store.create_chunk("Reviews need two approvals", created=ago(40), metadata={"pinned": True})
    pinned_new = store.create_chunk("Reviews need one approval", created=ago(4))
    store.link_chunks(pinned_old.id, pinned_new.id, "contradicts")
    plan = garden.run(store, apply=True)
    assert plan["applied"]["resolved"] == [{"old": old.id, "new": new.id, "note": f"User changed mind {ago(3)[:10]}"}]
    assert plan["review"] == [{"old": pinned_old.id, "new": pinned_new.id, "why": "the older one is pinned"}]
    assert store.get_chunk(old.id, track=False).status == "superseded"
    assert store.get_chunk(pinned_old.id, track=False).status == "active"
    offered = [r["id"] for r in select_for_session(store.root, None)]
    assert new.id in offered and old.id not in offered


# ---------------------------------------------------------------- audit, restore, undo
def _garden_everything(store):
    ids = seven_near_duplicates(store)
    stale = store.create_chunk("The old build server was called jenkins-2", created=ago(200))
    old = store.create_chunk("The user wants dark mode", created=ago(30))
    new = store.create_chunk("The user wants light mode", created=ago(3))
    store.link_chunks(new.id, old.id, "contradicts")
    plan = garden.run(store, apply=True)
    return plan, ids, stale, old, new


def test_every_action_is_audited_and_restore_brings_chunks_back(store):
    plan, ids, stale, old, new = _garden_everything(store)
    run_entry = [e for e in read_audit(store.root, action="garden") if e["details"].get("run") == plan["run"]]
    assert len(run_entry) == 1
    details = run_entry[0]["details"]
    assert details["archived"] == [stale.id] and details["resolved"][0]["old"] == old.id
    master = details["consolidated"][0]["master"]
    assert [e["chunk_id"] for e in read_audit(store.root, action="consolidate")] == [master]
    archive_lines = {e["chunk_id"]: e["reason"] for e in read_audit(store.root, action="archive")}
    assert set(archive_lines) == set(ids) | {stale.id}
    assert all(plan["run"] in reason for reason in archive_lines.values())
    for cid in archive_lines:  # the person's undo: `rlm-mem restore ID`
        result = cli_run(store, "restore", cid)
        assert result.exit_code == 0, result.output
    assert set(ids) | {stale.id} <= live_ids(store) and not archived_ids(store)
    # a restore counts as a touch: the next run neither re-archives nor re-consolidates what the person restored
    again = garden.run(store, apply=True)
    assert again["applied"]["archived"] == [] and again["applied"]["consolidated"] == []


def test_undo_reverts_a_whole_run(store):
    plan, ids, stale, old, new = _garden_everything(store)
    master = plan["applied"]["consolidated"][0]["master"]
    result = cli_run(store, "garden", "--undo", plan["run"], "--json")
    assert result.exit_code == 0, result.output
    undone = json.loads(result.output)
    assert set(undone["restored"]) == set(ids) | {stale.id} and undone["archived_masters"] == [master]
    assert live_ids(store) == set(ids) | {stale.id, old.id, new.id} and archived_ids(store) == {master}
    assert all(store.get_chunk(i, track=False).links.get("consolidated_into") == [] for i in ids)
    reverted = store.get_chunk(old.id, track=False)
    assert reverted.status == "active" and "superseded_at" not in reverted.metadata
    assert "change_note" not in (reverted.metadata.get("extra") or {})
    assert store.get_chunk(new.id, track=False).links["supersedes"] == []
    assert cli_run(store, "garden", "--undo", "garden-nope").exit_code == 1


# ---------------------------------------------------------------- scheduling
def test_garden_due_and_if_due_runs(store):
    assert not garden.garden_due(store.root)  # nothing stored yet
    store.create_chunk("The old build server was called jenkins-2", created=ago(200))
    assert garden.garden_due(store.root)
    result = cli_run(store, "garden", "--apply", "--if-due", "--quiet")
    assert result.exit_code == 0 and result.output == ""
    assert archived_ids(store) and not garden.garden_due(store.root)
    store.create_chunk("Another stale fact nobody needs", created=ago(300))
    assert cli_run(store, "garden", "--apply", "--if-due", "--quiet").output == ""
    assert len(archived_ids(store)) == 1  # not due: nothing ran
    state = json.loads(Path(garden.state_path(store.root)).read_text())
    state["last_run"] = state["last_attempt"] = ago(1.1)
    Path(garden.state_path(store.root)).write_text(json.dumps(state))
    assert garden.garden_due(store.root)
    Path(garden.state_path(store.root)).write_text("{not json")
    assert garden.garden_due(store.root)  # a damaged state file does not stop gardening


def test_only_one_run_at_a_time(store):
    from brain.util.errors import StoreBusy

    store.create_chunk("x stays", created=ago(1))
    lock = garden._garden_lock(store.root)
    try:
        with pytest.raises(StoreBusy):
            garden.run(store, apply=True)
        assert cli_run(store, "garden", "--apply").exit_code == 1
    finally:
        lock.release()
    assert garden.run(store, apply=True)["applied"] is not None


def test_applied_run_is_logged_as_an_episode(store):
    from brain.store.episodes import read_episodes

    plan, *_ = _garden_everything(store)
    entries = read_episodes(store.root)
    assert any(plan["run"] in e["title"] and "1 consolidations" in (e["summary"] or "") for e in entries)


def test_a_run_archives_a_bounded_number_faintest_first(store, monkeypatch):
    monkeypatch.setattr(garden, "MAX_ARCHIVE_PER_RUN", 2)
    ids = [store.create_chunk(f"Stale fact number {i} about server {i}", created=ago(200 + 100 * i)).id
           for i in range(3)]
    assert "1 more dormant memories are left for the next run" in cli_run(store, "garden").output
    plan = garden.run(store, apply=True)
    assert plan["applied"]["archived"] == [ids[2], ids[1]] and plan["counts"]["archive_deferred"] == 1
    assert garden.run(store, apply=True)["applied"]["archived"] == [ids[0]]


def test_garden_resolves_a_same_second_contradiction_by_link_direction(store):
    old = store.create_chunk("Lint with flake8", created=ago(1))
    new = store.create_chunk("Lint with ruff", created=ago(1))
    store.link_chunks(new.id, old.id, "contradicts")
    assert garden.run(store, apply=True)["applied"]["resolved"][0]["old"] == old.id


# ---------------------------------------------------------------- dormancy counts from arrival (issue 12, item 5)
def test_a_fresh_legacy_import_is_not_dormant_and_corrections_and_pins_never_are(store):
    from datetime import timedelta

    from brain.interop import import_path

    report = import_path(store, "legacy", [Path(__file__).parent / "fixtures" / "import" / "legacy"])
    assert report.created == 5  # dated 2025, a year and more before they arrive here
    imported = live_ids(store)
    assert all(store.get_chunk(i, track=False).metadata["arrived"] >= ago(0)[:10] for i in imported)
    first = garden.run(store, apply=True)
    assert first["archive"] == [] and live_ids(store) == imported  # the run archived 4 of 5 here
    later = garden.run(store, apply=True, now=NOW + timedelta(days=31))  # a month of no use
    kinds = {i: store.get_chunk(i, track=False, include_archived=True) for i in imported}
    archived = set(later["applied"]["archived"])
    assert archived, "nothing was dormant even a month later: the test proves nothing"
    assert not {i for i, c in kinds.items() if c.kind == "correction" or c.pinned} & archived
    assert {i for i, c in kinds.items() if c.kind == "correction" or c.pinned} <= live_ids(store)


def test_captured_memories_count_from_their_arrival_too(store):
    old = store.create_chunk("We decided to keep the nightly backup at 02:00 UTC", created=ago(300),
                             metadata={"kind": "decision", "provenance": {"kind": "event", "ref": "s1/u1"}})
    chosen = store.create_chunk("The old build server was called jenkins-2", created=ago(300))
    assert old.metadata["arrived"] > ago(1) and "arrived" not in chosen.metadata  # a caller's date is its age
    assert garden.run(store, apply=True)["applied"]["archived"] == [chosen.id]


# ---------------------------------------------------------------- bounded runs (issue 17)
def test_a_run_stops_at_its_budget_between_whole_steps_and_the_next_resumes(store, monkeypatch):
    topics = [seven_near_duplicates(store, project=f"p{i}") for i in range(3)]
    stale = [store.create_chunk(f"Stale fact {i} about host {i}", created=ago(200 + i)).id for i in range(5)]
    clock = iter(range(10_000))
    monkeypatch.setattr(garden.time, "monotonic", lambda: float(next(clock)))  # one second per look at the clock
    first = garden.run(store, apply=True, budget=2.5)
    done = first["applied"]
    assert done["paused"] and len(done["consolidated"]) == 2 and done["archived"] == []
    for item in done["consolidated"]:  # each step whole: the master made and every original archived with it
        assert store.get_chunk(item["master"], track=False) is not None
        assert set(item["members"]) <= archived_ids(store)
    untouched = [t for t in topics if not set(t) & archived_ids(store)]
    assert len(untouched) == 1 and set(untouched[0]) <= live_ids(store)  # the third topic: not begun at all
    state = json.loads(Path(garden.state_path(store.root)).read_text())
    assert state["resume"] is True and "seen" not in state
    assert garden.garden_due(store.root, now=NOW.timestamp() + 3600)  # due again long before a day
    monkeypatch.setattr(garden.time, "monotonic", lambda: 0.0)
    second = garden.run(store, apply=True)["applied"]
    assert not second["paused"] and len(second["consolidated"]) == 1 and sorted(second["archived"]) == sorted(stale)
    assert json.loads(Path(garden.state_path(store.root)).read_text())["resume"] is False


def test_topics_are_weighed_again_only_when_a_memory_on_them_changed(store, monkeypatch):
    ids = [store.create_chunk(f"{BASE} {extra}", tags=["db", "staging"], created=ago(5)).id for extra in EXTRAS[:5]]
    assert garden.run(store, apply=True)["applied"]["consolidated"] == []  # five on a topic: not yet
    calls = []
    real = garden.topic_words
    monkeypatch.setattr(garden, "topic_words", lambda *a: calls.append(1) or real(*a))
    assert garden.run(store, apply=True)["applied"]["consolidated"] == []
    assert calls == []  # nothing changed since the last run: no topic was weighed
    ids += [store.create_chunk(f"{BASE} {extra}", tags=["db", "staging"], created=ago(4)).id for extra in EXTRAS[5:]]
    done = garden.run(store, apply=True)["applied"]["consolidated"]
    assert calls and len(done) == 1 and set(done[0]["members"]) == set(ids)
