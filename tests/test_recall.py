"""Recall: ranking, thresholds, budgets and filters on small hand-made stores, the CLI, and dates in text."""
import json
from datetime import date, datetime, timedelta, timezone

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from brain.cli.main import cli
from brain.index import access
from brain.recall import candidates, weights
from brain.recall import prompt as prompt_mod
from brain.recall.recall import recall
from brain.store import lifecycle
from brain.store.chunk_store import ChunkStore
from brain.util import text as text_mod
from brain.util import timeref
from brain.util.tokens import estimate_tokens

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
FILLER = [  # unrelated memories, so that words have meaningful frequencies
    "The office coffee machine was descaled on Tuesday",
    "Marketing moved the launch webinar to the spring",
    "Alice prefers reviewing pull requests in the morning",
    "The design team uses Figma for mockups",
    "Quarterly planning happens in the big meeting room",
    "The printer on the third floor jams with thick paper",
    "Bob is on holiday until the end of the month",
    "The staging cluster runs three worker nodes",
]


def ago(days: float) -> str:
    return (NOW - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


def spec(content, *, days=10.0, kind="memory", chunk_type="fact", project="app", confidence=0.8, conv=None,
         **metadata):
    md = {"kind": kind, "project": project, **metadata}
    return {"content": content, "chunk_type": chunk_type, "created": ago(days), "confidence": confidence,
            "conversation_id": conv, "metadata": {k: v for k, v in md.items() if v is not None}}


@pytest.fixture
def store(tmp_path):
    s = ChunkStore(tmp_path / "mem", actor="test")
    s.create_many([spec(text, days=30 + i) for i, text in enumerate(FILLER)])
    return s


def ask(store, query, **kwargs):
    kwargs.setdefault("project", "app")
    kwargs.setdefault("now", NOW)
    kwargs.setdefault("track", False)
    return recall(store.root, query, **kwargs)


def ids(result):
    return [item.id for item in result.items]


def conversation(store, sid, start, lines, project="app"):
    """Turns as capture stores them: one chunk each, 30 s apart, role by speaker, linked by follows."""
    begin = datetime.fromisoformat(start).replace(tzinfo=timezone.utc)
    specs = []
    for i, line in enumerate(lines):
        when = (begin + timedelta(seconds=30 * i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        specs.append({"content": line, "conversation_id": sid, "created": when, "confidence": 0.8,
                      "metadata": {"kind": "turn", "role": "user" if i % 2 == 0 else "assistant",
                                   "project": project}, "key": f"turn:{sid}:{i}"})
    return store.create_many(specs)


# ------------------------------------------------------------------------------------------ acceptance
def test_newer_decision_beats_older_one_on_the_same_topic(store):
    old, new = store.create_many([
        spec("Decision: we deploy the billing service with Ansible scripts", days=200, kind="decision",
             chunk_type="decision"),
        spec("Decision: we deploy the billing service with Terraform now", days=2, kind="decision",
             chunk_type="decision"),
    ])
    assert ids(ask(store, "how do we deploy the billing service?"))[:2] == [new.id, old.id]


def test_correction_beats_a_note_with_the_same_words(store):
    note, correction = store.create_many([
        spec("The API rate limit is 100 requests per minute", kind="memory", chunk_type="note"),
        spec("Correction: the API rate limit is 500 requests per minute", kind="correction", confidence=0.95),
    ])
    assert ids(ask(store, "what is the API rate limit?"))[0] == correction.id
    assert note.id in ids(ask(store, "what is the API rate limit?"))


def test_another_projects_memory_shows_only_when_every_project_is_asked(store):
    mine, theirs = store.create_many([
        spec("The cache layer uses Redis with a five minute expiry", project="app"),
        spec("The cache layer uses Redis with a one hour expiry", project="other"),
    ])
    assert ids(ask(store, "what expiry does the Redis cache layer use?")) == [mine.id]
    everywhere = recall(store.root, "what expiry does the Redis cache layer use?", project=None, track=False)
    assert {mine.id, theirs.id} <= {i.id for i in everywhere.items}  # `recall --all-projects`


def test_unrelated_prompt_gets_nothing(store):
    store.create_many([spec("The staging database listens on port 5433", days=3)])
    for prompt in ("Rename the variable tmp to buffer in utils.py", "Explain list comprehensions in Python",
                   "ok", "?!", ""):
        result = ask(store, prompt)
        assert result.items == [] and result.render() == ""


@pytest.mark.parametrize("text, verbs", [
    ("Fix the flaky login test in tests/test_auth.py", {"fix"}),
    ("please rename the helper to load_settings", {"rename"}),
    ("Run the formatter and commit what it changes", {"run"}),
    ("could you bump the chart to 2.3.0?", {"bump"}),
    ("The build is red again. Look at it", {"the", "look"}),
    ("which port does the admin api listen on?", None),
    ("the nightly export failed once, what was the fix", None),
    ("ok so why is the cache cold after deploys", None),
    ("staging host?", None),
    ("remind me the name of the billing queue", None),
    ("Can I delete the old fixtures?", None),
])
def test_a_prompt_giving_work_is_told_from_one_asking(text, verbs):
    assert prompt_mod.work_verbs(text) == verbs


def test_work_the_person_gives_is_answered_only_by_curated_memories(store):
    conversation(store, "s1", "2026-02-20T10:00:00", [
        "the flaky login test in tests/test_auth.py failed on CI again",
        "The login test waits on a fixed sleep; I replaced it with a poll on the session cookie.",
    ])
    preference, = store.create_many([
        spec("User prefers the login test to poll for the session cookie, never to sleep", kind="preference",
             chunk_type="preference")])
    typed = ask(store, "Fix the flaky login test", typed=True)
    assert ids(typed) == [preference.id]
    asked = ask(store, "why was the login test flaky?", typed=True)
    assert len(ids(asked)) > 1 and preference.id in ids(asked)  # a question gets the record too
    searched = ask(store, "Fix the flaky login test")  # `rlm-mem recall`: a search of memory, whatever its form
    assert len(ids(searched)) > 1


def test_work_without_a_curated_memory_about_it_gets_nothing(store):
    conversation(store, "s1", "2026-02-20T10:00:00", [
        "the flaky login test in tests/test_auth.py failed on CI again",
        "The login test waits on a fixed sleep; I replaced it with a poll on the session cookie.",
    ])
    store.create_many([spec("Error: login test timed out — fixed by: polling the session cookie", kind="learning",
                            chunk_type="pattern")])
    assert ids(ask(store, "Fix the flaky signup test", typed=True)) == []  # "fix" is what to do, not a topic
    assert ids(ask(store, "Fix the flaky login test", typed=True)) != []


def test_digits_inside_a_version_or_pattern_are_no_topic(store):
    store.create_many([spec("Release 1.4.2 went out with 3 workers and 4 queues", days=2),
                       spec("The chart version is 2.3.1", days=2)])
    assert prompt_mod.Prompt("Bump the chart to 1.4.0", (), NOW, True).words == ["chart"]
    assert prompt_mod.Prompt(r"what does ^\d{3}-\d{4}$ match?", (), NOW).words == ["match"]
    assert prompt_mod.Prompt("what broke when we went to django 5.1?", (), NOW).words[-2:] == ["5", "1"]
    assert prompt_mod.Prompt("do we run 3 or 4 workers?", (), NOW).words == ["run", "3", "4", "workers"]
    assert ids(ask(store, r"What does this regex do: ^\d{3}-\d{4}$", typed=True)) == []


def test_superseded_memory_is_never_offered_as_current(store):
    """Issue 12: the new one comes first; the old one, if shown at all, is marked as replaced and dated."""
    old = store.create_chunk("Deploys go out on Fridays", metadata={"project": "app"}, created=ago(50))
    new = store.create_chunk("Deploys go out on Tuesdays", metadata={"project": "app"}, created=ago(5))
    lifecycle.supersede(store, old.id, new.id, when=ago(5))
    found = ask(store, "when do deploys go out?")
    assert ids(found)[0] == new.id
    for line in found.render().splitlines():
        if "Fridays" in line:
            assert f"replaced {ago(5)[:10]} by {new.id[-8:]}" in line
    store.update_chunk(new.id, status="retracted")  # withdrawn as wrong: never shown
    found = ask(store, "when do deploys go out?")
    assert new.id not in ids(found) and all(i.status != "active" or "Fridays" not in i.text for i in found.items)


def test_budget_is_respected_and_filled_best_first(store):
    store.create_many([spec(f"The payment gateway timed out in incident {i} after retry storm {i} " + "detail " * 20,
                            days=i + 1) for i in range(12)])
    for budget in (100, 200, 400):
        result = ask(store, "payment gateway timed out incidents", budget_tokens=budget)
        assert result.items and estimate_tokens(result.render()) <= budget
    small, large = (ask(store, "payment gateway timed out incidents", budget_tokens=b) for b in (200, 400))
    assert len(large.items) > len(small.items)
    assert ids(large)[:len(small.items)] == ids(small)  # a bigger budget only adds
    assert ask(store, "payment gateway timed out", budget_tokens=10).items == []  # nothing fits, nothing cut


def test_no_duplicates_and_contained_text_is_not_repeated(store):
    text = "The nightly backup job copies the orders database to cold storage"
    store.create_many([spec(text, days=3), spec(text.upper(), days=4, project=None),
                       spec("Backup: the nightly backup job copies the orders database", days=5, kind="decision"),
                       spec(text + " and verifies the checksum afterwards", days=6)])
    result = ask(store, "what does the nightly backup job do?")
    plain = [" ".join(i.text.lower().split()) for i in result.items]
    assert len(plain) == len(set(plain)) == len(set(ids(result)))
    assert sum("copies the orders database" in p for p in plain) == 1  # the fullest statement only


def test_sensitivity_filter(store):
    store.create_many([spec("The VPN shared secret rotates monthly", sensitivity="high"),
                       spec("The VPN gateway address is vpn.example.org", sensitivity="medium"),
                       spec("The VPN client is WireGuard", sensitivity="public")])
    shown = ask(store, "VPN shared secret gateway client")
    assert len(shown.items) == 2 and "rotates" not in shown.render()
    assert len(ask(store, "VPN shared secret gateway client", max_sensitivity="hyper").items) == 3
    assert len(ask(store, "VPN shared secret gateway client", max_sensitivity="public").items) == 1
    with pytest.raises(ValueError):
        ask(store, "vpn", max_sensitivity="secret")


# ------------------------------------------------------------------------------------------ ranking signals
def test_an_answer_with_no_shared_word_comes_with_its_question(store):
    conversation(store, "s1", "2026-02-10T10:00:00", [
        "Ana: Which database did the team pick for the analytics warehouse?",
        "Ben: ClickHouse, after the benchmark last week.",
        "Ana: Great, thanks.",
    ])
    conversation(store, "s2", "2026-02-11T10:00:00", ["Ana: The lunch order is in.", "Ben: Pizza again."])
    result = ask(store, "database for the analytics warehouse")
    shown = result.render()
    assert "ClickHouse" in shown and "Pizza" not in shown
    answer = next(i for i in result.items if "ClickHouse" in i.text)
    assert "context" in answer.why and "text" not in answer.why


def test_named_speaker_and_dates(store):
    conversation(store, "s1", "2023-05-08T13:00:00", [
        "Caroline: I went to a support group yesterday and it was so powerful.",
        "Melanie: I went to a support group too, years ago.",
    ])
    conversation(store, "s2", "2023-07-20T09:00:00", ["Caroline: The support group met again last week."])
    result = ask(store, "When did Caroline go to the support group?")
    assert result.items[0].text.startswith("Caroline: I went")
    assert "speaker" in result.items[0].why
    assert "(yesterday = 2023-05-07 (Sun))" in result.render()  # resolved against the day it was said
    july = ask(store, "What did Caroline say about the support group in July 2023?")
    assert july.items[0].text.startswith("Caroline: The support group met") and "date" in july.items[0].why


def test_files_named_in_the_prompt_pull_in_memories_about_them(store):
    about = store.create_chunk("Switched the tokenizer to a table-driven state machine",
                               metadata={"project": "app", "files": ["src/lexer/tokenize.py"]})
    store.create_chunk("The tokenizer handles unicode escapes", metadata={"project": "app"})
    assert ids(ask(store, "Refactor tokenize.py to be faster"))[0] == about.id
    assert ids(ask(store, "anything to know before editing?", files=["/repo/src/lexer/tokenize.py"]))[0] == about.id


def test_a_file_name_finds_its_memories_through_the_index_and_is_gone_with_them(store):
    from brain.index import search_index

    about = store.create_chunk("Rewrote the N+1 queries with select_related",
                               metadata={"project": "app", "files": ["src/comments/models.py", "src/comments/"]})
    other = store.create_chunk("Renamed the field on the admin form",
                               metadata={"project": "app", "files": ["src/comments/old_models.py"]})
    conn = search_index.connect(store.root, readonly=True)
    try:
        assert candidates.file_rows(conn, {"models.py"}) == {
            conn.execute("SELECT rowid FROM chunks WHERE id=?", (about.id,)).fetchone()[0]}  # a suffix is no name
        assert sorted(conn.execute("SELECT name, id FROM file_names")) == sorted(
            [("models.py", about.id), ("old_models.py", other.id)])  # "src/comments/" names no file
    finally:
        conn.close()
    assert ids(ask(store, "Can you look at comments/models.py, the queries are slow"))[0] == about.id
    store.delete_chunk(about.id, permanent=True)
    conn = search_index.connect(store.root, readonly=True)
    try:
        assert list(conn.execute("SELECT name FROM file_names")) == [("old_models.py",)]
    finally:
        conn.close()


def test_a_word_inside_a_camel_case_name_finds_the_memory_and_leaves_with_it(store):
    from brain.index import search_index
    from brain.index.identifiers import identifier_parts

    assert identifier_parts("maxReplicas: 8, HikariCP, parseHTTPResponse(), Redis, HTTP, snake_case") == \
        "max replicas hikari cp parse http response"
    held = store.create_chunk("Left as is: maxReplicas: 8 with the pool unchanged.", metadata={"project": "app"})
    assert held.id in ids(ask(store, "How many replicas are there at most?"))
    store.update_chunk(held.id, content="Set minAvailable: 2 on the disruption budget.")
    assert held.id not in ids(ask(store, "How many replicas are there at most?"))
    assert held.id in ids(ask(store, "What is the minimum available on the disruption budget?"))
    store.delete_chunk(held.id, permanent=True)
    conn = search_index.connect(store.root)
    try:  # FTS5 checks its index against the rows: a 'delete' given other words than were indexed fails here
        conn.execute("INSERT INTO fts(fts, rank) VALUES('integrity-check', 1)")
        assert conn.execute("SELECT count(*) FROM fts WHERE fts MATCH 'available'").fetchone()[0] == 0
    finally:
        conn.close()


def test_recall_reads_chunks_by_key_never_by_walking_a_table(store, recall_sql):
    """Every query a prompt's recall makes on the chunks table seeks (its rowid, an index); none walks the table or
    the kind index (each cost 15-50 ms a prompt at 100k memories before it was fixed, bench/run.py)."""
    from brain.index import search_index

    turns = []
    for conv in range(6):
        for i in range(30):
            said = "the gateway listens on port 8443" if i % 6 == 0 else FILLER[(conv + i) % len(FILLER)]
            turns.append(spec(f"turn {i} of talk {conv}: {said}", kind="turn", conv=f"talk-{conv}",
                              days=40 - conv - i / 100,
                              files=["src/comments/models.py"] if i % 7 == 0 else []))
    store.create_many(turns + [spec(text) for text in FILLER])
    assert ask(store, "Which port does the gateway use? see comments/models.py").items
    plans = {}
    conn = search_index.connect(store.root, readonly=True)
    try:
        for sql in recall_sql:
            if sql.lstrip().upper().startswith("SELECT") and " chunks" in sql:
                plans[sql] = " | ".join(row[-1] for row in conn.execute("EXPLAIN QUERY PLAN " + sql))
    finally:
        conn.close()
    assert any("file_names" in sql for sql in plans) and any("rowid IN" in sql for sql in plans)
    for sql, plan in plans.items():
        assert "SCAN chunks" not in plan and "chunks_kind" not in plan, (sql[:120], plan)


def test_a_word_the_store_holds_has_its_family_ranked_only_where_the_word_is_not(store, recall_sql):
    """The index stems words, so "model*" mostly finds the memories "models" found already; ranking them
    again cost ~1.5 ms a word at 10,000 memories (bench/run.py). A family search of a word the store holds is
    limited to memories without it; a word the store lacks is searched through its family as it is."""
    store.create_many([spec(f"The linter runs in CI, pass {i}") for i in range(12)] +
                      [spec("Ruff does the linting of the Python code"), spec("Black is our formatter"),
                       spec("We lint with ruff in the pre-commit hook")])  # "linter" has synonyms and lint*
    assert "Ruff" in ask(store, "which linter checks the Python code?").render()  # "linting", through lint*
    family = [sql for sql in recall_sql if "MATCH" in sql and "lint" in sql and "MATCH '\"linter\"'" not in sql]
    assert len(family) >= 2 and all('NOT "linter"' in sql for sql in family), family
    recall_sql.clear()
    assert "Black" in ask(store, "which tool does the formatting?").render()  # no "formatting" (stem "format")
    assert any("MATCH 'format*'" in sql for sql in recall_sql), recall_sql


def test_a_derived_family_is_searched_only_when_the_index_holds_another_word_of_its_root(store, recall_sql):
    """The index keeps a word's derivations under its own stem, so `(format*) NOT "formatting"` nearly always
    finds nothing and reads both doclists doing so (0.3-0.7 ms a word at 100,000 memories). The index's
    vocabulary tells first whether any other word starts with the root."""
    store.create_many([spec("We format the Python code with black before each commit")])
    assert "black" in ask(store, "who does the formatting?").render()  # "formatting" is "format" in the index
    assert not any("format*" in sql for sql in recall_sql), recall_sql
    store.create_many([spec("Ruff is our formatter")])  # the index keeps "formatter" as "formatt": a derivation
    recall_sql.clear()
    assert "Ruff is our formatter" in ask(store, "who does the formatting?").render()
    assert any("format*" in sql for sql in recall_sql), recall_sql
    # FTS5 stems a prefix query's text as well: `override*` searches overrid*, which holds "overridden"
    store.create_many([spec("Values in config.toml are overridden by QUARRY_BIND")])
    assert "QUARRY_BIND" in ask(store, "what can override them?").render()


def test_a_word_ranked_over_its_newest_matches_has_its_family_ranked_so_too_uncounted(store, recall_sql,
                                                                                      monkeypatch):
    """A word on more than COMMON_MAX_ROWS memories is ranked over its newest matches; counting its family
    (`(...) NOT "tests"`) would read the word's whole doclist, and bm25() every phrase's matches again: the
    family's newest matches are taken instead, scored as the word."""
    monkeypatch.setattr(weights, "COMMON_MAX_ROWS", 5)
    store.create_many([spec(f"The tests of module {i} pass on CI") for i in range(8)] + [spec(t) for t in FILLER]
                      + [spec("Pytest with xdist splits the suite over four workers")])
    assert "xdist" in ask(store, "how are the tests split over workers?").render()
    family = [sql for sql in recall_sql if 'NOT "tests"' in sql]
    assert family and all("ORDER BY rowid DESC" in sql and "count(*)" not in sql for sql in family), family


def test_a_capped_words_family_dense_among_the_newest_memories_is_left_out(store, monkeypatch):
    """Uncounted, a capped word's family still must not be one most memories hold ("production" for "deploy"):
    its newest matches tell how dense it is among the newest memories."""
    from brain.index import search_index

    monkeypatch.setattr(weights, "CAPPED_ROWS", 5)

    def family_rows():
        conn = search_index.connect(store.root, readonly=True)
        try:
            text, matched = {}, {}
            candidates._family_scores(conn, ["tests"], 200, text, matched, {"tests": 1.0}, [], {"tests": 40})
            return len(matched)
        finally:
            conn.close()

    sparse = []
    for i in range(6):  # a pytest memory among five others, six times: 6 of the newest 36
        sparse += [spec(f"The tests of module {i} pass")] + [spec(f"{t} ({i})") for t in FILLER[:4]]
        sparse.append(spec(f"Pytest run {i} finished in a minute"))
    store.create_many(sparse)
    assert family_rows() == 5  # the newest five pytest memories, at the word's score
    store.create_many([spec(f"Pytest run {i} of the nightly finished") for i in range(6)])  # now every newest one
    assert family_rows() == 0


def test_pinned_and_tagged_memories_rank_higher(store):
    plain, pinned = store.create_many([spec("Use the blue theme for the admin dashboard"),
                                       spec("Use the green theme for the admin dashboard", pinned=True)])
    assert ids(ask(store, "which theme for the admin dashboard?"))[0] == pinned.id
    tagged = store.create_chunk("Use the red theme for the admin dashboard", tags=["branding"],
                                metadata={"project": "app"}, created=ago(10))
    assert ids(ask(store, "branding theme for the admin dashboard"))[0] == tagged.id


def test_depth_levels_and_rendering(store):
    long = ("Decision: the ingestion workers move from Celery to a plain SQLite-backed queue. Reason: fewer "
            "moving parts and no broker to operate. " + "More context follows here. " * 30)
    chunk = store.create_chunk(long, chunk_type="decision", metadata={"project": "app", "kind": "decision"})
    full = ask(store, "why did the ingestion workers move off Celery?", budget_tokens=2000)
    assert full.items[0].id == chunk.id
    day, line = full.render().splitlines()[:2]  # compact: the day, then the id's hex tail
    assert day == chunk.id[6:16] and f"chunk-{day}-{line[3:11]}" == chunk.id
    assert line.startswith(f"- [{chunk.id[-8:]} decision] Decision: the ingestion workers")
    assert full.render_lines(compact=False).splitlines()[1].startswith(f"- [{chunk.id} decision]")
    summary = ask(store, "why did the ingestion workers move off Celery?", depth="summary")
    assert len(summary.items[0].text) < 100
    complete = ask(store, "why did the ingestion workers move off Celery?", depth="complete", budget_tokens=2000)
    assert "confidence" in complete.items[0].text and "kind decision" in complete.items[0].text
    with pytest.raises(ValueError):
        ask(store, "celery", depth="everything")
    assert json.loads(json.dumps(full.to_dict()))["items"][0]["id"] == chunk.id


def test_access_is_recorded_only_when_tracking(store):
    chunk = store.create_chunk("The release checklist lives in the wiki", metadata={"project": "app"})
    ask(store, "where is the release checklist?", track=False)
    assert chunk.id not in access.pending_access(store.root)
    ask(store, "where is the release checklist?", track=True)
    assert access.pending_access(store.root)[chunk.id][0] == 1


def test_no_index_and_damaged_index_recall_nothing(tmp_path):
    assert recall(tmp_path / "nothing-here", "anything at all").items == []
    (tmp_path / "broken" / "index").mkdir(parents=True)
    (tmp_path / "broken" / "index" / "search.db").write_bytes(b"not a database" * 100)
    assert recall(tmp_path / "broken", "anything at all").items == []


# ------------------------------------------------------------------------------------------ CLI
def run(store, *args):
    return CliRunner().invoke(cli, ["recall", *args], env={"RLM_MEM_DIR": str(store.root), "RLM_MEM_ACTOR": "t"})


def test_cli_recall_text_json_and_nothing(store):
    chunk = store.create_chunk("The staging database listens on port 5433", metadata={"project": "app"})
    out = run(store, "which", "port", "does", "the", "staging", "database", "use?", "--project", "app")
    assert out.exit_code == 0 and chunk.id in out.output and "5433" in out.output
    data = json.loads(run(store, "staging database port", "--project", "app", "--json", "--depth", "summary",
                          "--budget", "200", "--limit", "1").output)
    assert [i["id"] for i in data["items"]] == [chunk.id] and data["depth"] == "summary"
    assert data["tokens"] <= 200
    nothing = run(store, "Bump the version in pyproject.toml to 1.4.0", "--all-projects")
    assert nothing.exit_code == 0 and nothing.output.strip() in ("", "No memory is relevant enough to this question.")
    assert run(store, "x", "--depth", "nope").exit_code == 2
    assert run(store).exit_code == 2


# ------------------------------------------------------------------------------------------ dates in text
@pytest.mark.parametrize("text, spans", [
    ("on 8 May, 2023", [(date(2023, 5, 8), date(2023, 5, 8))]),
    ("on October 13, 2023?", [(date(2023, 10, 13), date(2023, 10, 13))]),
    ("in December 2023", [(date(2023, 12, 1), date(2023, 12, 31))]),
    ("camping in June", [("month", 6)]),
    ("in 2022", [(date(2022, 1, 1), date(2022, 12, 31))]),
    ("2024-02-29", [(date(2024, 2, 29), date(2024, 2, 29))]),
    ("may I ask", []),
    ("31 February 2023", []),
])
def test_absolute_dates(text, spans):
    assert timeref.absolute_spans(text) == spans


@pytest.mark.parametrize("phrase, first, last", [
    ("yesterday", date(2023, 5, 7), date(2023, 5, 7)),
    ("last week", date(2023, 5, 1), date(2023, 5, 7)),
    ("last weekend", date(2023, 5, 6), date(2023, 5, 7)),
    ("last Friday", date(2023, 5, 5), date(2023, 5, 5)),
    ("last month", date(2023, 4, 1), date(2023, 4, 30)),
    ("next month", date(2023, 6, 1), date(2023, 6, 30)),
    ("last year", date(2022, 1, 1), date(2022, 12, 31)),
    ("two weeks ago", date(2023, 4, 21), date(2023, 4, 27)),
])
def test_relative_dates_resolve_against_the_day_said(phrase, first, last):
    monday = date(2023, 5, 8)
    assert timeref.relative_spans(f"I did it {phrase}.", monday) == [(phrase, first, last)]


RELATIVE_PIECES = ["yesterday", "Today", "tonight", "TOMORROW", "last night", "this morning", "last week",
                   "next weekend", "past month", "this year", "coming Friday", "on Tuesday", "two days ago",
                   "a couple of weeks ago", "3 months ago", "few years ago", "last nıght", "on ſunday", "on FRİDAY",
                   "in ſeptember", "the", "on", "this", "last", "ago", " ", "."]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(RELATIVE_PIECES) | st.text(max_size=10), max_size=12).map(" ".join))
def test_the_quick_test_before_the_relative_date_pattern_never_changes_what_is_found(text):
    """relative_spans skips its pattern when none of the words every relative date holds is in the text; with that
    test made to always pass it finds the same."""
    found = timeref.relative_spans(text, date(2023, 5, 8))
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(timeref, "_RELATIVE_HINTS", ("",))
        assert timeref.relative_spans(text, date(2023, 5, 8)) == found


def test_letters_the_date_patterns_take_for_ascii_ones_are_read_as_them():
    """re.IGNORECASE matches "ſ" as "s" and "ı" as "i"; reading the matched word with .lower() then failed
    ("'ſunday' is not in list"), so a memory lost its dates and a prompt its recall."""
    monday = date(2023, 5, 8)
    assert [span[1:] for span in timeref.relative_spans("on ſunday and last FRİDAY", monday)] == \
        [span[1:] for span in timeref.relative_spans("on sunday and last friday", monday)]
    assert timeref.absolute_spans("in ſeptember 2023") == timeref.absolute_spans("in september 2023")


def test_without_dates_keeps_other_words():
    assert timeref.without_dates("What did Gina find on 1 February, 2023 for her store?").split() == \
        "What did Gina find on for her store?".split()
    assert timeref.without_dates("may I go") == "may I go"


def test_a_long_memory_is_shown_as_the_part_about_the_prompt(store):
    story = " ".join(f"Step {i} of the migration touched the reporting tables." for i in range(40))
    story += " The rollback plan is to restore the nightly snapshot of the ledger database."
    chunk = store.create_chunk(story, metadata={"project": "app"})
    result = ask(store, "rollback of the ledger database?")
    item = result.items[0]
    assert item.id == chunk.id and "restore the nightly snapshot of the ledger database" in item.text
    assert len(item.text) <= weights.MAX_ITEM_CHARS + 40 and item.text.startswith("…")
    assert len(ask(store, "rollback of the ledger database?", depth="complete",
                   budget_tokens=5000).items[0].text) > len(story)


def test_tool_calls_split_into_entries_each_with_the_lines_it_added():
    said, calls = text_mod.tool_calls("Moved it.\n[tools] Edit: .env → APP_HOST=x; PORT=3100; Bash: bin/dev; "
                                      "mcp__github__create_pr: title; Write: a.yml → worker: sidekiq")
    assert said == "Moved it."
    assert calls == ["Edit: .env → APP_HOST=x; PORT=3100", "Bash: bin/dev", "mcp__github__create_pr: title",
                     "Write: a.yml → worker: sidekiq"]
    assert text_mod.tool_calls("No tools here; none.") == ("No tools here; none.", [])


def test_only_the_best_memory_shows_every_tool_call_the_others_those_naming_the_prompt(store):
    calls = "[tools] Edit: config/web_server.rb → listen 3100; Bash: bundle exec rspec; Bash: git push"
    best = store.create_chunk(f"The web server listens on 3100 now on every laptop.\n{calls}",
                              metadata={"project": "app", "kind": "turn"})
    other = store.create_chunk(f"Checked the web server logs after the deploy.\n{calls.replace('3100', '3000')}",
                               metadata={"project": "app", "kind": "turn"})
    result = ask(store, "What does the web server listen on?")
    shown = {item.id: item.text for item in result.items}
    assert result.items[0].id == best.id and shown[best.id].endswith(calls)
    # rspec and the push name no word of the prompt: only the edit of the web server's config is shown
    assert shown[other.id].endswith("[tools] Edit: config/web_server.rb → listen 3000")


def test_a_plural_prompt_word_names_the_call_holding_its_singular(store):
    store.create_chunk("Tests live next to the code; run the tests before every push, all tests.",
                       metadata={"project": "app", "kind": "turn"})
    other = store.create_chunk("Added the Makefile targets for run and lint.\n[tools] Write: Makefile; Bash: make test; "
                               "Bash: git push", metadata={"project": "app", "kind": "turn"})
    shown = {item.id: item.text for item in ask(store, "How do I run the tests?").items}
    assert shown[other.id].endswith("[tools] Bash: make test")


def test_a_prompt_about_yesterday_favours_what_was_said_yesterday(store):
    older, recent = store.create_many([spec("We chose the blue palette for the onboarding screens", days=20),
                                       spec("We chose the teal palette for the onboarding screens", days=1)])
    result = ask(store, "which palette did we choose yesterday for onboarding?")
    assert ids(result)[0] == recent.id and "date" in result.items[0].why


# The prompt hook recalls without `re` or `datetime` (each costs ms of its start): hand-written scanners stand in for
# the regexes recall used, and must agree with them. Text is drawn from pieces that exercise their edges.
PIECES = ["a", "B", "Caroline", "Mary Ann", "x" * 29, "Y" * 31, "e.g", ".", "/", "-", "_", " ", ":", ": ", "(", ")",
          " (", "'", "py", "ABCDEFGHI", "3", "1.2", "é", "ß", "\n", "!", "?", ". ", "models.py", "src/", "//", "..",
          "yesterday", "last", "week", "on", "Friday", "ago", "two", "days", "in", "May", "early", "2023", "of", "the",
          "this", "morning", "Today", "night", "sept"]
pieced = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)


@settings(max_examples=400, deadline=None)
@given(pieced)
def test_scanners_agree_with_the_regexes_they_replace(text):
    import re

    files = set()
    for m in re.finditer(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,7})(?![\w/])", text):
        name = m.group(1).rsplit("/", 1)[-1]
        if not name.lower().startswith(("e.g", "i.e")):
            files.add(name)
    assert prompt_mod.file_names(text) == files
    assert text_mod.words(text) == re.findall(r"[^\W_]+", text)
    assert prompt_mod._capitalised(text) == {w.lower() for w in re.findall(r"\b[A-Z][\w'-]*", text)}
    assert text_mod.without_label(text) == re.sub(r"^[A-Z][\w -]{0,30}(?: \([^)]{0,40}\))?: ", "", text, count=1)
    speaker = re.match(r"([A-Z][\w'.-]{0,30}(?: [A-Z][\w'.-]{0,30}){0,2}): (?=\S)", text)
    assert text_mod.speaker_label(text)[0] == (speaker.group(1) if speaker else None)
    spaced = " ".join(text.split())
    found = text_mod.sentences(spaced)
    assert " ".join(found) == spaced  # nothing lost, nothing added
    for sentence in found[:-1]:  # each one but the last ends a sentence, and not on an abbreviation
        last = sentence.rsplit(" ", 1)[-1]
        assert last.rstrip("\"')]”’*_`").endswith((".", "!", "?", "。", "！", "？")) and last.lower() not in ("e.g.", "i.e.")
    # The date tests may say yes to text without a date, never no to one with a date timeref reads.
    assert prompt_mod.may_have_relative_date(text) or not timeref.relative_spans(text, NOW.date())
    assert prompt_mod.may_have_calendar_date(text) or not timeref.absolute_spans(text)


@pytest.mark.parametrize("created", ["2026-02-28T23:59:59Z", "2024-02-29T00:00:00+00:00", "2025-12-31 08:30:00",
                                     "2026-03-01", "1969-12-31T12:00:00", "2023-02-29T00:00:00", "garbage", None])
def test_salience_reads_stored_times_without_datetime_alike(created):
    from brain.store import salience
    from brain.util.timestamps import epoch_seconds, parse_timestamp

    parsed = parse_timestamp(created[:19] if created and len(created) >= 19 else created)
    assert epoch_seconds(created) == (parsed.timestamp() if parsed else None)
    row = {"created": created, "last_accessed": None, "kind": "memory", "access_count": 2}
    assert salience.salience(row, NOW.timestamp()) == pytest.approx(salience.salience(row, NOW), rel=1e-12)


def test_recall_accepts_a_naive_datetime_or_epoch_seconds_as_now(store):
    store.create_many([spec("Decision: staging postgres listens on port 5433", days=3),
                       spec("Caroline: the staging postgres moved yesterday", days=100, kind="turn")])
    prompt = "which port does staging postgres use, Caroline?"
    as_datetime = recall(store.root, prompt, now=NOW, track=False)
    naive = recall(store.root, prompt, now=NOW.replace(tzinfo=None), track=False)
    epoch = recall(store.root, prompt, now=NOW.timestamp(), track=False)
    assert as_datetime.items and as_datetime.render() == naive.render() == epoch.render()


def test_an_index_from_an_older_layout_is_rebuilt_and_recall_never_fails_meanwhile(store):
    from brain.index import search_index

    said = store.create_many([spec("Caroline: I went to the LGBTQ support group yesterday.", days=3)])[0]
    conn = search_index.connect(store.root)
    conn.execute("UPDATE meta SET value='3' WHERE key='schema'")
    conn.execute("ALTER TABLE chunks DROP COLUMN when_note")  # what an index made before schema 4 lacks
    conn.close()
    assert search_index.is_stale(store.root)
    meanwhile = ask(store, "when did Caroline go to the support group?")  # read as it is, without the new columns
    assert meanwhile.items[0].id == said.id and "(yesterday" not in meanwhile.render()
    assert search_index.staleness(store.root) == "layout"
    assert store.sync_derived() is not None and not search_index.is_stale(store.root)
    found = ask(store, "when did Caroline go to the support group?")
    assert found.items[0].id == said.id
    assert "(yesterday = 2026-02-25 (Wed))" in found.render()  # resolved against the day it was said


def test_a_prompt_the_store_only_touches_gets_a_short_context(store, monkeypatch):
    # Many memories share two of the prompt's six words, none holds half of it: a weak match, capped.
    store.create_many([spec(f"The nightly import script {n} logged an error for batch {n} and retried it", days=n)
                       for n in range(1, 60)])
    question = "How do I make a bash script exit on the first error?"
    capped = ask(store, question)
    assert capped.items and capped.tokens <= weights.WEAK_BUDGET_TOKENS
    monkeypatch.setattr(weights, "STRONG_SHARE", 0.0)  # the same prompt, taken as a strong match
    assert ask(store, question).tokens > weights.WEAK_BUDGET_TOKENS
    # Asked about the work done before ("did we", "our"), it asks memory: the full budget, as for a strong match.
    monkeypatch.setattr(weights, "STRONG_SHARE", 0.5)
    assert ask(store, "How did we make our bash script exit on the first error?").tokens \
        > weights.WEAK_BUDGET_TOKENS


def test_a_weak_prompt_gets_only_what_scores_near_its_best(store, monkeypatch):
    # Two of the prompt's words each, none holds half of it: a weak match; what scores under half the best stays out.
    store.create_many([spec("The nightly import script logged an error and retried the batch", days=1),
                       spec("The import script writes its error to the batch log", days=2),
                       spec("Each script in the repo has an owner", days=3),
                       spec("The error budget of the API is 0.1% a month", days=4)])
    question = "How do I make a bash script exit on the first error?"
    weak = ask(store, question)
    assert weak.items and all(i.score >= weights.WEAK_RELATIVE_CUT * weak.items[0].score for i in weak.items)
    monkeypatch.setattr(weights, "WEAK_RELATIVE_CUT", weights.RELATIVE_CUT)
    assert len(ask(store, question).items) > len(weak.items)


def test_what_is_left_of_a_negated_verb_is_no_topic_word():
    """"wouldn't" is read as "wouldn" and "t": an auxiliary the store never holds, which weighed as much as the
    rarest topic word and cut the share of the prompt its answer holds."""
    words = prompt_mod.Prompt("Why wouldn't the worker start, and why didn't it log?", (), prompt_mod.Clock()).words
    assert words == ["worker", "start", "log"]
    assert "many" not in prompt_mod.Prompt("How many threads does Sidekiq run?", (), prompt_mod.Clock()).words
    assert "design" in prompt_mod.Prompt("Which design t-shirt vendor?", (), prompt_mod.Clock()).words
    assert not prompt_mod.Prompt("How do I deploy a Lambda to us-east-1?", (), prompt_mod.Clock()).asks_history


def test_a_memory_holding_more_of_the_prompt_outranks_one_holding_its_rarest_word(store, monkeypatch):
    """BM25 sums each word's score, so a short note holding only the prompt's rarest word ("kafka") outscored one
    holding three of its four words. A text score weighted by the share of the prompt held reverses that."""
    store.create_many([spec(text, days=20 + i) for i, text in enumerate([
        "The billing consumer was renamed last spring", "Every retry is logged to stdout",
        "The email consumer runs on two pods", "A retry storm hit the cache in May",
        "The backoff for the mailer is linear"])])
    rarest, answer = store.create_many([
        spec("Kafka upgrade: Kafka 3.7 is on staging", days=2),
        spec("The orders consumer retry uses an exponential backoff starting at 30 seconds, capped at ten minutes",
             days=3)])
    question = "What backoff does the kafka consumer retry with?"
    order = ids(ask(store, question))
    assert order.index(answer.id) < order.index(rarest.id)
    monkeypatch.setattr(weights, "COVERAGE_BASE", 1e9)  # every memory weighed alike, whatever share it holds
    order = ids(ask(store, question))
    assert order.index(rarest.id) < order.index(answer.id)


def test_a_long_summary_holding_every_word_is_not_buried_by_short_notes(tmp_path, monkeypatch):
    """FTS5 normalises BM25 by length with b = 0.75, fixed: a session's 1,500-character summary holding every word
    of the question fell below short notes holding two of them, out of the context. Scored as if b were 0.6 for
    memories longer than a paragraph, it is recalled; so it is when a text score is weighted by the share of the
    prompt its memory holds (weights.COVERAGE_BASE)."""
    def word(n):
        return "".join("bcdfghklmnprstvz"[int(d)] + "aeiou"[int(d) % 5] for d in f"{n:03d}")

    filler = " ".join(f"The {word(i)} step reads {word(i + 40)} rows." for i in range(20))
    s = ChunkStore(tmp_path / "mem", actor="test")
    summary = s.create_many([spec(f"Where things stand. {filler} Hubspot export batches go through the ads loader, "
                                  f"which retries three times. {filler}", days=20)])[0].id
    s.create_many([spec(text, days=19 - i) for i, text in enumerate([
        "The ads loader runs at 04:30.", "The ads loader writes parquet files.", "Retry the ads export by hand.",
        "The loader logs to stdout.", "A retry of the nightly job needs a token.", "Hubspot sends deals as JSON.",
        "Export batches are gzipped."])])
    question = "How do the hubspot export batches get through the ads loader retry?"
    assert summary in [item.id for item in ask(s, question).items]
    monkeypatch.setattr(weights, "LENGTH_B", weights.FTS_B)  # FTS5's normalisation as it is
    assert summary in [item.id for item in ask(s, question).items]  # the share of the prompt it holds lifts it
    monkeypatch.setattr(weights, "COVERAGE_BASE", 1e9)  # every memory weighed alike, whatever share it holds...
    monkeypatch.setattr(weights, "RELATIVE_CUT", 0.38)  # ...and the cut of that time: buried
    assert summary not in [item.id for item in ask(s, question).items]
