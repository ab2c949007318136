"""The brief's latest value changes (brain/recall/current.py) read from a real search.db."""
import pytest

from brain.index import search_index
from brain.recall.current import CURRENT_MAX, current_values
from brain.scripts import ChunkStore

ALL = ("public", "low", "medium")


@pytest.fixture
def conn(isolated_memory):
    store = ChunkStore(str(isolated_memory))
    said = {}
    for n, text in enumerate(["The API listens on 8090 now.", "The API listens on 8095 now.",
                              "maxReplicas: 6 for the API.", "maxReplicas: 8 for the API.",
                              "p95 went from timeouts to 212 ms.", "Retries are down to 3.", "A secret turn.",
                              "Renamed it. The topic is pinecone.reminders.v1 now.", "Done."]):
        metadata = {"project": "app", "sensitivity": "high" if "secret" in text else "low"}
        said[text] = store.create_chunk(text, created=f"2026-03-{n + 1:02d}T09:00:00Z", metadata=metadata).id
    writer, _ = search_index.connect_for_writing(store.root)
    changes = [("8087", "8090", said["The API listens on 8090 now."]),
               ("8090", "8095", said["The API listens on 8095 now."]),
               ("maxReplicas = 4", "maxReplicas = 6", said["maxReplicas: 6 for the API."]),
               ("maxReplicas = 6", "maxReplicas = 8", said["maxReplicas: 8 for the API."]),
               ("timeouts", "212 ms", said["p95 went from timeouts to 212 ms."]),
               ("max_retries = 5", "max_retries = 3", said["Retries are down to 3."]),
               ("1 day", "2 days", said["A secret turn."]),
               ("topic = appointment-reminders", "topic = pinecone.reminders.v1",
                said["Renamed it. The topic is pinecone.reminders.v1 now."]),
               ("waitlist-enabled = false", "waitlist-enabled = true", said["Done."])]
    writer.execute("DELETE FROM changes")
    for n, (old, new, chunk_id) in enumerate(changes):
        writer.execute("INSERT INTO changes(project, old, new, at, id) VALUES('app', ?, ?, ?, ?)",
                       (old, new, f"2026-03-{n + 1:02d}T09:00:00Z", chunk_id))
    writer.close()
    reader = search_index.connect(store.root, readonly=True)
    yield reader, said
    reader.close()


def test_each_value_is_given_at_its_latest_in_its_memorys_words(conn):
    reader, said = conn
    switched, renamed, *shown = current_values(reader, "app", ALL)
    # "Done." over an edit does not say the value: the change gives it
    assert switched["text"] == "Done." and switched["now"] == ["waitlist-enabled = true"]
    assert renamed["now"] == []
    assert [c["id"] for c in shown] == [said["Retries are down to 3."], said["maxReplicas: 8 for the API."],
                                        said["The API listens on 8095 now."]]  # newest first
    assert shown[1]["text"] == "maxReplicas: 8 for the API." and shown[1]["was"] == ["maxReplicas = 6"]
    assert shown[2]["was"] == ["8090"]
    # a setting changed from a word to a name with a digit is a change; its sentence is found by the value alone
    assert renamed["text"] == "The topic is pinecone.reminders.v1 now."
    assert current_values(reader, "app", ALL + ("high",))[2]["was"] == ["1 day"]  # allowed: shown too
    assert current_values(reader, "other", ALL) == [] and current_values(reader, None, ALL) == []


def test_memories_shown_elsewhere_are_skipped_and_at_most_a_few_are_given(conn):
    reader, said = conn
    shown = current_values(reader, "app", ALL, skip_ids={said["Retries are down to 3."]})
    assert said["Retries are down to 3."] not in [c["id"] for c in shown] and len(shown) == 4
    assert CURRENT_MAX >= 3


def test_the_quote_prefers_the_sentence_naming_the_setting_and_a_bare_done_gets_the_sentence_with_the_number(
        isolated_memory):
    """"at 8 pods with poolMaxConns 25 ..." holds the new 8 pods but no setting; the edit's tool summary holds
    maxReplicas: 8, which says what changed. "Set." says nothing: the later sentence holding the new number does."""
    store = ChunkStore(str(isolated_memory))
    pods = store.create_chunk("Done in values.yaml. At 8 pods with poolMaxConns 25 that is 200 connections. "
                              "[tools] Edit: deploy/values.yaml → maxReplicas: 8", created="2026-03-01T09:00:00Z",
                              metadata={"project": "app"}).id
    days = store.create_chunk("Set. Every morning the refresh now requests the last 14 daily partitions. "
                              "[tools] Bash: pytest -q", created="2026-03-02T09:00:00Z",
                              metadata={"project": "app"}).id
    writer, _ = search_index.connect_for_writing(store.root)
    writer.execute("DELETE FROM changes")
    for old, new, at, chunk_id in (("4 pods", "8 pods", "2026-03-01T09:00:00Z", pods),
                                   ("maxReplicas = 4", "maxReplicas = 8", "2026-03-01T09:00:00Z", pods),
                                   ("3 days", "14 days", "2026-03-02T09:00:00Z", days)):
        writer.execute("INSERT INTO changes(project, old, new, at, id) VALUES('app', ?, ?, ?, ?)",
                       (old, new, at, chunk_id))
    writer.close()
    reader = search_index.connect(store.root, readonly=True)
    try:
        lookback, replicas = current_values(reader, "app", ALL)
    finally:
        reader.close()
    assert replicas["text"] == "[tools] Edit: deploy/values.yaml → maxReplicas: 8"
    assert lookback["text"] == "Set. Every morning the refresh now requests the last 14 daily partitions."
    assert lookback["now"] == ["14 days"]
