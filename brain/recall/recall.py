"""Recall: the memories that answer a prompt, best first, within a token budget. No network, no model.

Reads only index/search.db. How an item's score is made, in order of effect:
1. Text: BM25 (SQLite FTS5, porter stemming) of each prompt word, summed. Words too common in the store to
   discriminate are left out.
2. Conversation: a turn also scores by the turns around it (KERNEL; the same conversation, in order). An answer
   often shares no word with the prompt but follows a turn that does ("what did you paint?" / "a sunset").
3. Who: a turn labelled with a name the prompt mentions ("Caroline: ...") counts double.
4. When: a prompt naming a date ("in May 2023", "on 8 May, 2023", "yesterday") favours memories made then or
   about events then (relative dates in a memory are resolved against its own date, in the prompt against now).
5. What: corrections, requests, decisions and preferences weigh more than verbatim turns; confidence and salience
   (pinned, often used, recent: brain/store/salience.py) count; superseded or retracted memories never appear.
6. Where: this project's memory and the person's own (scope user or global: in every project); another project's
   memory never (`project=None` ranks every project alike); files named in the prompt (or given) pull in
   memories about them; prompt words that are tags count extra.
Threshold: when no memory covers enough of the prompt's distinctive words (COVERAGE_MIN of their IDF weight), or
the prompt has none, nothing is returned. Budget: items fill the token budget best first, each at most once
(text contained in a chosen item is not repeated), and are shown with their id (which starts with their date),
a kind mark and, after the text, what its relative dates mean.
"""
import math
import time

from brain.index.access import record_access
from brain.index.search_index import TOKENIZER, chunk_count, connect
from brain.recall import depth as depths
from brain.recall.depth import DEPTHS
from brain.recall.lexicon import FRAMING, HISTORY_WORDS, PHRASES, asked_values, idea, related
from brain.store.salience import salience
from brain.store.sensitivity import allowed, check_level
from brain.util.sqlite import sqlite3
from brain.util.text import (
    STOPWORDS,
    UPPER,
    WORD_CHARS,
    Blanks,
    holds_value,
    sentences,
    speaker_label,
    value_span,
    without_label,
)
from brain.util.text import words as word_runs
from brain.util.tokens import estimate_tokens

DEFAULT_BUDGET_TOKENS = 1600  # a ceiling: the relative cut below usually stops well before it
# Precision cut: an item scoring under this share of the best item's score is left out, so a prompt with a clear
# answer gets a short context and a vague one gets more. On the LoCoMo dev set it trades ~1 point of evidence
# recall for ~20% fewer characters (bench/README.md, "Recall").
RELATIVE_CUT = 0.38
DEFAULT_LIMIT = 40
HIDDEN_STATUS = ("retracted",)  # withdrawn as wrong: never shown
SUPERSEDED_WEIGHT = 0.45  # a replaced memory is still history ("what did we use before?"), shown marked, ranked low
STALE_VALUE_WEIGHT = 0.7  # a turn stating a value changed since (search.db changes): shown marked, ranked lower

# Weight of a neighbour's text score in a turn's score, by offset (-1: the turn before, often the question).
KERNEL = {0: 1.0, -1: 0.8, 1: 0.45, -2: 0.3, 2: 0.3, -3: 0.18, 3: 0.18, -4: 0.1, 4: 0.1, -5: 0.06, 5: 0.06}
# "why ...?": the reason is said before what it explains (the request before the change, the problem before the fix)
WHY_KERNEL = {**KERNEL, 1: 0.8, 2: 0.45, 3: 0.3}
KIND_WEIGHT = {"correction": 1.5, "request": 1.4, "decision": 1.35, "preference": 1.3, "learning": 1.2,
               "consolidated": 1.2, "memory": 1.15, "milestone": 1.1, "turn": 1.0, "session": 0.8}
TYPE_WEIGHT = {"decision": 1.15, "preference": 1.1, "pattern": 1.05, "fact": 1.0, "note": 0.95}
SPEAKER_BOOST = 2.0
DATE_BOOST = 5.0
FILE_BOOST = 2.0
TAG_BOOST = 1.25
VALUE_KIND_BOOST = 1.3  # "how long ...?": a memory stating a duration
GLOBAL_WEIGHT = 0.85  # a memory without a project, next to this project's own
SHARED_SCOPES = ("user", "global")  # metadata.scope of memories recalled in every project
COVERAGE_MIN = 0.35  # share of the prompt's IDF weight the best memory must contain...
KNOWN_COVERAGE_MIN = 0.6  # ...or of the weight of the prompt words the store holds (see _answers_what_is_known)
ON_TOPIC_COVERAGE_MIN = 0.1  # ...or this much, when the prompt also names what the store is full of
# A prompt whose best memory holds under half of its weight gets at most this budget (~1,200 characters): on 70
# prompts about nothing stored it cut the mean injected from 433 to 156 characters (LoCoMo stores) and from 555
# to 263 (coding histories), for 3 points of LoCoMo evidence at 14% fewer characters (bench/README.md).
STRONG_SHARE = 0.5
WEAK_BUDGET_TOKENS = 300
RELATIVE_MIN = 0.15  # items scoring under this share of the best one are not worth their tokens
COMMON_SHARE = 0.3  # a word in more than this share of memories is not searched for...
COMMON_MIN_ROWS = 100  # ...once there are enough memories to tell...
# A word on more memories than this is ranked over its newest CAPPED_ROWS matches only: ranking costs ~3 ms per
# thousand matches (bm25() scores every one) — bench/run.py, 100k store. Capping the work, not the word,
# keeps a prompt whose words are all this common in a large store answered (issue 17).
COMMON_MAX_ROWS = 2000
CAPPED_ROWS = 100  # ~0.3 ms a word at 100,000 memories (bench/run.py)
COUNT_WINDOW = 20_000  # newest memories in which a word's matches are counted first (see _match_count)
TERM_ROWS = 100  # best rows read per word
# A word's best matches. bm25() sorted by SQLite rather than FTS5's `ORDER BY rank`, which sorts through a query of
# its own: the same rows in the same order, 20-25% less time (13 prompt words at 10,000 memories: 32.5 -> 25 ms).
_RANKED = "SELECT rowid, -bm25(fts) AS score FROM fts WHERE fts MATCH ? ORDER BY score DESC LIMIT ?"
# A word's family matching more memories than this is scored over its newest CAPPED_ROWS matches (the family
# counts at 0.6 of the word at most; "port" OR "bind" OR ... on 1,000 memories cost 3-5 ms to rank in full).
FAMILY_RANKED_ROWS = 500
HITS_FOR_CONTEXT = 40  # best text hits whose neighbouring turns are read
MAX_CANDIDATES = 200  # best by text and context, then weighed
# Of a longer prompt only its first and last characters are read (words are taken from the start, at most 24):
# parsing a pasted megabyte took the prompt hook past its time limit, and no recall at all.
PROMPT_HEAD, PROMPT_TAIL = 8000, 2000
VALUE_GATE_ROWS = 20  # best memories by share looked at for the value a prompt asks for (_states_the_value_...)
DATED_ROWS = 200
FILL_SCAN = 150  # candidates looked at when filling the budget
MAX_ITEM_CHARS = 1200  # a longer memory is shown as the sentences around the prompt's words
EXCERPT_MIN_TOKENS = 60  # room left in the budget worth an excerpt of a memory too long for it
DATED_SHARE = 0.1  # a memory found by its date alone starts at this share of the best text score
OPEN_WORK_ROWS = 4  # "what's still left to do?": the latest memories saying what is open...
OPEN_WORK_SHARE = 0.8  # ...each one older starting at this share of the one after it
# A prompt word's family: the words it derives from or into ("linter" and "linting" share "lint*"), and the terms
# brain/recall/lexicon.py gives for the same idea ("migrations": alembic, flyway). A memory that holds only the
# family counts this much of the word itself; a derivation shares letters, not always meaning ("difference" and
# "different"), so only the word itself and its synonyms tell that a memory holds two of the prompt's words.
SYNONYM_WEIGHT = 0.6
DERIVED_WEIGHT = 0.5
_SUFFIXES = ("ations", "ation", "ities", "ments", "ings", "ions", "ment", "ings", "ers", "ors", "ity", "ing", "ion",
             "ies", "er", "or", "es", "ed", "s")

RECENT_DAYS = 120  # a turn older than this, never used nor pinned, has no salience left


_PATH_CHARS = Blanks(lambda ch: ch.isalnum() or ch in "_./-")
_NAME_CHARS = Blanks(lambda ch: ch.isalnum() or ch in "_'-")


# Cheap tests for the dates brain/util/timeref.py reads, so that it (with `re` and `datetime`) loads only for
# text that may hold one. Each accepts everything timeref would find, and more, never less.
_RELATIVE_WORDS = ("yesterday", "today", "tonight", "tomorrow", "ago")  # "ago": "two weeks ago"
_RELATIVE_LEADS = frozenset("last past previous this next coming on".split())  # "last week", "on Friday"
_RELATIVE_UNITS = frozenset("week weekend month year night morning monday tuesday wednesday thursday friday "
                            "saturday sunday".split())
_MONTHS = frozenset("jan january feb february mar march apr april may jun june jul july aug august sep sept "
                    "september oct october nov november dec december".split())
_MONTH_LEADS = frozenset("in during since by until early late mid".split())  # "in May": "may" alone is a verb


def _has_word(lowered: str, word: str) -> bool:
    r"""Whether `word` occurs in `lowered` as a whole word (regex \bword\b)."""
    at = lowered.find(word)
    while at >= 0:
        before, after = lowered[at - 1:at], lowered[at + len(word):at + len(word) + 1]
        if not (before.isalnum() or before == "_" or after.isalnum() or after == "_"):
            return True
        at = lowered.find(word, at + 1)
    return False


def _word_pairs(lowered: str, firsts, seconds) -> bool:
    """Whether a word of `firsts` is directly followed by a word of `seconds`."""
    words = lowered.translate(WORD_CHARS).split()
    return any(word in seconds and previous in firsts for previous, word in zip(words, words[1:]))


def _may_have_relative_date(text: str) -> bool:
    """Whether `text` may say "yesterday", "two weeks ago", "last Friday", "this morning" or the like."""
    lowered = text.lower()
    if any(_has_word(lowered, word) for word in _RELATIVE_WORDS):
        return True
    return any(unit in lowered for unit in ("day", "week", "month", "year", "night", "morning")) \
        and _word_pairs(lowered, _RELATIVE_LEADS, _RELATIVE_UNITS)


def _may_have_calendar_date(text: str) -> bool:
    """Whether `text` may name a calendar date: it has a digit ("2023-05-08", "8 May"), or a month after a
    preposition ("in May", "early June"), the only date timeref reads without a digit."""
    return any(ch.isdigit() for ch in text) or _word_pairs(text.lower(), _MONTH_LEADS, _MONTHS)


class RecallItem:
    """One recalled memory: what ranking saw and the text shown."""

    __slots__ = ("id", "created", "type", "kind", "score", "text", "conversation_id", "project", "status", "tags",
                 "why", "_row")

    def __init__(self, row: dict, score: float, text: str, why: list):
        self.id, self.created, self.type, self.kind = row["id"], row["created"], row["type"], row["kind"]
        self.conversation_id, self.project, self.status = row["conversation_id"], row["project"], row["status"]
        self.tags = row["tags"].split() if row["tags"] else []
        self.score, self.text, self.why, self._row = score, text, why, row

    def line(self, compact: bool = True) -> str:
        """One line. Compact: the id's hex tail only; the day (the rest of the id) heads the group it is in."""
        marks = [] if self.kind == "turn" else [self.kind if self.kind != "memory" else self.type]
        stale = self._row.get("stale")
        if stale:  # a value this turn states was changed later: say which, since when, and what holds now
            marks.append(f"{stale[0]} replaced {stale[2][:10]} by {stale[1]}")
        if self.status == "superseded":  # history, not what holds now: say since when and what holds instead
            when = (self._row.get("replaced_at") or "")[:10]
            by = self._row.get("replaced_by")
            marks.append("replaced" + (f" {when}" if when else "") + (f" by {by[-8:]}" if by else ""))
        elif self.status != "active":
            marks.append(self.status)
        ref = self.id[-8:] if compact else self.id
        return f"- [{ref}{' ' + ', '.join(marks) if marks else ''}] {self.text}"

    @property
    def day(self) -> str:
        return self.id[6:16]  # the id's date: chunk-YYYY-MM-DD-hex

    def to_dict(self) -> dict:
        return {"id": self.id, "created": self.created, "type": self.type, "kind": self.kind,
                "score": round(self.score, 4), "text": self.text, "conversation_id": self.conversation_id,
                "project": self.project, "status": self.status, "tags": self.tags, "why": self.why}


class RecallResult:
    # The compact form needs a legend; it is given once per session (the session-start brief, SKILL.md) rather
    # than in every prompt's injection, where it cost ~20 tokens each time.
    LEGEND = "Recalled items stand under the day they were made: [hex] = chunk-DAY-hex (`rlm-mem get hex`)."

    def __init__(self, query: str, items: list, budget_tokens: int, depth: str, candidates: int = 0):
        self.query, self.items, self.budget_tokens, self.depth = query, items, budget_tokens, depth
        self.candidates = candidates

    def render(self) -> str:
        """The plain text block to inject ("" when nothing was recalled)."""
        return self.render_lines(compact=True)

    def render_lines(self, compact: bool = True) -> str:
        """Compact (for injected context): each item's id shortened to its hex tail under a line giving its day,
        about 20 characters less per item, which the budget spends on more memory. Full ids otherwise."""
        if not self.items:
            return ""
        if not compact:
            return "\n".join(["Best first:"] + [i.line(False) for i in _reading_order(self.items)])
        lines, day = [], None
        for item in _reading_order(self.items):
            if item.day != day:
                day = item.day
                lines.append(day)
            lines.append(item.line())
        return "\n".join(lines)

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.render())

    def to_dict(self) -> dict:
        return {"query": self.query, "depth": self.depth, "budget_tokens": self.budget_tokens,
                "tokens": self.tokens, "candidates": self.candidates, "items": [i.to_dict() for i in self.items]}


_LEFT_OPEN = []  # connections of a process about to leave (recall's `exiting`)


def recall(root, query: str, *, project=None, limit=None, budget_tokens=None, depth="full",
           max_sensitivity="medium", files=(), now=None, track=True, exiting=False) -> RecallResult:
    """The memories under `root` that answer `query`, best first within `budget_tokens` (see the module doc).
    `now`: a datetime (naive means UTC) or epoch seconds; the current time by default. `exiting`: the process
    leaves through os._exit right after (the prompt hook), so the read-only index is left open: closing it
    (unmapping it, freeing its page cache) cost ~0.8 ms of the hook at 100,000 memories (bench/run.py)."""
    if depth not in DEPTHS:
        raise ValueError(f"unknown depth; use one of {', '.join(DEPTHS)}")
    check_level(max_sensitivity)
    budget = DEFAULT_BUDGET_TOKENS if budget_tokens is None else max(0, int(budget_tokens))
    limit = DEFAULT_LIMIT if limit is None else max(0, int(limit))
    now = _Clock(now)
    empty = RecallResult(query, [], budget, depth)
    if not isinstance(query, str) or not query.strip() or budget <= 0 or limit <= 0:
        return empty
    try:
        conn = connect(root, readonly=True, mapped=True)
    except sqlite3.Error:
        return empty
    if conn is None:
        return empty
    try:
        conn.row_factory = sqlite3.Row
        prompt = _Prompt(query, tuple(files or ()), now)
        ranked, candidates = _rank(conn, prompt, project, max_sensitivity, now, _changes(conn, project))
        # A prompt that only touches the store (a word or two of it) gets a short context: if it asked about
        # memory, the best few items hold the answer; if it did not, little is in the way.
        items = _fill(ranked, min(budget, WEAK_BUDGET_TOKENS) if prompt.weak else budget, limit, depth, conn,
                      prompt.words)
    except sqlite3.Error:  # a damaged or half-migrated index: recall nothing rather than fail the prompt
        return empty
    finally:
        if exiting:
            _LEFT_OPEN.append(conn)  # referenced, or freeing the object would close it all the same
        else:
            conn.close()
    if track and items:
        try:
            record_access(root, [item.id for item in items])
        except OSError:
            pass  # a read-only store can still be recalled from
    return RecallResult(query, items, budget, depth, candidates)


# ---------------------------------------------------------------------------------------------- the prompt
class _Clock:
    """The time recall runs at: epoch seconds for salience, the day for dates. Built from time.time() by default,
    so the prompt hook imports `datetime` (~1 ms) only for a prompt or memory with a date in it."""

    def __init__(self, now=None):
        if isinstance(now, (int, float)):
            now, self.epoch = None, float(now)
        elif now is None:
            self.epoch = time.time()
        else:
            if now.tzinfo is None:
                from datetime import timezone  # a caller's datetime: datetime is loaded already

                now = now.replace(tzinfo=timezone.utc)
            self.epoch = now.timestamp()
        self._now = now
        if now is None:
            first = time.gmtime(self.epoch - (RECENT_DAYS - 1) * 86400)
            self.recent_from = "%04d-%02d-%02d" % (first.tm_year, first.tm_mon, first.tm_mday)
        else:
            from datetime import timedelta  # a caller's datetime: datetime is loaded already

            self.recent_from = (now.date() - timedelta(days=RECENT_DAYS - 1)).isoformat()

    def date(self):
        if self._now is None:
            from datetime import (  # only for a prompt with a date (~1 ms otherwise)
                datetime,
                timezone,
            )

            self._now = datetime.fromtimestamp(self.epoch, timezone.utc)
        return self._now.date()


class _Prompt:
    """What ranking needs from the prompt: its words, the names and dates it mentions, the files it names."""

    def __init__(self, text: str, files, now):
        if len(text) > PROMPT_HEAD + PROMPT_TAIL:  # a pasted log: its start and the question typed after it
            text = text[:PROMPT_HEAD] + "\n" + text[-PROMPT_TAIL:]
        self.text = text
        paths = _file_paths(text) if "." in text else []  # a file's path has a dot before its extension
        self.files = {path.rsplit("/", 1)[-1] for path in paths} | {f.rsplit("/", 1)[-1] for f in files if f}
        self.dates = []
        undated = text
        absolute = _may_have_calendar_date(text)
        relative = _may_have_relative_date(text)
        if absolute or relative:
            from brain.util.timeref import (  # re: dated prompts only
                absolute_spans,
                relative_spans,
                without_dates,
            )

            self.dates = absolute_spans(text) if absolute else []
            if relative:  # "yesterday", "last week": the days before this prompt
                self.dates += [(first, last) for _, first, last in relative_spans(text, now.date())]
            if self.dates:  # "13 May 2023" or "yesterday" is matched as a date, not as words
                undated = without_dates(text, relative=True)
        words, runs = [], word_runs(undated.lower())
        # (a date taken out of the text may have cut a path, so the words' files are found in what is left)
        extensions = _extension_counts(paths if undated is text else _file_paths(undated))
        self.wants, asking = asked_values(runs)
        self.stated_kinds = _stated_kinds(self.wants)  # what a memory's value_kinds holds when it states one
        self.why = "why" in runs  # a reason: said before the decision or change it explains
        self.asks_history = not HISTORY_WORDS.isdisjoint(runs)  # "why did we ...?": about the work done together
        for pair, one in PHRASES.items():  # "log in" is one idea: login
            runs = _joined(runs, pair, one)
        framing = asking | FRAMING
        if extensions:  # "see comments/models.py": the file is matched by name; "py" alone is no topic
            framing |= {ext for ext, count in extensions.items() if runs.count(ext) <= count}
        for i, word in enumerate(runs):
            if word not in STOPWORDS and word not in framing and (len(word) > 1 or word.isdigit()) \
                    and word not in words and not _negated_verb(word, runs[i + 1:i + 2]):
                words.append(word)
        self.words = words[:24]
        self.stems = {word[:5] for word in self.words}  # which replaced value a memory names (_asked_about)
        self.lower_words = set(word_runs(text.lower()))
        self.names = _capitalised(text)
        self.weak = False  # set by ranking: the best memory holds little of the prompt


_NEGATED = frozenset("don didn doesn isn wasn weren aren couldn shouldn wouldn hasn haven hadn won ain mustn needn "
                     "mightn shan".split())


def _negated_verb(word: str, after: list) -> bool:
    """Whether `word` is what is left of a negated auxiliary before "t" ("wouldn't" reads "wouldn", "t"): no topic
    ("design t-shirt" keeps its design)."""
    return after == ["t"] and word in _NEGATED


def _joined(runs: list, pair: tuple, one: str) -> list:
    """`runs` with each occurrence of the two words `pair` replaced by the one word `one`."""
    out, i = [], 0
    while i < len(runs):
        if tuple(runs[i:i + 2]) == pair:
            out.append(one)
            i += 2
        else:
            out.append(runs[i])
            i += 1
    return out


def _capitalised(text: str) -> set:
    r"""Words starting with a capital, lower-cased: the names a prompt may mention (regex \b[A-Z][\w'-]*)."""
    names = set()
    for run in text.translate(_NAME_CHARS).split():
        for i, ch in enumerate(run):
            if ch in UPPER and (i == 0 or run[i - 1] in "'-"):
                names.add(run[i:].lower())
                break
    return names


def _file_paths(text: str) -> list:
    """The paths to files a text mentions, in order ("see comments/models.py" gives "comments/models.py")."""
    paths = []
    for run in text.translate(_PATH_CHARS).split():
        path = _file_path(run)
        # (a version number is no file: the extension starts with a letter)
        if path and not path.rsplit("/", 1)[-1].lower().startswith(("e.g", "i.e")):
            paths.append(path)
    return paths


def _file_names(text: str) -> set:
    """Names of the files a text mentions ("comments/models.py" gives "models.py")."""
    return {path.rsplit("/", 1)[-1] for path in _file_paths(text)}


def _extension_counts(paths) -> dict:
    """Lower-cased extension -> how many of `paths` it ends ("models.py" counts "py")."""
    counts = {}
    for path in paths:
        extension = path.rsplit(".", 1)[-1].lower()
        counts[extension] = counts.get(extension, 0) + 1
    return counts


def _file_path(run: str):
    r"""The longest start of `run` (a run of word characters, "." "/" "-") that is a path to a file with an
    extension, ending the run or followed by "." or "-" ("models.py." ends a sentence); None if none is
    (regex (?<![\w/.-])(?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,7}(?![\w/]))."""
    for end in [len(run)] + [i for i in range(len(run) - 1, 0, -1) if run[i] in ".-"]:
        folders, slash, name = run[:end].rpartition("/")
        stem, dot, extension = name.rpartition(".")
        if (slash and not all(folders.split("/"))) or not (dot and stem) or stem[0] == ".":
            continue
        if 1 <= len(extension) <= 8 and extension.isascii() and extension.isalnum() and extension[0].isalpha():
            return run[:end]
    return None


# ---------------------------------------------------------------------------------------------- ranking
_COLUMNS = ("rowid, id, created, type, kind, role, project, scope, conversation_id, confidence, importance, pinned, "
            "status, replaced_at, value_kinds, "
            "sensitivity, access_count, last_accessed, tags, files, when_note, when_spans, content")
_OLDER_COLUMNS = _COLUMNS.replace("when_note, when_spans", "'' AS when_note, '' AS when_spans").replace(
    "project, scope,", "project, NULL AS scope,").replace(
    "status, replaced_at, value_kinds, ", "status, NULL AS replaced_at, '' AS value_kinds, ")


def _changes(conn, project) -> list:
    """(old, new, at, id) of the project's value changes (search.db, from capture), newest first."""
    if not project:
        return []
    try:
        return conn.execute("SELECT old, new, at, id FROM changes WHERE project IS ? AND old IS NOT NULL "
                            "ORDER BY at DESC LIMIT 200", (project,)).fetchall()
    except sqlite3.OperationalError:  # an index an older rlm-mem made, until the worker rebuilds it
        return []


def _stale_value(row, changes, stems=frozenset()):
    """(old, new, at, id of the memory that made the change) of a change made after this row that replaced a value
    the row states, or None: the newest one the prompt is about (a prompt word beside the old value), else the
    newest. A turn can state several values changed since; its mark names the one asked about."""
    first = None
    for old, new, at, changed_by in changes:
        if at > row["created"] and changed_by != row["id"] and holds_value(row["content"], old) \
                and not holds_value(row["content"], new):
            if not stems or _asked_about(row["content"], old, stems):
                return old, new, at, changed_by
            first = first or (old, new, at, changed_by)
    return first


def _changes_behind(conn, ranked, scores, changes, prompt) -> dict:
    """rowid -> score of the memories that made the changes behind the replaced values in `ranked` that the
    prompt is about (a prompt word next to the old value: "port" in "listens on port 3000"), each scored as the
    best memory it made stale was (before its own weights), with the turn before each change (the request; for a
    "why" question the CHANGE_REASON_TURNS before it, where the reason was talked through): "why did we change
    the port?" is answered next to the change, and an old value shown brings the current one."""
    best_of, stems = {}, prompt.stems
    stale = sorted((r for r in ranked if r[1]["stale"]), key=lambda r: r[0], reverse=True)[:CHANGE_ROWS]
    for _, row, _ in stale:  # the best few: the others will not be shown (and each costs a pass over `changes`)
        for old, new, at, changed_by in changes:
            if at > row["created"] and changed_by != row["id"] and _asked_about(row["content"], old, stems) \
                    and not holds_value(row["content"], new):
                best_of[changed_by] = max(best_of.get(changed_by, 0.0), scores[row["rowid"]])
    if not best_of:
        return {}
    marks = ",".join("?" * len(best_of))
    weights = CHANGE_REASON_TURNS if "why" in prompt.lower_words else CHANGE_REASON_TURNS[:1]
    out = {}
    for rowid, chunk_id, conv, created in conn.execute(
            f"SELECT rowid, id, conversation_id, created FROM chunks WHERE id IN ({marks})", list(best_of)):
        out[rowid] = max(out.get(rowid, 0.0), best_of[chunk_id])
        before = conn.execute("SELECT rowid FROM chunks WHERE conversation_id=? AND +kind='turn' AND "
                              "(created, rowid) < (?, ?) ORDER BY created DESC, rowid DESC LIMIT ?",
                              (conv, created, rowid, len(weights))).fetchall() if conv else []
        for (turn,), weight in zip(before, weights):
            out[turn] = max(out.get(turn, 0.0), weight * best_of[chunk_id])
    return out


def _rank(conn, prompt, project, max_sensitivity, now, changes=()):
    """(scored candidates best first, how many were considered). Each candidate: (score, row, why)."""
    total = chunk_count(conn)  # a kept count: count(*) costs 3 ms at 100k chunks (bench/run.py)
    if not total:
        return [], 0
    text, matched, idf, common, capped = _text_scores(conn, prompt.words, total)
    valued = not text and common and _common_words_stating(conn, common, prompt.wants - {"todo"}, text, matched)
    absent_idf = math.log(1 + (total + 0.5) / 0.5)
    through_family = _family_scores(conn, prompt.words, total, text, matched, idf, common, capped)
    idf.update(through_family)
    for rowid in _other_projects(conn, set(text) | set(matched), project):  # before the threshold: what may show
        text.pop(rowid, None)
        matched.pop(rowid, None)
    share = _coverage(matched, idf)
    present = {w: v for w, v in idf.items() if v < absent_idf - 1e-9}  # what the store holds, itself or kin
    share_of_present = _coverage(matched, present)
    best_share = max(share.values(), default=0.0)
    file_rows = _file_rows(conn, prompt.files)
    dated = _dated_rows(conn, prompt.dates) if prompt.dates and common else set()
    open_work = _open_work_rows(conn, project) if "todo" in prompt.wants else []
    if not (best_share >= COVERAGE_MIN or file_rows or open_work or valued
            or (common and (best_share >= ON_TOPIC_COVERAGE_MIN or dated))
            or _answers_what_is_known(matched, share_of_present, present, len(idf) - len(present))
            or _holds_two_known_words(matched, share_of_present, present, len(idf) - len(present))
            or _states_the_value_asked_for(conn, matched, share_of_present, present, len(idf) - len(present),
                                           prompt.wants - {"todo"})):
        return [], 0
    prompt.weak = best_share < STRONG_SHARE and not (file_rows or open_work or dated or prompt.asks_history)
    scores = _with_context(conn, text, WHY_KERNEL if prompt.why else KERNEL)
    top_text = max(text.values(), default=1.0)
    for rowid in dated:
        scores.setdefault(rowid, DATED_SHARE * top_text)
    for rowid in file_rows:
        scores[rowid] = max(scores.get(rowid, 0.0), 0.5 * top_text)
    for newer, rowid in enumerate(open_work):  # "what's left to do?": the latest open work first
        scores[rowid] = max(scores.get(rowid, 0.0), OPEN_WORK_SHARE ** newer * top_text)
    best = sorted(scores, key=scores.get, reverse=True)[:MAX_CANDIDATES]
    visible = set(allowed(max_sensitivity))

    def weighed(rowids, scores, reason=None) -> list:
        rows, out = _fetch(conn, rowids), []
        for rowid in rowids:
            row = rows.get(rowid)
            if row is None or row["status"] in HIDDEN_STATUS or row["sensitivity"] not in visible:
                continue
            if project and row["project"] not in (None, project) and row["scope"] not in SHARED_SCOPES:
                continue  # another project's memory: only when every project is asked for (project=None)
            why = [reason] if reason else ["text"] if rowid in text else []
            if not reason and scores[rowid] > text.get(rowid, 0.0) * 1.01 and rowid not in dated:
                why.append("context")
            score = scores[rowid]
            if rowid in file_rows:
                score *= FILE_BOOST
                why.append("file")
            score *= _weight(row, prompt, project, now, why) * _length_factor(len(row["content"]))
            row["stale"] = _stale_value(row, changes, prompt.stems) if changes and row["status"] == "active" else None
            if row["stale"]:  # marked; not ranked lower when a change brought it (the why names the old value)
                if not reason:
                    score *= STALE_VALUE_WEIGHT
                why.append("replaced value")
            out.append((score, row, why))
        return out

    ranked = weighed(best, scores)
    changed = _changes_behind(conn, ranked, scores, changes, prompt) if changes else {}
    if changed:  # a replaced value shown brings the change that replaced it, and the turn asking for it (why)
        at = {row["rowid"]: i for i, (_, row, _) in enumerate(ranked)}
        for found in weighed(list(changed), changed, "change"):
            i = at.get(found[1]["rowid"])
            if i is None:
                ranked.append(found)
            elif found[0] > ranked[i][0]:
                ranked[i] = (found[0], ranked[i][1], ranked[i][2] + ["change"])
    ranked.sort(key=lambda r: (r[0], r[1]["created"]), reverse=True)
    floor = ranked[0][0] * RELATIVE_MIN if ranked else 0.0
    return [r for r in ranked if r[0] >= floor], len(scores)


# FTS5's BM25 normalises by length with b = 0.75, fixed: a memory three times the average length keeps about half
# the score of a short one holding the same words. Memories range from a one-line request to a session's summary
# of ten facts, and such summaries lost to short notes naming two of the question's words. A memory longer than a
# paragraph is scored as if b were LENGTH_B: nine coding histories 469 -> 472 of 503 questions (b 0.5-0.6 and a
# paragraph of 250-500 characters give the same), LoCoMo unchanged (its turns are shorter). Against the
# candidates' mean length instead of a paragraph, LoCoMo's session records gained on its turns (x1.110 -> x1.101).
FTS_B, LENGTH_B = 0.75, 0.6
PARAGRAPH_CHARS = 350


def _length_factor(length: int) -> float:
    ratio = length / PARAGRAPH_CHARS
    return ((1 - FTS_B) + FTS_B * ratio) / ((1 - LENGTH_B) + LENGTH_B * ratio) if ratio > 1 else 1.0


CHANGE_REASON_TURNS = (1.0, 0.8, 0.6)  # turns before a change brought with it, by distance (see _changes_behind)
CHANGE_ROWS = 20  # best memories with a replaced value whose changes are looked for
NEAR_VALUE_WORDS = 8  # words either side of a value, in its clause, that say what it is ("listens on port 3000")
_CLAUSE_ENDS = (", ", "; ", ". ", "! ", "? ", ": ", " (", ") ", "\n")


def _asked_about(text: str, value: str, stems: set) -> bool:
    """Whether a prompt word (by its first five letters) is the value itself or within NEAR_VALUE_WORDS words of
    the value's first mention in `text`, in the same clause."""
    span = value_span(text, value)  # "3 attempts" is also written "3 times"
    if span is None:
        return False
    lowered, (at, end) = text.lower(), span
    before, after = lowered[max(0, at - 200):at], lowered[end:end + 200]
    before = before[max(before.rfind(mark) for mark in _CLAUSE_ENDS) + 1:]
    after = after[:min((i for i in (after.find(mark) for mark in _CLAUSE_ENDS) if i >= 0), default=len(after))]
    near = word_runs(before)[-NEAR_VALUE_WORDS:] + word_runs(value.lower()) + word_runs(after)[:NEAR_VALUE_WORDS]
    return any(word[:5] in stems for word in near)


def _root(word: str):
    """The stem a word's derivations share, for a prefix search ("formatter" -> "format"), or None when too
    short to tell words apart ("port*" would find portal and portion)."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            root = word[:-len(suffix)]
            doubled = len(root) >= 5 and root[-1] == root[-2] and root[-1] not in "aeiousl"
            return root[:-1] if doubled else root  # "formatters" -> "format", like "formatting"
    return word if len(word) >= 5 and word.isalpha() else None


def _family_queries(word: str, root) -> list:
    """(FTS5 query, weight, kind) for a word's family: the lexicon's terms for the same idea ("synonym"), then
    the words sharing its root (_root(word); "derived": lint* for linter). Empty when it has neither."""
    terms = related(word) or (related(root) if root else ())
    queries = [(" OR ".join(f'"{term}"' for term in terms), SYNONYM_WEIGHT, "synonym")] if terms else []
    if root:
        queries.append((f"{root}*", DERIVED_WEIGHT, "derived"))
    return queries


def _family_scores(conn, words, total, text, matched, idf, common, capped) -> dict:
    """Add each word's family matches to rows that do not hold the word itself (at the family's weight; a row the
    synonyms found is not counted again for a derivation). Returns word -> the family's IDF for words the store
    holds only through their family. A word in `capped` (word -> its count; ranked over its newest matches) has
    its family ranked the same way, uncounted, each match scored as the word's own newest matches are: counting
    `(family) NOT "word"` reads the word's whole doclist (1.5-2 ms at 100,000 memories, bench/run.py) and bm25()
    counts each phrase's matches again (2-5 ms). Its newest matches tell how dense the family is among the newest
    memories: one denser than COMMON_SHARE is left out, as a counted family that common is."""
    found, absent_idf = {}, math.log(1 + (total + 0.5) / 0.5)
    roots = {word: _root(word) for word in words if word not in common}
    searched = [word for word, root in roots.items() if root]
    forms = _index_forms(conn, searched + [roots[word] for word in searched])
    for word, root in roots.items():
        store_holds_word = idf.get(word, absent_idf) < absent_idf - 1e-9
        for query, weight, kind in _family_queries(word, root):
            if (kind == "derived" and word in forms and root in forms
                    and not _holds_other_derivation(conn, forms[root], forms[word])):
                continue  # nothing but the word itself starts with its root: the search would find no row
            # Only rows without the word itself: the index stems words, so "model*" mostly finds what "models"
            # found, and ranking those again cost 1.5 ms a word at 10,000 memories (bench/run.py).
            if store_holds_word:
                query = f'({query}) NOT "{word}"'
            if word in capped:
                ranked, df = _newest(conn, query, _fts_idf(total, capped[word])), None
                if len(ranked) == CAPPED_ROWS and len(ranked) > COMMON_SHARE * (ranked[0][0] - ranked[-1][0] + 1):
                    continue  # "production" for "deploy" where most memories say it: it tells nothing
            else:
                df = conn.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (query,)).fetchone()[0]
                if not df or (df > COMMON_SHARE * total and total >= COMMON_MIN_ROWS) or df > COMMON_MAX_ROWS:
                    continue
                ranked = _newest(conn, query, _fts_idf(total, df)) if df > FAMILY_RANKED_ROWS else conn.execute(
                    _RANKED, (query, TERM_ROWS))
            for rowid, score in ranked:
                held = matched.get(rowid, ())
                if word not in held and not any(isinstance(h, tuple) and h[0] == word for h in held):
                    text[rowid] = text.get(rowid, 0.0) + weight * score
                    matched.setdefault(rowid, []).append((word, weight, kind))
            if df and idf.get(word, 0.0) >= absent_idf - 1e-9 and word not in found:  # absent: the family speaks
                found[word] = math.log(1 + (total - df + 0.5) / (df + 0.5))
    return found


def _index_forms(conn, words) -> dict:
    """word -> the one term the full-text index keeps it under (FTS5's porter stem: "queries" -> "queri"), read
    off a scratch table in this connection's temporary schema (nothing is written to the store), where the
    index's vocabulary is also opened for _holds_other_derivation. Empty when SQLite cannot tell."""
    if not words:
        return {}
    try:
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.prompt_words USING fts5(word, tokenize='{TOKENIZER}')")
        conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.prompt_terms USING fts5vocab(temp, prompt_words, "
                     "instance)")
        conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.index_terms USING fts5vocab(main, fts, row)")
        conn.execute("DELETE FROM temp.prompt_words")
        conn.executemany("INSERT INTO temp.prompt_words(rowid, word) VALUES(?, ?)", enumerate(words))
        terms = {}
        for i, term in conn.execute("SELECT doc, term FROM temp.prompt_terms"):
            terms.setdefault(words[i], set()).add(term)
    except sqlite3.Error:
        return {}
    return {word: next(iter(found)) for word, found in terms.items() if len(found) == 1}


def _holds_other_derivation(conn, root: str, form: str) -> bool:
    """Whether the index holds a term starting with `root` other than `form`, both as the index keeps them (FTS5
    stems a prefix query's text too: `override*` searches overrid*). Read off the index's vocabulary in ranges
    that leave `form` out: counting `(root*) NOT "word"` reads both doclists whole (0.3-0.7 ms a word at 100,000
    memories, bench/run.py), and it nearly always finds nothing (the index keeps a word's derivations under its
    own stem)."""
    end = root[:-1] + chr(ord(root[-1]) + 1)  # the first string past every one starting with root
    if not form.startswith(root):
        ranges = [(root, end)]
    else:  # the vocabulary reads a term's doclist before it checks the bound: stop just short of `form`
        ranges = [(root, form[:-1] + chr(ord(form[-1]) - 1) + "\U0010ffff")] if form != root else []
        ranges.append((form + "\x01", end))
    try:  # temp.index_terms: made with the scratch tables of _index_forms, which gave `root` and `form`
        return any(conn.execute("SELECT 1 FROM temp.index_terms WHERE term >= ? AND term < ? LIMIT 1", bounds)
                   .fetchone() for bounds in ranges)
    except sqlite3.Error:
        return True  # cannot tell: search as before


def _text_scores(conn, words, total):
    """rowid -> summed BM25 of the prompt's words, rowid -> words matched, word -> IDF (absent words weigh
    most), the prompt's words too common in the store to search for (they say what the store is about), and the
    words ranked over their newest matches only (on more than COMMON_MAX_ROWS memories; word -> its count)."""
    text, matched, idf, common, capped = {}, {}, {}, [], {}
    absent_idf = math.log(1 + (total + 0.5) / 0.5)
    window = _count_window(conn, total)
    for word in words:
        # Count first: counting matches is ~30x cheaper than ranking them (bm25() scores every match), and
        # a common word's ranking is thrown away (bench/run.py at 100k chunks: 1.5 ms instead of 60 ms a word).
        df = _match_count(conn, f'"{word}"', window)
        if df > COMMON_SHARE * total and total >= COMMON_MIN_ROWS:
            idf[word] = 0.0  # names of the people talking, "work" in a work log: present everywhere, tells nothing
            common.append(word)
            continue
        idf[word] = math.log(1 + (total - df + 0.5) / (df + 0.5)) if df else absent_idf
        if df > COMMON_MAX_ROWS:
            capped[word] = df  # a real word of a large store: scored below, over a bounded number of matches
            continue
        rows = conn.execute(_RANKED, (f'"{word}"', TERM_ROWS)).fetchall() if df else []
        for rowid, score in rows:
            text[rowid] = text.get(rowid, 0.0) + score
            matched.setdefault(rowid, []).append(word)
    if capped:
        _capped_scores(conn, {word: _fts_idf(total, df) for word, df in capped.items()}, text, matched)
    return text, matched, idf, common, capped


def _count_window(conn, total: int):
    """(first rowid, the share of the store from it on) of the newest COUNT_WINDOW memories, in a store larger than
    that; else None. Rowids grow with each memory added, so the span from the smallest to the largest tells how
    densely they are used (two index seeks; counting the window's rows would read them all)."""
    if total <= COUNT_WINDOW:
        return None
    # two queries: SQLite reads min() or max() alone off the table's ends, both at once by scanning every row
    first = conn.execute("SELECT min(rowid) FROM chunks").fetchone()[0]
    last = conn.execute("SELECT max(rowid) FROM chunks").fetchone()[0]
    if first is None:
        return None
    start = max(first, last - (COUNT_WINDOW * (last - first + 1)) // total + 1)
    return start, (last - start + 1) / (last - first + 1)


def _match_count(conn, match: str, window) -> int:
    """How many memories `match` finds. A store larger than COUNT_WINDOW: when the newest memories say the count
    would pass COMMON_MAX_ROWS, it is estimated from them (only a word ranked over its newest matches, or not at
    all, gets an estimate; its IDF moves little with it), since counting a word on 25,000 memories took 6 ms
    (bench/run.py, 100k); a rarer word, or one frequent only in older memories, is counted exactly."""
    if window is not None:
        start, share = window
        seen = conn.execute("SELECT count(*) FROM fts WHERE fts MATCH ? AND rowid >= ?", (match, start)).fetchone()[0]
        if seen > COMMON_MAX_ROWS * share:
            return round(seen / share)
    return conn.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (match,)).fetchone()[0]


def _capped_scores(conn, capped: dict, text, matched):
    """Add the words on more than COMMON_MAX_ROWS memories (word -> its BM25 IDF), each over its newest CAPPED_ROWS
    matches (a bounded piece of work whatever the store's size): a memory among the newest matches of several of
    them gets the sum of their scores (BM25 adds up over words), so a prompt whose words are all common in a large
    store still finds the memories holding most of them. Two or three such words are also searched together (AND),
    over the newest CAPPED_ROWS memories holding them all; a longer AND rarely matches anything."""
    summed = {}
    for word, weight in capped.items():
        for rowid, score in _newest(conn, f'"{word}"', weight):
            total, words = summed.get(rowid, (0.0, []))
            summed[rowid] = (total + score, words + [word])
    if 2 <= len(capped) <= 3:
        for rowid, score in _newest(conn, " AND ".join(f'"{w}"' for w in capped), sum(capped.values())):
            if score > summed.get(rowid, (0.0,))[0]:
                summed[rowid] = (score, list(capped))
    for rowid, (score, words) in summed.items():
        text[rowid] = text.get(rowid, 0.0) + score
        matched.setdefault(rowid, []).extend(words)


def _common_words_stating(conn, common: list, wanted: set, text: dict, matched: dict) -> bool:
    """A prompt all of whose words are common in the store but which asks for a kind of value ("which Go version
    are we on?" in a Go project, where "go" is on a third of the memories): the newest memories holding its words
    (as _capped_scores finds them) that state a value of that kind are its matches. True when there are any."""
    if not wanted:
        return False
    found, found_words = {}, {}
    _capped_scores(conn, dict.fromkeys(common, 1.0), found, found_words)
    for rowid in _stating(conn, found, wanted):
        text[rowid] = found[rowid]
        matched[rowid] = found_words[rowid]
    return bool(text)


def _fts_idf(total: int, df: int) -> float:
    """FTS5's BM25 IDF of a phrase on `df` of `total` rows: log((N - n + 0.5) / (n + 0.5)), at least 1e-6."""
    return max(math.log((total - df + 0.5) / (df + 0.5)), 1e-6)


def _newest(conn, match: str, score: float) -> list:
    """(rowid, score) of the newest CAPPED_ROWS rows matching `match`, each scored `score`: the BM25 of a memory
    of average length holding the words once. bm25() would count every match of the phrase again for its IDF
    (1-3 ms a common word at 100,000 memories, bench/run.py), and the caller has counted them already."""
    return [(rowid, score) for (rowid,) in conn.execute(
        "SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rowid DESC LIMIT ?", (match, CAPPED_ROWS))]


def _coverage(matched: dict, idf: dict) -> dict:
    """rowid -> the share of the prompt's IDF weight (over the words in `idf`) the row holds; a word found only
    through its family counts at its family weight."""
    wanted = sum(idf.values())
    if not wanted:
        return {}
    out = {}
    for rowid, words in matched.items():
        held = {}
        for item in words:
            word, weight = (item[0], item[1]) if isinstance(item, tuple) else (item, 1.0)
            held[word] = max(held.get(word, 0.0), weight)
        out[rowid] = sum(idf.get(w, 0.0) * weight for w, weight in held.items()) / wanted
    return out


def _answers_what_is_known(matched, share_of_present, present, absent_count) -> bool:
    """The threshold for a prompt some of whose words the store has never seen: those words do not veto (the
    person's words are not the memory's), but then the best memory must cover most of what the store does know
    of the prompt, and either hold two of its words or the prompt must name as many words the store knows as not."""
    if not present or not share_of_present:
        return False
    best = max(share_of_present, key=share_of_present.get)
    if share_of_present[best] < KNOWN_COVERAGE_MIN:
        return False
    known = len(_known_ideas(matched.get(best, ())) & _ideas(present))
    return known >= 2 or (known == 1 and absent_count <= len(present))


def _known_ideas(held) -> set:
    """The ideas of the prompt a row holds, through a word itself or its synonym (not a derivation); two prompt
    words the lexicon calls the same idea ("bump", "version") count once."""
    return {idea(item if isinstance(item, str) else item[0]) for item in held
            if isinstance(item, str) or item[2] == "synonym"}


def _holds_two_known_words(matched, share_of_present, present, absent_count) -> bool:
    """A memory holding two ideas of the prompt (words or synonyms) that carry a fair share of what the store
    knows of the prompt, when the prompt has fewer words the store has never seen than that: an answer."""
    known_of_prompt = _ideas(present)
    for rowid, share in share_of_present.items():
        if share >= COVERAGE_MIN:
            known = _known_ideas(matched.get(rowid, ())) & known_of_prompt
            if len(known) >= 2 and absent_count < len(known):
                return True
    return False


def _states_the_value_asked_for(conn, matched, share_of_present, present, absent_count, wanted) -> bool:
    """A prompt asking for a kind of value ("which port does the reverse proxy on the marina server send traffic
    to?") and a memory stating a value of that kind that holds two of the prompt's ideas the store knows ("the ops
    proxy on the marina box forwards to 9400"): an answer, even when the prompt has one word more the store never
    saw than _holds_two_known_words allows (the person's words for what the memory says in its own)."""
    if not wanted:
        return False
    known_of_prompt = _ideas(present)
    rows = []
    for rowid in sorted(share_of_present, key=share_of_present.get, reverse=True)[:VALUE_GATE_ROWS]:
        known = len(_known_ideas(matched.get(rowid, ())) & known_of_prompt)
        if known >= 2 and absent_count <= known + 1:
            rows.append(rowid)
    return bool(_stating(conn, rows, wanted))


def _stating(conn, rowids, wanted: set) -> list:
    """The rows among `rowids` that state a value of a kind in `wanted` (search.db value_kinds)."""
    if not rowids:
        return []
    wanted = _stated_kinds(wanted)
    marks = ",".join("?" * len(rowids))
    return [rowid for rowid, kinds in conn.execute(
        f"SELECT rowid, value_kinds FROM chunks WHERE rowid IN ({marks})", list(rowids))
        if wanted.intersection(kinds.split())]


def _stated_kinds(wanted: set) -> set:
    """The value kinds (search.db value_kinds) of a memory stating a value of a kind in `wanted`: a port is often
    written as a bare number ("the proxy forwards to 9400")."""
    return wanted | {"number"} if "port" in wanted else wanted


def _ideas(words) -> set:
    return {idea(word) for word in words}


def _dated_rows(conn, spans) -> set:
    """Rows made on the days the prompt names (a day either side), whatever their words."""
    from datetime import timedelta  # the prompt named a date, so datetime is loaded already

    found = set()
    for first, last in spans:
        if first == "month":
            sql = "SELECT rowid FROM chunks WHERE substr(created, 6, 2) = ? ORDER BY created DESC LIMIT ?"
            args = (f"{last:02d}", DATED_ROWS)
        else:
            sql = "SELECT rowid FROM chunks WHERE created >= ? AND created < ? ORDER BY created DESC LIMIT ?"
            args = ((first - timedelta(days=1)).isoformat(), (last + timedelta(days=2)).isoformat(), DATED_ROWS)
        found.update(rowid for (rowid,) in conn.execute(sql, args))
    return found


def _open_work_rows(conn, project) -> list:
    """Rowids of the project's latest memories saying what is left to do (follow-ups, pending TODOs, "next
    time ..."), newest first."""
    sql = "SELECT rowid FROM chunks WHERE ' ' || value_kinds || ' ' LIKE '% todo %' AND status = 'active'"
    args = []
    if project:
        sql += " AND project = ?"
        args.append(project)
    try:
        return [r for (r,) in conn.execute(sql + " ORDER BY created DESC LIMIT ?", (*args, OPEN_WORK_ROWS))]
    except sqlite3.OperationalError:  # an index an older rlm-mem made (no value_kinds), until it is rebuilt
        return []


def _file_rows(conn, names) -> set:
    """Rows whose metadata.files holds a path ending in one of `names` (a whole file name, not a suffix)."""
    found = set()
    for name in names:
        try:
            rows = conn.execute("SELECT c.rowid, c.files FROM file_names f JOIN chunks c ON c.id = f.id "
                                "WHERE f.name = ? LIMIT 200", (name,)).fetchall()
        except sqlite3.OperationalError:  # an index an older rlm-mem made (no file_names), until it is rebuilt
            pattern = "%" + name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            rows = conn.execute("SELECT rowid, files FROM chunks WHERE files LIKE ? ESCAPE '\\' LIMIT 200",
                                (pattern,)).fetchall()
        for rowid, paths in rows:
            if any(p == name or p.endswith("/" + name) for p in paths.split("\n")):
                found.add(rowid)
    return found


def _with_context(conn, text: dict, kernel: dict) -> dict:
    """Text scores spread to the turns around each of the best hits (same conversation, in order) by `kernel`
    (KERNEL, or WHY_KERNEL for a "why"); other memories keep their own score."""
    top = sorted(text, key=text.get, reverse=True)[:HITS_FOR_CONTEXT]
    if not top:
        return dict(text)
    reach = max(kernel)
    marks = ",".join("?" * len(top))
    # "+kind", "+conversation_id": look the hits up by rowid. Without the plus signs SQLite walks the kind index
    # over every turn of the store (15-25 ms a prompt at 100k memories, bench/run.py; 1-2 ms by rowid).
    hits = conn.execute(f"SELECT rowid, conversation_id, created FROM chunks WHERE rowid IN ({marks}) "
                        "AND +kind='turn' AND +conversation_id IS NOT NULL", top).fetchall()
    spread = {}
    by_conversation = {}
    for rowid, conv, created in hits:
        by_conversation.setdefault(conv, []).append((created, rowid))
    for conv, conv_hits in by_conversation.items():
        # One run of turns covers every hit of a conversation and its neighbours: three queries per conversation
        # instead of two per hit (40 hits cost ~4 ms in one-by-one queries at 10k memories).
        order = _turn_run(conv, sorted(conv_hits), reach, conn)
        for created, rowid in conv_hits:
            at, score = order[rowid], text[rowid]
            seq = order["_seq"]
            for distance in range(1, reach + 1):
                if at - distance >= 0:  # a turn whose next-but-(distance-1) turn matched
                    other = seq[at - distance]
                    spread[other] = spread.get(other, 0.0) + kernel[distance] * score
                if at + distance < len(seq):  # a reply (distance 1) to a turn that matched
                    other = seq[at + distance]
                    spread[other] = spread.get(other, 0.0) + kernel[-distance] * score
    scores = dict(text)
    for rowid, extra in spread.items():
        scores[rowid] = scores.get(rowid, 0.0) + extra
    return scores


MAX_RUN = 400  # turns read in one go between a conversation's first and last hit; beyond, hit by hit


_TURNS = "SELECT {part}, created, rowid FROM chunks WHERE conversation_id=? AND +kind='turn' AND "
# One query for the turns before a conversation's first hit, between its first and last, and after its last
# (each arm ordered and limited on its own; the rows are put in order here): 16 conversations a prompt, three
# statements each, cost ~1 ms of the prompt hook.
_TURN_RUN = (
    "SELECT * FROM (" + _TURNS.format(part=0) + "(created, rowid) < (?, ?) ORDER BY created DESC, rowid DESC LIMIT ?)"
    " UNION ALL SELECT * FROM (" + _TURNS.format(part=1) + "(created, rowid) >= (?, ?) AND (created, rowid) <= (?, ?)"
    " ORDER BY created, rowid LIMIT ?)"
    " UNION ALL SELECT * FROM (" + _TURNS.format(part=2) + "(created, rowid) > (?, ?) ORDER BY created, rowid LIMIT ?)")


def _turn_run(conv, hits, reach, conn) -> dict:
    """rowid -> position in the conversation's turns (in order) for every hit and its `reach` neighbours."""
    first, last = hits[0], hits[-1]
    rows = conn.execute(_TURN_RUN, (conv, *first, reach, conv, *first, *last, MAX_RUN + 1,
                                    conv, *last, reach)).fetchall()
    if sum(1 for part, _, _ in rows if part == 1) > MAX_RUN:  # hits far apart in a very long conversation
        seq = []
        for created, rowid in hits:
            seq += _turn_run(conv, [(created, rowid)], reach, conn)["_seq"]
        seq = list(dict.fromkeys(seq))
        return _positions(seq)
    return _positions([rowid for _, _, rowid in sorted(rows, key=lambda row: (row[1], row[2]))])


def _positions(seq) -> dict:
    out = {rowid: i for i, rowid in enumerate(seq)}
    out["_seq"] = seq
    return out


def _other_projects(conn, rowids, project) -> list:
    """The rows among `rowids` that belong to another project and are not the person's own (scope user/global).
    Two index seeks tell first whether the store holds another project at all (most stores hold one)."""
    if not project or not rowids or conn.execute("SELECT 1 FROM chunks WHERE project < ? OR project > ? LIMIT 1",
                                                 (project, project)).fetchone() is None:
        return []
    rowids, out = list(rowids), []
    for start in range(0, len(rowids), 500):
        part = rowids[start:start + 500]
        try:
            out += [r for (r,) in conn.execute(
                f"SELECT rowid FROM chunks WHERE rowid IN ({','.join('?' * len(part))}) AND project IS NOT NULL "
                f"AND project != ? AND (scope IS NULL OR scope NOT IN ('user', 'global'))", (*part, project))]
        except sqlite3.OperationalError:  # an index an older rlm-mem made (no scope), until it is rebuilt
            out += [r for (r,) in conn.execute(f"SELECT rowid FROM chunks WHERE rowid IN ({','.join('?' * len(part))})"
                                               " AND project IS NOT NULL AND project != ?", (*part, project))]
    return out


def _fetch(conn, rowids) -> dict:
    rows, cursor = {}, conn.cursor()
    cursor.row_factory = None  # tuples zipped with the column names: dict() of a sqlite3.Row costs twice as much
    for start in range(0, len(rowids), 500):
        part = rowids[start:start + 500]
        marks = ",".join("?" * len(part))
        try:
            cursor.execute(f"SELECT {_COLUMNS} FROM chunks WHERE rowid IN ({marks})", part)
        except sqlite3.OperationalError:  # an index an older rlm-mem made, until the worker rebuilds it
            cursor.execute(f"SELECT {_OLDER_COLUMNS} FROM chunks WHERE rowid IN ({marks})", part)
        names = [column[0] for column in cursor.description]
        for values in cursor.fetchall():
            rows[values[0]] = dict(zip(names, values))
    return rows


def _weight(row, prompt, project, now, why) -> float:
    """Everything but text relevance, as one factor (see the module doc)."""
    weight = KIND_WEIGHT.get(row["kind"], 1.0) * TYPE_WEIGHT.get(row["type"], 1.0)
    weight *= 0.6 + 0.5 * float(row["confidence"] if row["confidence"] is not None else 0.8)
    weight *= 1.0 + 0.5 * min(1.0, _salience(row, now))
    if row["status"] == "contested":
        weight *= 0.7
    elif row["status"] == "superseded":
        weight *= SUPERSEDED_WEIGHT
    label = speaker_label(row["content"])[0] if prompt.names else None
    speaker = label.split(" ", 1)[0] if label else None
    if speaker and speaker.lower() in prompt.names:
        weight *= SPEAKER_BOOST
        why.append("speaker")
    if prompt.dates and _about_dates(row, prompt.dates):
        weight *= DATE_BOOST
        why.append("date")
    if prompt.wants and not prompt.stated_kinds.isdisjoint(row["value_kinds"].split()):
        weight *= VALUE_KIND_BOOST
        why.append("value")
    if row["tags"]:
        shared = len(set(row["tags"].split()) & prompt.lower_words)
        if shared:
            weight *= TAG_BOOST ** min(shared, 2)
            why.append("tag")
    if project:
        if row["scope"] in SHARED_SCOPES and row["project"] != project:
            why.append(row["scope"])  # the person's own, said in another project: as much theirs here
        elif row["project"] is None:
            weight *= GLOBAL_WEIGHT
    return weight


def _salience(row, now) -> float:
    # An old, never used turn: salience has decayed to nothing (and it costs time to say so). Stored times are ISO,
    # so comparing the day as a string tells whether it is recent.
    if not (row["pinned"] or row["access_count"] or row["kind"] != "turn" or row["created"][:10] >= now.recent_from):
        return 0.0
    return salience(row, now.epoch)


def _about_dates(row, spans) -> bool:
    from brain.util.timeref import (  # re and datetime: dated prompts only
        day_of,
        overlaps,
        stored_spans,
    )

    day = day_of(row["created"])
    if day is None:
        return False
    if overlaps(spans, day, day):
        return True
    return any(overlaps(spans, first, last, 0) for first, last in stored_spans(row["when_spans"]))


# ---------------------------------------------------------------------------------------------- the budget
def _fill(ranked, budget, limit, depth, conn, words) -> list:
    """Best first into the token budget; text already shown (or contained in something shown) is skipped."""
    used = 0
    items, shown = [], []
    floor = RELATIVE_CUT * ranked[0][0] if ranked else 0.0
    for score, row, why in ranked[:FILL_SCAN]:
        if len(items) >= limit or budget - used < 12 or score < floor:
            break
        length = len(row["content"]) if depth == "complete" else min(len(row["content"]), MAX_ITEM_CHARS)
        room, fit = budget - used, MAX_ITEM_CHARS
        if depth != "summary" and length // 4 + 8 > room:
            if items or depth != "full" or room < EXCERPT_MIN_TOKENS:
                continue  # cannot fit: skip before rendering it
            fit = (room - 20) * 4  # the best memory's sentences around the prompt's words, rather than none of it
        key = _plain(row["content"] if row["kind"] == "turn" else without_label(row["content"]))
        if not key or any(key == other or (len(key) >= 24 and key in other) for other in shown):
            continue
        if row["status"] == "superseded" and "replaced_by" not in row:
            by = conn.execute("SELECT dst FROM links WHERE src=? AND type='superseded_by' ORDER BY dst DESC LIMIT 1",
                              (row["id"],)).fetchone()
            row["replaced_by"] = by[0] if by else None
        item = RecallItem(row, score, _shown_text(row, depth, conn, words, fit), why)
        cost = estimate_tokens(item.line()) + (0 if any(i.day == item.day for i in items) else 3)  # a day line
        replaced = [i for i, other in enumerate(shown) if len(other) >= 24 and other in key]  # says it all and more
        refund = sum(estimate_tokens(items[i].line()) for i in replaced)
        if used - refund + cost > budget:
            continue
        for i in reversed(replaced):
            del items[i], shown[i]
        items.append(item)
        shown.append(key)
        used += cost - refund
    return items


def _plain(text: str) -> str:
    return " ".join(word_runs(text.lower()))


def _shown_text(row, depth, conn, words=(), limit: int = MAX_ITEM_CHARS) -> str:
    chunk = {"id": row["id"], "content": row["content"], "type": row["type"],
             "metadata": {k: row[k] for k in ("created", "kind", "project", "conversation_id", "confidence",
                                              "status", "sensitivity") if row.get(k) is not None},
             "tags": row["tags"].split() if row["tags"] else []}
    if depth == "summary":
        text = depths.summary_line(chunk)
    elif depth == "outcome":
        text = depths.outcome_text(chunk)
    else:
        text = " ".join(row["content"].split())
        if depth == "full" and len(text) > limit:
            text = _excerpt(text, words, limit)
    if depth != "summary":
        text += row["when_note"]  # " (yesterday = 2023-05-07 (Sun))", resolved when the memory was indexed
    if depth == "complete":
        links = conn.execute("SELECT type, dst FROM links WHERE src=? ORDER BY type, dst", (row["id"],)).fetchall()
        fields = [f"created {row['created']}", f"type {row['type']}", f"kind {row['kind']}",
                  f"confidence {row['confidence']}"]
        fields += [f"{k} {row[k]}" for k in ("role", "project", "conversation_id", "sensitivity") if row.get(k)]
        if row["tags"]:
            fields.append("tags " + ", ".join(row["tags"].split()))
        if row["files"]:
            fields.append("files " + ", ".join(row["files"].split("\n")))
        fields += [f"{t} {d}" for t, d in links]
        text += " {" + "; ".join(fields) + "}"
    return text


def _excerpt(text: str, words, limit: int) -> str:
    """The sentences of a long memory that hold the prompt's words, with the sentence either side of each (in
    their order, gaps marked …), within `limit` characters; `rlm-mem get ID` shows the rest."""
    parts = sentences(text)
    stems = [w[:5] for w in words]  # "deploying" meets "deploy", without a stemmer
    hits = [sum(stem in p.lower() for stem in stems) for p in parts]
    wanted = sorted((i for i in range(len(parts)) if hits[i]), key=lambda i: (-hits[i], i))
    wanted += [j for i in list(wanted) for j in (i - 1, i + 1) if 0 <= j < len(parts)]
    chosen, size = set(), 0
    for i in wanted:
        if i not in chosen and size + len(parts[i]) + 2 <= limit:
            chosen.add(i)
            size += len(parts[i]) + 2
    if not chosen:
        return text[: limit // 2].rsplit(" ", 1)[0] + " …"
    out, previous = [], -1
    for i in sorted(chosen):
        if i != previous + 1:
            out.append("…")
        out.append(parts[i])
        previous = i
    if previous != len(parts) - 1:
        out.append("…")
    return " ".join(out)


def _reading_order(items) -> list:
    """Best first, but turns of one conversation that were chosen together read in their own order."""
    groups, where = [], {}
    for item in items:
        key = item.conversation_id if item.kind == "turn" and item.conversation_id else id(item)
        if key in where:
            groups[where[key]].append(item)
        else:
            where[key] = len(groups)
            groups.append([item])
    return [item for group in groups for item in sorted(group, key=lambda i: i.created)]
