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

from brain.capture.transcript import EDIT_TOOLS
from brain.index.search_index import connect
from brain.store.lifecycle import supersede
from brain.util.sqlite import sqlite3
from brain.util.text import holds_value, words
from brain.util.timestamps import normalize_timestamp
from brain.util.values import ASSIGNED_NUMBER, WEAK_SUBJECTS, value_kinds

TOOLS_LINE = "[tools] "  # where a turn's own words end and its tool calls are listed (ingest.py)
CANDIDATE_ROWS = 500  # older memories read per change (the store's own search narrows them first)

_REPLACE = re.compile(r"\breplac(?:e|es|ed|ing)\s+(?P<old>[\w.+#/-]+(?: [\w.+#/-]+)?)\s+(?:with|by)\s+"
                      r"(?P<new>[\w.+#/-]+)", re.IGNORECASE)
_INSTEAD = re.compile(r"\b(?:use|using|pick|choose|chose|go with|switch(?:ed)? to|move(?:d)? to|prefer)\s+"
                      r"(?P<new>[\w.+#/-]+)\s+instead of\s+(?P<old>[\w.+#/-]+)", re.IGNORECASE)
_FROM_TO = re.compile(r"\b(?:switch(?:ed|ing)?|mov(?:e|ed|ing)|migrat(?:e|ed|ing)|chang(?:e|ed|ing)|upgrad(?:e|ed|ing)|"
                      r"bump(?:ed|ing)?|go(?:ing)?|went)\s+(?:\w+\s+){0,3}?from\s+(?P<old>[\w.:/+#-]+(?: \d+)?)\s+"
                      r"to\s+(?P<new>[\w.:/+#-]+(?: \d+)?)", re.IGNORECASE)
_NOT = re.compile(r"(?P<new>\S+)\s*,?\s+not\s+(?:the\s+)?(?P<old>\S+?)[.,;)]*(?:\s|$)", re.IGNORECASE)
_SET_TO = re.compile(r"\b(?:bump|upgrade|update|set|change|move|switch|raise|lower)\s+(?:the\s+)?"
                     r"(?P<subject>[A-Za-z][\w+#.-]{1,20})\s+to\s+(?P<new>v?\d[\w.:]*(?:\s\w+)?)", re.IGNORECASE)
_MAKE_IT = re.compile(r"^(?:ok(?:ay)?,?\s+|actually,?\s+|please\s+|then\s+)*(?:make|set|change|move|bump|raise|"
                      r"lower|reduce|increase)\s+(?:it|that|this|them|\w+(?:\s\w+)?)\s+(?:to\s+)?(?P<new>.+?)[.!]*$",
                      re.IGNORECASE)

# old, new: the values as written (old None: "any other value of that subject", found in older memories);
# when: the ISO time of the change; turn: the transcript turn that made it
Change = namedtuple("Change", "old new when turn")

def _edit_changes(old: str, new: str) -> list:
    """Value pairs an edit replaced: one removed and one added value of the same kind."""
    pairs = []
    before, after = _values_with_units(old), _values_with_units(new)
    for kind in {k for k, _ in before} & {k for k, _ in after}:
        removed = [v for k, v in before if k == kind and (k, v) not in after]
        added = [v for k, v in after if k == kind and (k, v) not in before]
        if len(removed) == 1 and len(added) == 1:
            pairs.append((removed[0], added[0]))
    return pairs


def _values_with_units(text: str) -> list:
    """value_kinds plus numbers assigned to a name that says their unit (`days=14`, `SESSION_TTL_HOURS = 24`)."""
    out = [(k, v) for k, v in value_kinds(text)]
    for m in ASSIGNED_NUMBER.finditer(text):
        unit = next((u for u in ("days", "hours", "minutes", "seconds", "weeks", "months") if
                     u[:-1] in m.group(1).lower()), None)
        if unit:
            out.append((f"unit:{unit[:-1]}", f"{m.group(2)} {unit}"))
    return list(dict.fromkeys(out))


def _named(value: str) -> bool:
    """A name that can stand for a tool or a thing (not a common word): what a replace sentence may change."""
    value = value.strip(".,;:()`'\"")
    return 3 <= len(value) <= 40 and value.lower() not in WEAK_SUBJECTS and not value.isdigit()


def _stated_changes(text: str, previous: str) -> list:
    """Value pairs a sentence states: replace X with Y, Y instead of X, from X to Y, Y not X, make it Y."""
    pairs = []
    for pattern in (_REPLACE, _INSTEAD, _FROM_TO):
        for m in pattern.finditer(text):
            old, new = m.group("old").strip(".,;:`"), m.group("new").strip(".,;:`")
            if _named(old) and _named(new) and old.lower() != new.lower():
                pairs.append((old, new))
    for m in _NOT.finditer(text):
        old, new = m.group("old").strip(".,;:`"), m.group("new").strip(".,;:`")
        kinds_old, kinds_new = value_kinds(old), value_kinds(new)
        if kinds_old and kinds_new and kinds_old[0][0] == kinds_new[0][0] and old != new:
            pairs.append((kinds_old[0][1], kinds_new[0][1]))
    for m in _SET_TO.finditer(text):  # "bump Node to 20": the old value is whatever older memories said
        subject = m.group("subject")
        wanted = value_kinds(f"{subject} {m.group('new')}")
        if subject.lower() not in WEAK_SUBJECTS and wanted and wanted[0][0] == "subject:" + subject.lower():
            pairs.append((None, wanted[0][1]))
    stripped = text.strip()
    m = _MAKE_IT.match(stripped) if len(stripped) < 120 else None
    if m and previous:
        pairs += _answered_change(m.group("new"), previous)
    return pairs


def _answered_change(wanted: str, previous: str) -> list:
    """"Make it 7 days" after a turn that said "14 days": the value of the same kind the previous turn stated."""
    pairs = []
    for kind, new in value_kinds(wanted):
        olds = [v for k, v in value_kinds(previous) if k == kind and v != new]
        if olds:
            pairs.append((olds[-1], new))
    return pairs


def session_changes(turns) -> list:
    """Every value change a session made, in order: Change(old, new, when, turn)."""
    changes, previous = [], ""
    for turn in turns:
        if turn.is_sidechain or turn.is_compact_summary:
            continue
        for use in turn.tool_uses:
            if use.name in EDIT_TOOLS and use.ok is not False and use.edit:
                changes += [Change(o, n, turn.timestamp, turn) for o, n in _edit_changes(*use.edit)]
        if turn.text:
            for line in turn.text.splitlines():
                changes += [Change(o, n, turn.timestamp, turn) for o, n in
                            _stated_changes(line, previous if turn.role == "user" else "")]
            if turn.role == "assistant":
                previous = turn.text
    return list({((c.old or "").lower(), c.new.lower()): c for c in changes}.values())


def same_subject_values(text: str, new: str) -> list:
    """Values in `text` of the same subject as `new` but different ("Node 18" for "Node 20")."""
    kind = next((k for k, v in value_kinds(new)), None)
    return [v for k, v in value_kinds(text) if k == kind and not holds_value(v, new)] if kind else []


def resolve_open_changes(root, project_id: str, changes) -> list:
    """Changes whose old value was not said ("bump Node to 20") get the values older memories of the project
    state for the same subject ("Node 18"), one change each; changes with no such memory are dropped."""
    out = []
    for change in changes:
        if change.old is not None:
            out.append(change)
            continue
        olds = []
        for _, content in _older_rows(root, project_id, change.new.split()[0], normalize_timestamp(change.when)):
            olds += [v for v in same_subject_values(content.split(TOOLS_LINE, 1)[0], change.new) if v not in olds]
        out += [change._replace(old=old) for old in olds]
    return out


def _older_rows(root, project_id: str, probe: str, when: str, *, typed_only: bool = False) -> list:
    """(id, content) of the project's active, unpinned chunks made before `when` whose words hold `probe`."""
    tokens = words(probe.lower())
    conn = connect(root, readonly=True) if tokens else None
    if conn is None:
        return []
    kinds = "AND chunks.kind NOT IN ('turn', 'session') " if typed_only else ""
    try:
        return conn.execute(
            "SELECT chunks.id, chunks.content FROM fts JOIN chunks ON chunks.rowid = fts.rowid WHERE fts MATCH ? "
            "AND chunks.project IS ? AND chunks.status = 'active' AND chunks.pinned = 0 AND chunks.created < ? "
            + kinds + "LIMIT ?", ('"' + " ".join(tokens) + '"', project_id, when, CANDIDATE_ROWS)).fetchall()
    except sqlite3.Error:
        return []
    finally:
        conn.close()


def supersede_stale(store, project_id: str, changes, chunk_of_turn) -> list:
    """Supersede the project's older typed memories (decisions, facts, ...) that still state a changed value (and
    not its new one) by the turn that changed it (`chunk_of_turn(turn)`: its chunk id). Returns (old id, new id,
    old value, new value) tuples."""
    done = []
    for change in changes:
        new_id = chunk_of_turn(change.turn)
        if not new_id or not change.when:
            continue
        when = normalize_timestamp(change.when)
        if change.old is None:
            continue  # resolve_open_changes found no older value to replace
        for old_id in _stale_rows(store.root, project_id, change, when, new_id):
            note = f"replaced {when[:10]}: {change.old} -> {change.new}"
            supersede(store, old_id, new_id, reason=f"{change.old} changed to {change.new}", note=note, when=when)
            done.append((old_id, new_id, change.old, change.new))
    return done


def _stale_rows(root, project_id: str, change, when: str, new_id: str) -> list:
    """Ids of the project's active, unpinned typed memories (not verbatim turns or session records: those are the
    record of what was said, and recall marks the replaced values in them) made before `when` that state the
    change's old value and not its new one."""
    stale = []
    for chunk_id, content in _older_rows(root, project_id, change.old, when, typed_only=True):
        content = content.split(TOOLS_LINE, 1)[0]  # a command run then is history, not a statement of the value
        if chunk_id != new_id and holds_value(content, change.old) and not holds_value(content, change.new):
            stale.append(chunk_id)
    return stale
