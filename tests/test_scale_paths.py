"""What keeps writes and recall the same at 100,000 memories as at 1,000, checked on the logic at a small size
(bench/run.py measures the sizes themselves): the chunk file encoder, and recall over words too common to rank
whole."""
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from brain.recall import weights
from brain.recall.recall import recall
from brain.scripts import ChunkStore
from brain.store.write_session import chunk_text

values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
                      lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
                      max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(values)
def test_chunk_files_are_exactly_what_json_dumps_writes(value):
    data = {"id": "chunk-2026-01-01-00000000", "value": value}
    assert chunk_text(data) == (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def test_a_prompt_whose_words_are_all_common_still_gets_its_best_match(isolated_memory, monkeypatch, recall_sql):
    # the cap that applies to words on more than 2,000 of 100,000 memories, scaled to a store of 161
    monkeypatch.setattr(weights, "COMMON_MAX_ROWS", 20)
    monkeypatch.setattr(weights, "CAPPED_ROWS", 10)
    store = ChunkStore(isolated_memory)
    specs = [dict(content=f"Redis keeps the session cache warm on node {i}.") for i in range(40)]
    specs += [dict(content=f"Refunds over {i} euros wait for a second approval.") for i in range(40)]
    specs += [dict(content=f"We decided to rename service number {i}.") for i in range(40)]
    specs += [dict(content=f"We use build runner {i} for nightly jobs.") for i in range(40)]
    specs.insert(7, dict(content="We decided to use Redis for the refunds queue because it halves the hosting bill.",
                         chunk_type="decision"))
    store.create_many(specs)
    result = recall(isolated_memory, "Why did we decide to use redis for the refunds?", track=False)
    assert result.items and "halves the hosting bill" in result.items[0].text
    # the common words are taken over their newest matches without bm25(), which would count every match again
    ranked = [sql for sql in recall_sql if "bm25" in sql and ('"redis"' in sql or '"refunds"' in sql)]
    assert not ranked, ranked


def test_a_family_on_many_memories_is_ranked_over_its_newest_and_still_answers(isolated_memory, monkeypatch,
                                                                               recall_sql):
    """A word's family ("port" OR "bind" OR ... for "listen") on more than FAMILY_RANKED_ROWS memories is scored
    over its newest CAPPED_ROWS matches instead of ranked in full (3-5 ms at 10,000 memories), without bm25 (which
    counts every match again); the newest answer that holds the prompt's idea only through the family is still
    found. Scaled down: 500 -> 15, 100 -> 10."""
    monkeypatch.setattr(weights, "FAMILY_RANKED_ROWS", 15)
    monkeypatch.setattr(weights, "CAPPED_ROWS", 10)
    store = ChunkStore(isolated_memory)
    specs = [dict(content=f"Service {i} binds port {9000 + i} on the old cluster.") for i in range(60)]
    specs += [dict(content=f"The nightly report {i} is mailed to the team.") for i in range(30)]
    specs.append(dict(content="The billing gateway binds port 8443 since the move."))
    store.create_many(specs)
    result = recall(isolated_memory, "which port does the billing gateway listen on?", track=False)
    assert result.items and "8443" in result.items[0].text
    family = [sql for sql in recall_sql if '"bind" OR' in sql and "count(*)" not in sql]
    assert family and all("ORDER BY rowid DESC" in sql and "bm25" not in sql for sql in family), family


def test_counts_in_a_large_store_are_estimated_only_for_words_ranked_over_their_newest(isolated_memory,
                                                                                       monkeypatch, recall_sql):
    """Above COUNT_WINDOW memories a word's matches are first counted among the newest COUNT_WINDOW: a word the
    window shows to be on more than COMMON_MAX_ROWS memories keeps that estimate (counting all of them cost 6 ms
    for a word on 25,000 of 100,000 memories); a rarer word, and one found only in older memories, is counted
    exactly, so an old memory's rare word is never taken for a word the store lacks. Scaled down: 20,000 -> 30
    memories, 2,000 -> 10."""
    monkeypatch.setattr(weights, "COUNT_WINDOW", 30)
    monkeypatch.setattr(weights, "COMMON_MAX_ROWS", 10)
    monkeypatch.setattr(weights, "CAPPED_ROWS", 10)
    store = ChunkStore(isolated_memory)
    old = [dict(content="The flaky importer was replaced by the tidewater parser.", created="2025-01-02T09:00:00Z")]
    old += [dict(content=f"Ticket {i} about the importer was closed.", created="2025-01-03T09:00:00Z")
            for i in range(5)]
    new = [dict(content=f"The billing report {i} ran on the queue.", created="2026-01-05T09:00:00Z")
           for i in range(60)]
    store.create_many(old + new)
    result = recall(isolated_memory, "what replaced the flaky importer in the billing report?", track=False)
    assert result.items and any("tidewater" in item.text for item in result.items)
    counts = [sql for sql in recall_sql if "count(*)" in sql]
    windowed = [sql for sql in counts if "rowid >=" in sql]
    exact = [sql for sql in counts if "rowid >=" not in sql]
    billing, importer = "MATCH '\"billing\"'", "MATCH '\"importer\"'"  # the word's own count, not a family's
    assert any(billing in sql for sql in windowed) and not any(sql.endswith(billing) for sql in exact), counts
    assert any(sql.endswith(importer) for sql in exact), counts  # older memories only: counted whole
