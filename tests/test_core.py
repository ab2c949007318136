"""Session-start selection and the CORE digest: priority order, exclusions, budgets, speed at 100,000 chunks."""
import json
import random

import pytest
from click.testing import CliRunner
from conftest import ago

from brain.cli.main import cli
from brain.garden import garden
from brain.index import search_index
from brain.recall.core import CORE_MAX_CHARS, build_core, select_for_session
from brain.store import lifecycle
from brain.store.chunk_store import ChunkStore
from brain.util.tokens import estimate_tokens


def make(store, text, *, days=1.0, chunk_type="fact", **metadata):
    return store.create_chunk(text, chunk_type=chunk_type, created=ago(days), metadata=metadata or None).id


def test_priority_order_pinned_corrections_decisions_session_then_salient(store):
    salient = make(store, "The API gateway is Kong", days=0.5)
    session = make(store, "Session. Intent: fix login. Follow-ups: add a test for expiry.", kind="session",
                   chunk_type="note", days=0.2)
    decision = make(store, "We decided to use SQLite FTS5", kind="decision", chunk_type="decision", days=3)
    preference = make(store, "The user prefers short answers", kind="preference", chunk_type="preference", days=4)
    correction = make(store, "Actually the port is 5433, not 5432", kind="correction", days=10)
    pinned = make(store, "Never commit to main directly", days=400, pinned=True)
    rows = select_for_session(store.root, None)
    order = [r["id"] for r in rows]
    assert order[:5] == [pinned, correction, decision, preference, session]
    assert salient in order[5:]
    assert rows[0]["why"] == "pinned" and rows[0]["content"] == "Never commit to main directly"
    assert {"id", "created", "type", "kind", "pinned", "status", "tokens", "tags", "content", "path"} <= set(rows[0])


def test_excludes_superseded_retracted_and_sensitive(store):
    old = make(store, "Deploys go out on Tuesdays")
    new = lifecycle.remember_memory(store, "Deploys go out on Thursdays", supersedes=[old])[0].id
    secret = make(store, "The on-call phone is in the blue drawer", sensitivity="high")
    medium = make(store, "Salary bands are reviewed in May", sensitivity="medium")
    wrong = make(store, "The cache TTL is 60 seconds")
    lifecycle.retract(store, wrong)
    ids = [r["id"] for r in select_for_session(store.root, None)]
    assert new in ids and medium in ids
    assert old not in ids and secret not in ids and wrong not in ids
    assert medium not in [r["id"] for r in select_for_session(store.root, None, max_sensitivity="low")]
    with pytest.raises(ValueError):
        select_for_session(store.root, None, max_sensitivity="secret")


def test_project_scope_keeps_global_memories(store):
    mine = make(store, "This repo uses poetry", project="proj-a")
    theirs = make(store, "That repo uses npm", project="proj-b")
    everywhere = make(store, "The user writes British English")
    ids = [r["id"] for r in select_for_session(store.root, "proj-a")]
    assert mine in ids and everywhere in ids and theirs not in ids


def test_limits_budget_min_items_and_turn_filler(store):
    for i in range(60):
        make(store, f"Fact number {i} about the build: " + "detail " * 150, days=i / 10)
    rows = select_for_session(store.root, None, max_items=35, budget_tokens=1000)
    assert 5 <= len(rows) <= 35
    assert sum(min(r["tokens"], 200) for r in rows) <= 1000
    assert len(select_for_session(store.root, None, budget_tokens=10)) == 5  # min_items beats the budget
    assert len(select_for_session(store.root, None, max_items=7)) == 7
    young = ChunkStore(store.root.parent / "young")
    for i in range(8):
        make(young, f"user: message {i}", kind="turn", role="user", days=i / 100)
    rows = select_for_session(young.root, None)
    assert [r["why"] for r in rows] == ["recent_turn"] * 5  # only conversation yet: its latest turns
    assert select_for_session(store.root.parent / "nothing", None) == []


def test_pins_always_appear_and_survive_garden(store):
    pins = [make(store, f"Pinned rule {i}: " + "word " * 300, days=300 + i, pinned=True) for i in range(12)]
    for i in range(50):
        make(store, f"Recent decision {i} about caching layer {i}", kind="decision", chunk_type="decision", days=i)
    garden.run(store, apply=True)
    rows = select_for_session(store.root, None, max_items=10, budget_tokens=500)
    assert set(pins) <= {r["id"] for r in rows}
    assert [r["why"] for r in rows[:12]] == ["pinned"] * 12


def _synthetic_index(root, n=100_000):
    """A search.db with n rows written directly (the store would take minutes); the shape of a real one."""
    rnd = random.Random(7)
    kinds = ["turn"] * 85 + ["memory"] * 8 + ["correction", "decision", "preference", "learning", "milestone",
                                               "session", "request"]
    conn = search_index.connect(root)
    cols = ("id", "created", "type", "kind", "project", "confidence", "pinned", "status", "sensitivity", "tokens",
            "access_count", "last_accessed", "tags", "path", "chash", "content")
    rows = []
    for i in range(n):
        created = ago(rnd.uniform(0, 400))
        used = rnd.random() < 0.2
        rows.append((f"chunk-{created[:10]}-{i:08x}", created, rnd.choice(["fact", "note", "decision", "pattern"]),
                     rnd.choice(kinds), rnd.choice(["p1", "p2", None]), 0.8, 1 if i % 5000 == 1 else 0,
                     "active" if i % 50 else "superseded", "low", rnd.randint(20, 400), rnd.randint(1, 9) if used else 0,
                     ago(rnd.uniform(0, 30)) if used else None, "alpha beta", "x", "h", f"memory text {i} " * 8))
    conn.execute("BEGIN")
    conn.executemany(f"INSERT INTO chunks({','.join(cols)}) VALUES({','.join('?' * len(cols))})", rows)
    conn.execute("COMMIT")
    conn.close()


def test_selection_at_100k_chunks_walks_indexes_not_the_table(tmp_path):
    """The session-start selection reads a few hundred rows through indexes, whatever the store's size: counted as
    SQLite virtual-machine steps (deterministic, unlike time; bench/run.py times the hook)."""
    _synthetic_index(tmp_path)
    steps = {"n": 0}
    real_connect = search_index.connect

    def counting(*args, **kwargs):
        conn = real_connect(*args, **kwargs)
        if conn is not None:
            conn.set_progress_handler(lambda: steps.__setitem__("n", steps["n"] + 1) or 0, 100)
        return conn

    search_index.connect = counting
    try:
        rows = select_for_session(tmp_path, "p1")
    finally:
        search_index.connect = real_connect
    assert 5 <= len(rows) <= 35 + 20  # pins (one per 5,000 rows) come on top of max_items
    assert steps["n"] * 100 < 2_000_000, steps  # a scan of 100k rows costs tens of millions of steps


def test_core_digest_stays_in_budget_on_5000_chunks(store):
    """(Selection at 100k is test_selection_at_100k_chunks_walks_indexes_not_the_table; here the budget.)"""
    rnd = random.Random(3)
    words = "cache deploy schema index token budget hook session python sqlite docker ci release review".split()
    kinds = [("memory", "fact"), ("decision", "decision"), ("preference", "preference"), ("correction", "fact"),
             ("learning", "pattern"), ("memory", "note")]
    for batch in range(5):
        specs = []
        for i in range(1000):
            kind, chunk_type = rnd.choice(kinds)
            n = batch * 1000 + i
            text = f"Memory {n}: " + " ".join(rnd.choice(words) for _ in range(rnd.randint(8, 60))) + "."
            specs.append({"content": text, "chunk_type": chunk_type, "created": ago(rnd.uniform(0, 60)),
                          "tags": rnd.sample(words, 2),
                          "metadata": {"kind": kind, **({"pinned": True} if n % 1000 == 0 else {})}})
        store.create_many(specs, auto_link=False)
    for budget in (3000, 800):
        digest = build_core(store.root, None, budget_tokens=budget)
        assert digest["chars"] <= min(CORE_MAX_CHARS, budget * 4) and estimate_tokens(digest["text"]) <= budget
        assert digest["items"] >= (40 if budget == 3000 else 8)
        titles = [s["title"] for s in digest["sections"]]
        assert titles[0] == "Pinned" and "Corrections" in titles and "Decisions" in titles
        assert all(len(s["items"]) <= 15 for s in digest["sections"])


def test_core_cli_writes_core_md_and_garden_refreshes_it(store):
    make(store, "We decided to ship on Thursdays", kind="decision", chunk_type="decision")
    env = {"RLM_MEM_DIR": str(store.root)}
    result = CliRunner().invoke(cli, ["core", "--project", "all", "--write"], env=env)
    assert result.exit_code == 0, result.output
    core_md = store.root / "CORE.md"
    assert "## Decisions" in core_md.read_text() and "ship on Thursdays" in result.output
    data = json.loads(CliRunner().invoke(cli, ["core", "--project", "all", "--json"], env=env).output)
    assert data["items"] == 1 and data["sections"][0]["key"] == "decision"
    new = make(store, "The user prefers concise commit messages", kind="preference", chunk_type="preference")
    make(store, "An old note nobody reads", days=300)
    garden.run(store, apply=True)
    assert new in core_md.read_text()
    empty = build_core(store.root.parent / "none")
    assert "No memories yet" in empty["text"] and empty["items"] == 0


def test_a_damaged_index_gives_an_empty_selection_not_an_error(store):
    make(store, "Something worth remembering")
    for suffix in ("-wal", "-shm"):
        (store.root / "index" / f"search.db{suffix}").unlink(missing_ok=True)
    (store.root / "index" / "search.db").write_bytes(b"this is not a database" * 100)
    assert select_for_session(store.root, None) == []
