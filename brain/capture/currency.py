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

from brain.capture.alternatives import job_of, same_job
from brain.capture.tools.edits import DURATION_KINDS as _DURATIONS
from brain.capture.tools.packages import named as _named
from brain.capture.tools.pairs import tool_changes
from brain.index.search_index import connect
from brain.store.lifecycle import supersede
from brain.util.sqlite import sqlite3
from brain.util.text import STOPWORDS, holds_value, sentences, words
from brain.util.timestamps import normalize_timestamp
from brain.util.values import WEAK_SUBJECTS, says_open_work, value_kinds

TOOLS_LINE = "[tools] "  # where a turn's own words end and its tool calls are listed (ingest.py)
CANDIDATE_ROWS = 500  # older memories read per change (the store's own search narrows them first)

_REPLACE = re.compile(r"\breplac(?:e|es|ed|ing)\s+(?P<old>[\w.+#/-]+(?: [\w.+#/-]+)?)\s+(?:with|by)\s+"
                      r"(?P<new>[\w.+#/-]+)", re.IGNORECASE)
_INSTEAD = re.compile(r"\b(?:use|using|pick|choose|chose|go with|switch(?:ed)? to|move(?:d)? to|prefer)\s+"
                      r"(?P<new>[\w.+#/-]+)\s+instead of\s+(?P<old>[\w.+#/-]+)", re.IGNORECASE)
# `code`, 3e-4, 256 MB, Node 18
_VALUE_WORDS = r"`[^`\n]{1,60}`|\d+(?:\.\d+)?[eE][-+]?\d+\b|\d+(?:\.\d+)?\s?[A-Za-z%]{1,12}\b|[\w.:/+#-]+(?: \d+)?"
_FROM_TO = re.compile(r"\b(?P<verb>drop(?:ped|ping)?|switch(?:ed|ing)?|mov(?:e|ed|ing)|migrat(?:e|ed|ing)|"
                      r"chang(?:e|ed|ing)|upgrad(?:e|ed|ing)|bump(?:ed|ing)?|go(?:ing)?|went|rais(?:e|ed|ing)|"
                      r"lower(?:ed|ing)?|"
                      r"increas(?:e|ed|ing)|decreas(?:e|ed|ing)|reduc(?:e|ed|ing)|cut|extend(?:ed|ing)?|"
                      r"shorten(?:ed|ing)?)\s+"
                      rf"(?P<subject>(?:\w+\s+){{0,4}}?)from\s+(?P<old>{_VALUE_WORDS})\s+to\s+(?P<new>{_VALUE_WORDS})",
                      re.IGNORECASE)
# "switch to goose", "moving to arq", "let's go with Postmark": a tool taking over another's job (alternatives.py)
_SWITCH_TO = re.compile(r"\b(?:switch(?:ed|ing)?|mov(?:e|ed|ing)|migrat(?:e|ed|ing)|port(?:ed|ing)?|go(?:ing)?\s+with|"
                        r"went\s+with|replac(?:e|ed|ing)\s+(?:it|them|that)\s+with)\s+(?P<rest>(?:[\w./+#-]+\s*){1,5})",
                        re.IGNORECASE)
_DROP = re.compile(r"\b(?:drop(?:ped|ping)?|ditch(?:ed|ing)?|remov(?:e|ed|ing)|get\s+rid\s+of|stop\s+using|"
                   r"done\s+with)\s+(?P<old>[\w./+#-]+)", re.IGNORECASE)
# "Cut the hold to 10 minutes", "raise the pool to 25 connections": a subject given a new value of a kind
_SUBJECT_TO = re.compile(r"\b(?:cut|shorten|extend|lengthen|raise|lower|reduce|increase|decrease|bump|set|change|"
                         r"move|drop|cap|limit)\s+(?:the\s+|our\s+|its\s+|their\s+)?(?P<subject>[a-z][\w-]{2,20})"
                         r"(?:\s+[a-z][\w-]{2,20})?\s+(?:down\s+|up\s+|back\s+)?to\s+(?P<new>\d[^,;!?]{0,30})",
                         re.IGNORECASE)
# "5 attempts instead of 3", "max_connections = 20, up from 10": a new value and the old one after it
_NEW_BEFORE_OLD = re.compile(r"(?<![\d.])(?P<new>\d+(?:\.\d+)?(?:\s?[A-Za-z%]+)?)\s*,?\s+"
                             r"(?:instead of|up from|down from|rather than)\s+(?P<old>\d+(?:\.\d+)?(?:\s?[A-Za-z%]+)?)",
                             re.IGNORECASE)
_NOT = re.compile(r"(?<!\S)(?P<new>\S+)\s*,?\s+not\s+(?:the\s+)?(?P<old>\S+?)[.,;)]*(?:\s|$)", re.IGNORECASE)
# "valid 15 minutes, not an hour": an amount and the one it replaces ("an hour" is 1 hour)
_AMOUNT = r"\d+(?:\.\d+)?\s?[A-Za-z%]+|an?\s+(?:second|minute|hour|day|week|month|year)"
_NOT_AMOUNT = re.compile(rf"(?<![\d.])(?P<new>{_AMOUNT})\s*,?\s+not\s+(?P<old>{_AMOUNT})\b", re.IGNORECASE)
# "Upgraded to fastify 5.1.0", "moved us to Node 22": the old value is what older memories said of the subject
_UPGRADED_TO = re.compile(r"\b(?:upgrad|updat|bump|mov|migrat)(?:e|ed|es|ing)?\s+(?:\w+\s+)?to\s+"
                          r"(?P<new>[A-Za-z][\w+#-]{1,20}(?:\s+v?|[@:]v?)\d+(?:\.\d+){0,2})\b", re.IGNORECASE)
_SET_TO = re.compile(r"\b(?:bump|upgrade|update|set|change|move|switch|raise|lower)\s+(?:the\s+)?"
                     r"(?P<subject>[A-Za-z][\w+#.-]{1,20})\s+to\s+(?P<new>v?\d[\w.:]*(?:\s\w+)?)", re.IGNORECASE)
_MAKE_IT = re.compile(r"^(?:ok(?:ay)?,?\s+|actually,?\s+|please\s+|then\s+)*(?:make|set|change|move|bump|raise|"
                      r"lower|reduce|increase)\s+(?:it|that|this|them|\w+(?:\s\w+)?)\s+(?:to\s+)?(?P<new>.+?)[.!]*$",
                      re.IGNORECASE)

# old, new: the values as written (old None: "any other value of that subject", found in older memories);
# when: the ISO time of the change; turn: the transcript turn that made it
# subject: for a change whose old value was not said, the word older memories state it beside ("hold")
Change = namedtuple("Change", "old new when turn subject", defaults=(None,))


def _stated_changes(text: str, previous: str, message: str = "") -> list:
    """Value pairs a sentence states: replace X with Y, Y instead of X, from X to Y, Y not X, make it Y, switch to
    Y or drop X (with the other tool for the job named in the same `message`), cut the hold to Y (with the value
    of the same kind the message also states: "15 minutes is too long ... cut the hold to 10 minutes")."""
    pairs = []
    for pattern in (_REPLACE, _INSTEAD, _FROM_TO):
        for m in pattern.finditer(text):
            if pattern is _FROM_TO and _not_carried_out(text, m.start()):
                continue  # "Should we switch from Celery to arq?", "I'd rather not bump the limit from 1000 to 5000"
            old, new = m.group("old").strip(".,;:`"), m.group("new").strip(".,;:`")
            if pattern is _FROM_TO and m.group("verb").lower().startswith("drop") \
                    and not _dropped_a_value(text, m.start(), m.group("subject"), old, new):
                continue
            if _named(old) and _named(new) and old.lower() != new.lower():
                if pattern is not _FROM_TO or len(m.group("subject").split()) <= 3:
                    pairs.append((old, new))
            elif pattern is _FROM_TO and not m.group("verb").lower().startswith(("go", "went")):
                # "moved the API from 8087 to 8090", "the timeout from 30 to 45 seconds" ("went from 1500 to 1620
                # passing", "can go from 2 to 10 replicas": a measure or a range, not a setting changed)
                pairs += _bare_numbers(old, new, m.group("subject").split())
    for m in _SWITCH_TO.finditer(text):  # "golang-migrate left the database dirty ... let's switch to goose"
        if "from" in m.group("rest").lower().split():  # "switched the worker from Celery to arq": _FROM_TO's
            continue
        new = next((w.strip(".,;:`'\"") for w in m.group("rest").split() if job_of(w)), None)
        if new:
            pairs += [(old, new) for old in same_job(new, message)]
    for m in _DROP.finditer(text):  # "let's drop zap. log/slog is in the standard library"
        old = m.group("old").strip(".,;:`'\"")
        pairs += [(old, new) for new in same_job(old, message)]
    for m in _NEW_BEFORE_OLD.finditer(text):
        pairs += _number_pair(m.group("old"), m.group("new"), text[:m.start("new")])
    for m in _NOT.finditer(text):
        pairs += _first_values(m.group("old").strip(".,;:`"), m.group("new").strip(".,;:`"), str.__eq__)
    for m in _NOT_AMOUNT.finditer(text):
        old, new = (re.sub(r"^an?\s+", "1 ", m.group(g), flags=re.IGNORECASE) for g in ("old", "new"))
        pairs += _first_values(old, new, _same_kind)
    for m in _UPGRADED_TO.finditer(text):
        wanted = value_kinds(m.group("new"))
        if wanted and wanted[0][0].startswith("subject:") and wanted[0][0][8:] not in WEAK_SUBJECTS:
            pairs.append((None, wanted[0][1]))
    for m in _SET_TO.finditer(text):  # "bump Node to 20": the old value is whatever older memories said
        subject = m.group("subject")
        wanted = value_kinds(f"{subject} {m.group('new')}")
        if subject.lower() not in WEAK_SUBJECTS and wanted and wanted[0][0] == "subject:" + subject.lower():
            pairs.append((None, wanted[0][1]))
        version = _DOTTED.fullmatch(m.group("new").strip().rstrip("."))
        if version and subject.lower() not in WEAK_SUBJECTS:  # "move the toolchain to 1.82": 1.79 beside it before
            pairs.append((None, version.group(0), subject.lower()))
    for m in _SUBJECT_TO.finditer(text):
        for kind, value in value_kinds(m.group("new")):
            if kind.startswith("unit:") or kind in ("time", "cron"):
                olds = [v for k, v in value_kinds(message) if k == kind and v.lower() != value.lower()]
                pairs += [(olds[0], value)] if len(olds) == 1 else [(None, value, m.group("subject"))]
            break
    if previous:
        for wanted in _made_values(text):
            pairs += _answered_change(wanted, previous)
    return pairs


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _made_values(line: str) -> list:
    """What the line's "make it ..." sentences ask for ("They need old builds for hotfixes. Make it 45 days.")."""
    made = []
    for sentence in _SENTENCE_END.split(line.strip()):
        m = _MAKE_IT.match(sentence) if len(sentence) < 120 else None
        if m:
            made.append(m.group("new"))
    return made


def _first_values(old: str, new: str, same_kind) -> list:
    """[(old value, new value)]: the first value each of two different texts states, when `same_kind` holds of
    their kinds ("it's 8090, not 8087"); else []."""
    kinds_old, kinds_new = value_kinds(old), value_kinds(new)
    if kinds_old and kinds_new and same_kind(kinds_old[0][0], kinds_new[0][0]) and old != new:
        return [(kinds_old[0][1], kinds_new[0][1])]
    return []


_SPECIFIC_NUMBER = 4  # digits a bare number needs to stand for one thing (a port: 8087) wherever it is written
# words before "from" that name nothing an older memory states a value beside ("bumped them from 3 to 4")
_NO_SUBJECT = frozenset("it them this that these those everything something anything both all one ones things stuff "
                        "around back up down over out us me you".split())


def _bare_numbers(old: str, new: str, subject_words: list) -> list:
    """[(old, new)] for a change "from OLD to NEW" where OLD is a bare number: the old number given the new one's
    unit ("30" -> "45 seconds") or the thing it counts ("from 2 to 4 processes"); else, after a word naming what
    changed, both numbers when specific enough to find again ("the API from 8087 to 8090"), or both with that
    word ("Node from 18 to 20": "Node 18" -> "Node 20"; "the copyright year from 2023": "Year 2023"). [] for
    "from 10 to 20" alone: it names nothing an older memory could be found stating."""
    kinds = value_kinds(new)
    if kinds and kinds[0][0].startswith("unit:") and old.isdigit():
        unit = kinds[0][1].split(" ", 1)[-1]
        unit = unit[:-1] if old == "1" and unit.endswith("s") else unit  # "from 1 to 2 seconds": 1 second
        return _first_values(f"{old} {unit}", kinds[0][1], _same_kind)
    number, _, rest = new.partition(" ")  # "to 20 on the runners": the pattern took a word after the number
    if not (old.isdigit() and number.isdigit()) or old == number:
        return []
    counted = rest.split()[0].strip(".,;:!?)") if rest else ""  # a plural noun: "to 4 processes", not "to 4 fixed"
    if counted.isalpha() and len(counted) >= 4 and counted.endswith("s") and not counted.endswith("ss") \
            and counted.lower() not in STOPWORDS:
        return [(f"{old} {counted}", f"{number} {counted}")]
    subject = subject_words[-1].lower() if subject_words else ""
    if not subject or subject in WEAK_SUBJECTS or subject in _NO_SUBJECT:
        return []
    if min(len(old), len(number)) >= _SPECIFIC_NUMBER and not (_year(old) or _year(number)):
        return [(old, number)]
    return _first_values(f"{subject} {old}", f"{subject} {number}", str.__eq__)


def _year(number: str) -> bool:
    return len(number) == 4 and number[:2] in ("19", "20")


_SENTENCE_MARKS = (". ", "! ", "? ")


def _sentence_start(text: str, at: int, clause_marks=()) -> int:
    """Where the sentence holding position `at` starts (or its clause, after one of `clause_marks`)."""
    return max(text.rfind(mark, 0, at) for mark in (*_SENTENCE_MARKS, "\n", *clause_marks)) + 1


_DOERS = ("i", "we", "let's", "lets", "please", "to", "i'll", "we'll", "i'd", "we'd", "then", "and", "also", "just")


def _dropped_a_value(text: str, at: int, subject: str, old: str, new: str) -> bool:
    """Whether "drop ... from OLD to NEW" (verb at `at`) is someone lowering a value: the verb opens its sentence or
    follows "I", "we", "let's"..., it has an object, and both sides hold a digit. "Drop the index from users to
    speed up the import" removes something; "accuracy dropped sharply from 0.91 to 0.84" is a measure."""
    if not subject.strip() or not (any(c.isdigit() for c in old) and any(c.isdigit() for c in new)):
        return False
    before = text[_sentence_start(text, at, (": ", "; ")):at].lower().replace("’", "'").split()
    return not before or before[-1] in _DOERS


_REQUEST_STARTS = ("can you", "could you", "would you", "will you", "can we", "could we", "please")
_NEGATIONS = frozenset("not never don't dont won't shouldn't wouldn't can't cannot avoid".split())


def _not_carried_out(text: str, at: int) -> bool:
    """Whether the change whose verb starts at `at` is only asked about or ruled out: its sentence a question that
    is no request ("Should we switch from X to Y?", not "Can you move ... ?"), or a negation before the verb in it
    ("I'd rather not bump the limit from 1000 to 5000")."""
    start = _sentence_start(text, at)
    ends = [i for i in (text.find(mark, at) for mark in _SENTENCE_MARKS) if i >= 0]
    end = min(ends) + 1 if ends else len(text.rstrip())
    sentence = text[start:end].strip()
    if sentence.endswith("?") and not sentence.lower().startswith(_REQUEST_STARTS):
        return True
    return not _NEGATIONS.isdisjoint(text[start:at].lower().replace("n’t", "n't").split())


def _same_kind(a: str, b: str) -> bool:
    """Two value kinds that can replace each other: equal, or two durations ("15 minutes" for "1 hour")."""
    return a == b or (a in _DURATIONS and b in _DURATIONS)


def _number_pair(old: str, new: str, before: str) -> list:
    """("3", "5 attempts") -> [("3 attempts", "5 attempts")]: the old number takes the new one's unit; a bare new
    number takes the setting written just before it ("max_connections = 20, up from 10")."""
    old_number, _, old_unit = old.partition(" ") if " " in old else (old.rstrip("%abcdefghijklmnopqrstuvwxyz"
                                                                                    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"), "", "")
    kinds = value_kinds(new)
    if kinds and kinds[0][0].startswith("unit:"):
        unit = kinds[0][1].split(" ", 1)[-1]
        old_value = old if value_kinds(old) else f"{old_number} {unit}"
        return [(old_value, kinds[0][1])] if value_kinds(old_value) else []
    setting = re.search(r"([a-z_][a-z0-9_]{2,40})\s*[=:(]\s*$", before.rstrip().removesuffix(new).rstrip(),
                        re.IGNORECASE) if new.replace(".", "").isdigit() else None
    if setting and old_number.replace(".", "").isdigit():
        return [(f"{setting.group(1)} = {old_number}", f"{setting.group(1)} = {new}")]
    return []


def _answered_change(wanted: str, previous: str) -> list:
    """"Make it 7 days" after a turn that said "14 days": the value of the same kind the previous turn stated."""
    pairs = []
    for kind, new in value_kinds(wanted):
        olds = [v for k, v in value_kinds(previous) if k == kind and v != new]
        if olds:
            pairs.append((olds[-1], new))
    return pairs


def _asked_values(line: str) -> list:
    """Values with a unit a person asks for ("Make it 45 days.")."""
    return [value for wanted in _made_values(line) for kind, value in value_kinds(wanted) if kind.startswith("unit:")]


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


_OPEN_LABELS = ("still open", "todo", "to-do", "to do", "next step", "next time", "follow-up", "follow up", "followup",
                "pending", "left to do", "still to do", "open:")


def _without_open_work(line: str) -> str:
    """`line` without what it lists as work left open: from a clause starting with such a label ("Still open:",
    "TODO", "next steps:") to the end of its sentence. "Still open: upgrade from Postgres 15 to Postgres 16"
    plans a change, it does not make one; "Replaced Celery with arq for the follow-up emails" makes one."""
    if not says_open_work(line):
        return line
    kept = []
    for sentence in sentences(line):
        clauses = sentence.split("; ")
        for i, clause in enumerate(clauses):
            if clause.lstrip("-*• ").lower().startswith(_OPEN_LABELS):
                clauses = clauses[:i]
                break
        kept.append("; ".join(clauses))
    return " ".join(part for part in kept if part)


def same_subject_values(text: str, new: str) -> list:
    """Values in `text` of the same subject as `new` but different ("Node 18" for "Node 20")."""
    kind = next((k for k, v in value_kinds(new)), None)
    return [v for k, v in value_kinds(text) if k == kind and not holds_value(v, new)] if kind else []


_DOTTED = re.compile(r"(?<![\w.])\d+\.\d+(?:\.\d+)?(?![\w.]*\d)")  # a bare version: 1.82, 0.8.1
BESIDE_WORDS = 5  # how close to its subject an older value must be written ("hold the berth for 15 minutes")


def _values_beside(text: str, subject: str, new: str) -> list:
    """Values of `new`'s kind (or dotted versions, for a version) written within a few words after `subject` (or
    its plural) in `text`."""
    kind = next((k for k, v in value_kinds(new)), None)
    subject = subject.lower()
    found = []
    for match in re.finditer(rf"\b{re.escape(subject)}s?\b", text, re.IGNORECASE):
        window = " ".join(text[match.end():].split()[:BESIDE_WORDS + 2])
        if kind is None and _DOTTED.fullmatch(new):
            values = [v.group(0) for v in _DOTTED.finditer(window)]
        else:
            values = [v for k, v in value_kinds(window) if k == kind]
        found += [v for v in values if not holds_value(v, new) and v not in found]
    return found


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
