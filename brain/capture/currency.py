"""What is current: the values a session changed, and the older memories that still state the old value.

A session changes a value when it edits one into another (an Edit tool call whose old text holds 8087 and new
text 8090, `days=14` into `days=7`), or says so: "replace Celery with arq", "use vitest instead of jest", "switch
from X to Y", a correction "it's X, not Y", or a request "Make it 7 days" / "move it to 04:30 UTC" that answers a
turn stating a value of the same kind. Each change is a pair (old value, new value) with the time it was made,
kept on the chunk of the turn that made it (metadata.extra.changes). The project's older typed memories that hold
the old value (and not the new one) are superseded by that turn: they stay readable and the session-start brief no
longer offers them as current. Verbatim turns are the record of what was said and stay as they are; recall marks
the replaced value in them (brain/recall/recall.py, from search.db's changes table).

Only values specific enough to be found again are followed: numbers of three digits or more, numbers with a unit
or a subject ("14 days", "Node 18", "port 8090"), URLs, host names, paths, times of day, and names only when a
sentence says one replaced another.
"""
import re
from collections import namedtuple

from brain.capture.rules.said_changes import DOTTED_VERSION
from brain.capture.rules.said_changes import asked_values as _asked_values
from brain.capture.rules.said_changes import stated_changes as _stated_changes
from brain.capture.rules.said_changes import without_open_work as _without_open_work
from brain.capture.tools.pairs import tool_changes
from brain.capture.transcript import exchanges
from brain.cpython.fast import sqlite3
from brain.index.search_index import connect
from brain.store.lifecycle import supersede
from brain.util.text import TOOLS_LINE, holds_value, words
from brain.util.timestamps import normalize_timestamp
from brain.util.values import value_kinds

CANDIDATE_ROWS = 500  # older memories read per change (the store's own search narrows them first)

# old, new: the values as written (old None: "any other value of that subject", found in older memories);
# when: the ISO time of the change; turn: the transcript turn that made it
# subject: for a change whose old value was not said, the word older memories state it beside ("hold")
Change = namedtuple("Change", "old new when turn subject", defaults=(None,))


def session_changes(turns) -> list:
    """Every value change a session made, in order: Change(old, new, when, turn)."""
    changes, previous, asked = [], "", []
    for turn in turns:
        if turn.is_sidechain or turn.is_compact_summary:
            continue
        changes += [Change(o, n, turn.timestamp, turn) for o, n in tool_changes(turn, asked)]
        if turn.text:
            if turn.role == "user":
                asked = []
            for line in turn.text.splitlines():
                line = _without_open_work(line)
                pairs = _stated_changes(line, previous if turn.role == "user" else "", turn.text)
                changes += [Change(pair[0], pair[1], turn.timestamp, turn, *pair[2:]) for pair in pairs]
                if turn.role == "user" and not pairs:
                    asked += _asked_values(line)  # no earlier value of its kind: the edit that follows may say
            if turn.role == "assistant":
                previous = turn.text
    return list({((c.old or "").lower(), c.new.lower(), c.subject): c for c in changes}.values())


def same_subject_values(text: str, new: str) -> list:
    """Values in `text` of the same subject as `new` but different ("Node 18" for "Node 20")."""
    kind = next((k for k, v in value_kinds(new)), None)
    return [v for k, v in value_kinds(text) if k == kind and not holds_value(v, new)] if kind else []


BESIDE_WORDS = 5  # how close to its subject an older value must be written ("hold the berth for 15 minutes")


def _values_beside(text: str, subject: str, new: str) -> list:
    """The value of `new`'s kind (or the dotted version, for a version) written first within a few words after
    `subject` (or its plural) in `text`: the one beside it ("Airflow 2.8.1 with dbt 1.7.4": 2.8.1, not dbt's)."""
    kind = next((k for k, v in value_kinds(new)), None)
    subject = subject.lower()
    found = []
    for match in re.finditer(rf"\b{re.escape(subject)}s?\b", text, re.IGNORECASE):
        window = " ".join(text[match.end():].split()[:BESIDE_WORDS + 2])
        if kind is None and DOTTED_VERSION.fullmatch(new):
            values = [v.group(0) for v in DOTTED_VERSION.finditer(window)]
        else:
            values = [v for k, v in value_kinds(window) if k == kind]
        found += [v for v in values[:1] if not holds_value(v, new) and v not in found]
    return found


def left_to_tools(resolved, said, setting_changes, turns) -> list:
    """`resolved` (resolve_open_changes of `said`) without the changes said with no old value ("bump prod workers
    to 6 replicas") whose old value was resolved from older memories but disagrees with the old value a tool change
    of the same exchange knows for that new value (`worker.replicaCount` 4 -> 6): the guess (the api's "5
    replicas") would mark true memories replaced."""
    exchange_of = exchanges(turns)
    known = {}  # exchange -> [(old, new)] its tool changes made
    for change in setting_changes:
        if change.old is not None:
            known.setdefault(exchange_of.get(change.turn.uuid), []).append((change.old, change.new))
    known.pop(None, None)  # a turn of no exchange (no uuid, or before the person's first message)
    opened = {(id(c.turn), c.new, c.subject) for c in said if c.old is None}

    def guessed_wrong(change) -> bool:
        made = known.get(exchange_of.get(change.turn.uuid), ())
        same_new = [old for old, new in made if holds_value(change.new, new)]
        return bool(same_new) and not any(_agrees(change.old, old) for old in same_new)

    return [c for c in resolved if (id(c.turn), c.new, c.subject) not in opened or not guessed_wrong(c)]


def _agrees(guess: str, known: str) -> bool:
    """Whether a value resolved from older memories ("Go 1.22", "15 min") says the one a tool change knows (`1.22.1`,
    `15`), at its precision or a coarser one."""
    if holds_value(guess, known):
        return True
    return any(known.startswith(number + ".") for number in re.findall(r"(?<![\w.])\d+(?:\.\d+)*", guess))


def resolve_open_changes(root, project_id: str, changes) -> list:
    """Changes whose old value was not said ("bump Node to 20") get the values older memories of the project
    state for the same subject ("Node 18"), one change each; changes with no such memory are dropped."""
    out = []
    for change in changes:
        if change.old is not None:
            out.append(change)
            continue
        olds = []
        probe = change.subject or change.new.split()[0]
        for _, content in _older_rows(root, project_id, probe, normalize_timestamp(change.when)):
            said = content.split(TOOLS_LINE, 1)[0]
            found = _values_beside(said, change.subject, change.new) if change.subject else \
                same_subject_values(said, change.new)
            olds += [v for v in found if v not in olds]
        out += [change._replace(old=old) for old in olds]
    return out


def _older_rows(root, project_id: str, probe: str, when: str, *, typed_only: bool = False, spare=(),
                conn=None) -> list:
    """(id, content) of the project's active, unpinned chunks made before `when` whose words hold `probe` (with
    `typed_only`, no turns, session records, or chunks of the kinds in `spare`). `conn`: a connection to use (and
    leave open) instead of opening one."""
    tokens = words(probe.lower())
    own = connect(root, readonly=True) if tokens and conn is None else None
    conn = conn if conn is not None else own
    if conn is None or not tokens:
        return []
    spare = ("turn", "session", *spare) if typed_only else ()
    kinds = f"AND chunks.kind NOT IN ({','.join('?' * len(spare))}) " if spare else ""
    try:
        return conn.execute(
            "SELECT chunks.id, chunks.content FROM fts JOIN chunks ON chunks.rowid = fts.rowid WHERE fts MATCH ? "
            "AND chunks.project IS ? AND chunks.status = 'active' AND chunks.pinned = 0 AND chunks.created < ? "
            + kinds + "LIMIT ?", ('"' + " ".join(tokens) + '"', project_id, when, *spare, CANDIDATE_ROWS)).fetchall()
    except sqlite3.Error:
        return []
    finally:
        if own is not None:
            own.close()


def supersede_stale(store, project_id: str, changes, chunk_of, *, spare=()) -> list:
    """Supersede the project's older typed memories (decisions, facts, ...) that still state a changed value (and
    not its new one) by what made the change (`chunk_of(change)`: the chunk id of its turn, or of the memory
    recording it); memories of the kinds in `spare` are left to the caller. Returns (old id, new id, old value,
    new value) tuples."""
    done = []
    conn = connect(store.root, readonly=True) if changes else None  # one for all: a connection costs ~2 ms
    try:
        for change in changes:
            new_id = chunk_of(change)
            if not new_id or not change.when:
                continue
            when = normalize_timestamp(change.when)
            if change.old is None:
                continue  # resolve_open_changes found no older value to replace
            for old_id in _stale_rows(store.root, project_id, change, when, new_id, spare, conn):
                note = f"replaced {when[:10]}: {change.old} -> {change.new}"
                supersede(store, old_id, new_id, reason=f"{change.old} changed to {change.new}", note=note, when=when)
                done.append((old_id, new_id, change.old, change.new))
    finally:
        if conn is not None:
            conn.close()
    return done


def _stale_rows(root, project_id: str, change, when: str, new_id: str, spare=(), conn=None) -> list:
    """Ids of the project's active, unpinned typed memories (not verbatim turns or session records: those are the
    record of what was said, and recall marks the replaced values in them) made before `when` that state the
    change's old value and not its new one."""
    stale = []
    for chunk_id, content in _older_rows(root, project_id, change.old, when, typed_only=True, spare=spare, conn=conn):
        content = content.split(TOOLS_LINE, 1)[0]  # a command run then is history, not a statement of the value
        if chunk_id != new_id and holds_value(content, change.old) and not holds_value(content, change.new):
            stale.append(chunk_id)
    return stale
