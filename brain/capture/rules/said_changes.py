"""Value changes said in words: "replace Celery with arq", "from 8087 to 8090", "15 minutes, not an hour", "cut the
hold to 10 minutes", "make it 45 days".

Each rule reads one line of a turn (`text`), with the assistant turn before it (`previous`: what "make it 7 days"
answers) and the whole turn (`message`: where "switch to goose" finds the tool it replaces), and returns pairs
(old value, new value); (None, new value[, subject]) when the old value was not said, for capture/currency.py to
find in older memories. `stated_changes` runs them all. Only values specific enough to be found again count:
numbers with a unit or a subject, versions, times, names said to replace one another.
"""
from __future__ import annotations

import re

from brain.capture.alternatives import job_of, same_job
from brain.capture.rules import Case, Family, rule
from brain.util.text import STOPWORDS, sentences
from brain.util.values import DURATION_KINDS, WEAK_SUBJECTS, named, says_open_work, value_kinds


def _on_line(find, case: Case):
    return find(case.text, case.before, case.text)


CHANGE = Family("change", _on_line)

DOTTED_VERSION = re.compile(r"(?<![\w.])\d+\.\d+(?:\.\d+)?(?![\w.]*\d)")  # a bare version: 1.82, 0.8.1



def _names(old: str, new: str) -> list:
    old, new = old.strip(".,;:`"), new.strip(".,;:`")
    return [(old, new)] if named(old) and named(new) and old.lower() != new.lower() else []


def same_kind(a: str, b: str) -> bool:
    """Two value kinds that can replace each other: equal, or two durations ("15 minutes" for "1 hour")."""
    return a == b or (a in DURATION_KINDS and b in DURATION_KINDS)


def first_values(old: str, new: str, kinds_match) -> list:
    """[(old value, new value)]: the first value each of two different texts states, when `kinds_match` holds of
    their kinds ("it's 8090, not 8087"); else []."""
    kinds_old, kinds_new = value_kinds(old), value_kinds(new)
    if kinds_old and kinds_new and kinds_match(kinds_old[0][0], kinds_new[0][0]) and old != new:
        return [(kinds_old[0][1], kinds_new[0][1])]
    return []


# --- one thing for another -------------------------------------------------------------------------------------

_REPLACE = re.compile(r"\breplac(?:e|es|ed|ing)\s+(?P<old>[\w.+#/-]+(?: [\w.+#/-]+)?)\s+(?:with|by)\s+"
                      r"(?P<new>[\w.+#/-]+)", re.IGNORECASE)


@rule(CHANGE, catches=[Case("Replace Celery with arq.", gives=("Celery", "arq")),
                       Case("Replaced Celery with arq for the follow-up emails.", gives=("Celery", "arq"))],
      leaves=["Replace it with the new one.", "Replaced 3 with 4."])
def replace_with(text: str, previous: str, message: str) -> list:
    """"replace X with Y": (X, Y), both names."""
    return [pair for m in _REPLACE.finditer(text) for pair in _names(m.group("old"), m.group("new"))]


_INSTEAD = re.compile(r"\b(?:use|using|pick|choose|chose|go with|switch(?:ed)? to|move(?:d)? to|prefer)\s+"
                      r"(?P<new>[\w.+#/-]+)\s+instead of\s+(?P<old>[\w.+#/-]+)", re.IGNORECASE)


@rule(CHANGE, catches=[Case("Use vitest instead of jest.", gives=("jest", "vitest"))],
      leaves=["Use it instead of that.", "Vitest runs instead of jest in CI?"])
def instead_of(text: str, previous: str, message: str) -> list:
    """"use Y instead of X": (X, Y), both names."""
    return [pair for m in _INSTEAD.finditer(text) for pair in _names(m.group("old"), m.group("new"))]


# `code`, 3e-4, 256 MB, Node 18
_VALUE_WORDS = r"`[^`\n]{1,60}`|\d+(?:\.\d+)?[eE][-+]?\d+\b|\d+(?:\.\d+)?\s?[A-Za-z%]{1,12}\b|[\w.:/+#-]+(?: \d+)?"
_FROM_TO = re.compile(r"\b(?P<verb>drop(?:ped|ping)?|switch(?:ed|ing)?|mov(?:e|ed|ing)|migrat(?:e|ed|ing)|"
                      r"chang(?:e|ed|ing)|upgrad(?:e|ed|ing)|bump(?:ed|ing)?|go(?:ing)?|went|rais(?:e|ed|ing)|"
                      r"lower(?:ed|ing)?|"
                      r"increas(?:e|ed|ing)|decreas(?:e|ed|ing)|reduc(?:e|ed|ing)|cut|extend(?:ed|ing)?|"
                      r"shorten(?:ed|ing)?)\s+"
                      rf"(?P<subject>(?:\w+\s+){{0,4}}?)from\s+(?P<old>{_VALUE_WORDS})\s+to\s+(?P<new>{_VALUE_WORDS})",
                      re.IGNORECASE)


@rule(CHANGE, catches=[Case("Changed the tide schedule from `30 2 * * *` to `0 */6 * * *`.",
                            gives=("30 2 * * *", "0 */6 * * *")),
                       Case("Raised the upload limit from 256 MB to 1 GB.", gives=("256 MB", "1 GB")),
                       Case("Switched the worker from Celery to arq so pending jobs drain first.",
                            gives=("Celery", "arq")),
                       Case("Moved the API from 8087 to 8090.", gives=("8087", "8090")),
                       Case("Changed the refresh token lifetime from 14 to 7 days.", gives=("14 days", "7 days")),
                       Case("Upgraded Node from 18 to 20 on the runners.", gives=("Node 18", "Node 20")),
                       Case("Switched the worker from 2 to 4 processes.", gives=("2 processes", "4 processes")),
                       Case("Changed the delay from 1 to 2 seconds.", gives=("1 second", "2 seconds")),
                       Case("Can you move the API from 8087 to 8090?", gives=("8087", "8090")),
                       Case("I dropped the batch size from 32 to 16.", gives=("Size 32", "Size 16")),
                       Case("drop the learning rate from 3e-4 to 1e-4 and clip gradients at 1.0",
                            gives=("3e-4", "1e-4"))],
      leaves=["The team went from 10 to 20 engineers this year.", "Moved it from 3 to 4.", "Bumped them from 3 to 4.",
              "I moved the code around from 1200 to 1350.", "Tests went from 1500 to 1620 passing.",
              "The ports go from 8000 to 8100.", "If we go from 3 to 5 workers, memory doubles.",
              "Should we switch from Celery to arq?", "I'd rather not bump the limit from 1000 to 5000 yet.",
              "Don't change the timeout from 30 to 60 seconds.", "We changed a lot of things from staging to prod.",
              "macro-F1 dropped from 0.81 to 0.21 after the tokenizer change",
              "Accuracy dropped sharply from 0.91 to 0.84 after the tokenizer change.",
              "The new index dropped the p99 from 900ms to 120ms.",
              "Let's drop the unique index from users to speed up the import."])
def from_to(text: str, previous: str, message: str) -> list:
    """"switch/move/raise ... from X to Y", done or asked for (not only wondered about or ruled out): names, or
    numbers given a unit or the word naming what changed (a measure, "went from 1500 to 1620 passing", is none)."""
    pairs = []
    for m in _FROM_TO.finditer(text):
        if _not_carried_out(text, m.start()):
            continue  # "Should we switch from Celery to arq?", "I'd rather not bump the limit from 1000 to 5000"
        old, new = m.group("old").strip(".,;:`"), m.group("new").strip(".,;:`")
        verb, subject = m.group("verb").lower(), m.group("subject")
        if verb.startswith("drop") and not _dropped_a_value(text, m.start(), subject, old, new):
            continue
        if named(old) and named(new) and old.lower() != new.lower():
            if len(subject.split()) <= 3:
                pairs.append((old, new))
        elif not verb.startswith(("go", "went")):
            # "moved the API from 8087 to 8090", "the timeout from 30 to 45 seconds" ("went from 1500 to 1620
            # passing", "can go from 2 to 10 replicas": a measure or a range, not a setting changed)
            pairs += _bare_numbers(old, new, subject.split())
    return pairs


_SENTENCE_MARKS = (". ", "! ", "? ")


def _sentence_start(text: str, at: int, clause_marks=()) -> int:
    """Where the sentence holding position `at` starts (or its clause, after one of `clause_marks`)."""
    return max(text.rfind(mark, 0, at) for mark in (*_SENTENCE_MARKS, "\n", *clause_marks)) + 1


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


_DOERS = ("i", "we", "let's", "lets", "please", "to", "i'll", "we'll", "i'd", "we'd", "then", "and", "also", "just")


def _dropped_a_value(text: str, at: int, subject: str, old: str, new: str) -> bool:
    """Whether "drop ... from OLD to NEW" (verb at `at`) is someone lowering a value: the verb opens its sentence or
    follows "I", "we", "let's"..., it has an object, and both sides hold a digit. "Drop the index from users to
    speed up the import" removes something; "accuracy dropped sharply from 0.91 to 0.84" is a measure."""
    if not subject.strip() or not (any(c.isdigit() for c in old) and any(c.isdigit() for c in new)):
        return False
    before = text[_sentence_start(text, at, (": ", "; ")):at].lower().replace("’", "'").split()
    return not before or before[-1] in _DOERS


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
        return first_values(f"{old} {unit}", kinds[0][1], same_kind)
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
    return first_values(f"{subject} {old}", f"{subject} {number}", str.__eq__)


def _year(number: str) -> bool:
    return len(number) == 4 and number[:2] in ("19", "20")


# "switch to goose", "moving to arq", "let's go with Postmark": a tool taking over another's job (alternatives.py)
_SWITCH_TO = re.compile(r"\b(?:switch(?:ed|ing)?|mov(?:e|ed|ing)|migrat(?:e|ed|ing)|port(?:ed|ing)?|go(?:ing)?\s+with|"
                        r"went\s+with|replac(?:e|ed|ing)\s+(?:it|them|that)\s+with)\s+(?P<rest>(?:[\w./+#-]+\s*){1,5})",
                        re.IGNORECASE)


@rule(CHANGE, catches=[Case("golang-migrate left the database dirty again. Let's switch to goose.",
                            gives=("golang-migrate", "goose")),
                       Case("We keep hitting limits; move the queue over to dramatiq. Celery is too heavy.",
                            gives=("celery", "dramatiq")),
                       Case("boto is ancient. Switch us to aioboto3.", gives=("boto", "aioboto3"))],
      leaves=["Let's go with Celery and Redis for background jobs.", "Let's switch to goose.",
              "Either Postmark or SES would do; what do you think?"])
def switch_to_alternative(text: str, previous: str, message: str) -> list:
    """"switch to Y" where the turn also names X, a tool for the same job: (X, Y)."""
    pairs = []
    for m in _SWITCH_TO.finditer(text):
        if "from" in m.group("rest").lower().split():  # "switched the worker from Celery to arq": from_to's
            continue
        new = next((w.strip(".,;:`'\"") for w in m.group("rest").split() if job_of(w)), None)
        if new:
            pairs += [(old, new) for old in same_job(new, message)]
    return pairs


_DROP = re.compile(r"\b(?:drop(?:ped|ping)?|ditch(?:ed|ing)?|remov(?:e|ed|ing)|get\s+rid\s+of|stop\s+using|"
                   r"done\s+with)\s+(?P<old>[\w./+#-]+)", re.IGNORECASE)


@rule(CHANGE, catches=[Case("One more: let's drop zap. log/slog is in the standard library.",
                            gives=("zap", "log/slog"))],
      leaves=["Let's drop zap.", "Drop the users table and log it with slog."])
def drop_tool(text: str, previous: str, message: str) -> list:
    """"drop X" where the turn also names Y, a tool for the same job: (X, Y)."""
    pairs = []
    for m in _DROP.finditer(text):
        old = m.group("old").strip(".,;:`'\"")
        pairs += [(old, new) for new in same_job(old, message)]
    return pairs


# --- a value for another ---------------------------------------------------------------------------------------

_NEW_BEFORE_OLD = re.compile(r"(?<![\d.])(?P<new>\d+(?:\.\d+)?(?:\s?[A-Za-z%]+)?)\s*,?\s+"
                             r"(?:instead of|up from|down from|rather than)\s+(?P<old>\d+(?:\.\d+)?(?:\s?[A-Za-z%]+)?)",
                             re.IGNORECASE)


@rule(CHANGE, catches=[Case("S3 calls now get up to 5 attempts instead of 3.", gives=("3 attempts", "5 attempts")),
                       Case("The pool is now max_connections = 20, up from 10.",
                            gives=("max_connections = 10", "max_connections = 20"))],
      leaves=["It took 5 instead of 3.", "We have 20 users, up from 10."])
def new_before_old(text: str, previous: str, message: str) -> list:
    """"Y instead of X", "Y, up from X" with numbers: the old number in the new one's unit or setting."""
    return [pair for m in _NEW_BEFORE_OLD.finditer(text)
            for pair in _number_pair(m.group("old"), m.group("new"), text[:m.start("new")])]


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


_NOT = re.compile(r"(?<!\S)(?P<new>\S+)\s*,?\s+not\s+(?:the\s+)?(?P<old>\S+?)[.,;)]*(?:\s|$)", re.IGNORECASE)


@rule(CHANGE, catches=[Case("Actually it's 8090, not 8087.", gives=("8087", "8090"))],
      leaves=["It's fast, not slow.", "Port 8090, not yet."])
def not_old(text: str, previous: str, message: str) -> list:
    """"Y, not X": the first value each side states, of one kind."""
    return [pair for m in _NOT.finditer(text)
            for pair in first_values(m.group("old").strip(".,;:`"), m.group("new").strip(".,;:`"), str.__eq__)]


# "valid 15 minutes, not an hour": an amount and the one it replaces ("an hour" is 1 hour)
_AMOUNT = r"\d+(?:\.\d+)?\s?[A-Za-z%]+|an?\s+(?:second|minute|hour|day|week|month|year)"
_NOT_AMOUNT = re.compile(rf"(?<![\d.])(?P<new>{_AMOUNT})\s*,?\s+not\s+(?P<old>{_AMOUNT})\b", re.IGNORECASE)


@rule(CHANGE, catches=[Case("Reset links should be valid 15 minutes, not an hour.", gives=("1 hour", "15 minutes")),
                       Case("Keep the logs 30 days, not 7 days.", gives=("7 days", "30 days"))],
      leaves=["Keep the logs 30 days, not forever.", "It took a minute, not much more."])
def amount_not_amount(text: str, previous: str, message: str) -> list:
    """"15 minutes, not an hour": amounts of one kind (any two durations)."""
    pairs = []
    for m in _NOT_AMOUNT.finditer(text):
        old, new = (re.sub(r"^an?\s+", "1 ", m.group(g), flags=re.IGNORECASE) for g in ("old", "new"))
        pairs += first_values(old, new, same_kind)
    return pairs


# --- a new value, the old one to be found --------------------------------------------------------------------

_UPGRADED_TO = re.compile(r"\b(?:upgrad|updat|bump|mov|migrat)(?:e|ed|es|ing)?\s+(?:\w+\s+)?to\s+"
                          r"(?P<new>[A-Za-z][\w+#-]{1,20}(?:\s+v?|[@:]v?)\d+(?:\.\d+){0,2})\b", re.IGNORECASE)


@rule(CHANGE, catches=[Case("Upgraded to fastify 5.1.0 together with the plugins.", gives=(None, "Fastify 5.1.0")),
                       Case("Moved us to Node 22.", gives=(None, "Node 22"))],
      leaves=["Moved to the new office.", "Upgraded to the latest."])
def upgraded_to(text: str, previous: str, message: str) -> list:
    """"upgraded to fastify 5.1.0": (None, the new version), the old one what older memories said of it."""
    pairs = []
    for m in _UPGRADED_TO.finditer(text):
        wanted = value_kinds(m.group("new"))
        if wanted and wanted[0][0].startswith("subject:") and wanted[0][0][8:] not in WEAK_SUBJECTS:
            pairs.append((None, wanted[0][1]))
    return pairs


_SET_TO = re.compile(r"\b(?:bump|upgrade|update|set|change|move|switch|raise|lower)\s+(?:the\s+)?"
                     r"(?P<subject>[A-Za-z][\w+#.-]{1,20})\s+to\s+(?P<new>v?\d[\w.:]*(?:\s\w+)?)", re.IGNORECASE)


@rule(CHANGE, catches=[Case("Also bump Node to 20, 18 goes out of support.", gives=(None, "Node 20")),
                       Case("Move the toolchain to 1.82.", gives=(None, "1.82", "toolchain"))],
      leaves=["Set it to 20.", "Move the meeting to the afternoon."])
def set_to(text: str, previous: str, message: str) -> list:
    """"bump Node to 20": (None, "Node 20"); "move the toolchain to 1.82": (None, "1.82", "toolchain")."""
    pairs = []
    for m in _SET_TO.finditer(text):
        subject = m.group("subject")
        wanted = value_kinds(f"{subject} {m.group('new')}")
        if subject.lower() not in WEAK_SUBJECTS and wanted and wanted[0][0] == "subject:" + subject.lower():
            pairs.append((None, wanted[0][1]))
        version = DOTTED_VERSION.fullmatch(m.group("new").strip().rstrip("."))
        if version and subject.lower() not in WEAK_SUBJECTS:  # "move the toolchain to 1.82": 1.79 beside it before
            pairs.append((None, version.group(0), subject.lower()))
    return pairs


# "Cut the hold to 10 minutes", "raise the pool to 25 connections": a subject given a new value of a kind
_SUBJECT_TO = re.compile(r"\b(?:cut|shorten|extend|lengthen|raise|lower|reduce|increase|decrease|bump|set|change|"
                         r"move|drop|cap|limit)\s+(?:the\s+|our\s+|its\s+|their\s+)?(?P<subject>[a-z][\w-]{2,20})"
                         r"(?:\s+[a-z][\w-]{2,20})?\s+(?:down\s+|up\s+|back\s+)?to\s+(?P<new>\d[^,;!?]{0,30})",
                         re.IGNORECASE)


@rule(CHANGE, catches=[Case("15 minutes is too long on busy weekends. Cut the hold to 10 minutes.",
                            gives=("15 minutes", "10 minutes")),
                       Case("Cut the hold to 10 minutes.", gives=(None, "10 minutes", "hold"))],
      leaves=["Cut the hold to the minimum.", "Raise the pool to 25."])
def subject_to(text: str, previous: str, message: str) -> list:
    """"cut the hold to 10 minutes": the one value of that kind the turn also states, else (None, new, subject)."""
    pairs = []
    for m in _SUBJECT_TO.finditer(text):
        for kind, value in value_kinds(m.group("new")):
            if kind.startswith("unit:") or kind in ("time", "cron"):
                olds = [v for k, v in value_kinds(message) if k == kind and v.lower() != value.lower()]
                pairs += [(olds[0], value)] if len(olds) == 1 else [(None, value, m.group("subject"))]
            break
    return pairs


_MAKE_IT = re.compile(r"^(?:ok(?:ay)?,?\s+|actually,?\s+|please\s+|then\s+)*(?:make|set|change|move|bump|raise|"
                      r"lower|reduce|increase)\s+(?:it|that|this|them|\w+(?:\s\w+)?)\s+(?:to\s+)?(?P<new>.+?)[.!]*$",
                      re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@rule(CHANGE, catches=[Case("They need old builds for hotfixes. Make it 45 days.", before="Builds are kept 14 days.",
                            gives=("14 days", "45 days"))],
      leaves=[Case("Make it 45 days.", before="Done: the cache now holds 500 entries."),
              Case("Make it faster.", before="Builds are kept 14 days.")])
def make_it(text: str, previous: str, message: str) -> list:
    """"Make it 7 days" after an assistant turn that said "14 days": the value of that kind it stated."""
    pairs = []
    for wanted in made_values(text) if previous else ():
        for kind, new in value_kinds(wanted):
            olds = [v for k, v in value_kinds(previous) if k == kind and v != new]
            if olds:
                pairs.append((olds[-1], new))
    return pairs


def made_values(line: str) -> list:
    """What the line's "make it ..." sentences ask for ("They need old builds for hotfixes. Make it 45 days.")."""
    made = []
    for sentence in _SENTENCE_END.split(line.strip()):
        m = _MAKE_IT.match(sentence) if len(sentence) < 120 else None
        if m:
            made.append(m.group("new"))
    return made


def asked_values(line: str) -> list:
    """Values with a unit a person asks for ("Make it 45 days.")."""
    return [value for wanted in made_values(line) for kind, value in value_kinds(wanted) if kind.startswith("unit:")]


CHANGE_RULES = (replace_with, instead_of, from_to, switch_to_alternative, drop_tool, new_before_old, not_old,
                amount_not_amount, upgraded_to, set_to, subject_to, make_it)


def stated_changes(text: str, previous: str, message: str = "") -> list:
    """Value pairs a line states, by every change rule in turn."""
    return [pair for find in CHANGE_RULES for pair in find(text, previous, message)]


_OPEN_LABELS = ("still open", "todo", "to-do", "to do", "next step", "next time", "follow-up", "follow up", "followup",
                "pending", "left to do", "still to do", "open:")


def without_open_work(line: str) -> str:
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
