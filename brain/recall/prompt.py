"""What recall reads off a prompt: its words, the names, dates and files it mentions, the kind of value it asks
for. No `re` and no `datetime` unless the prompt may hold a date (the prompt hook's start-up is the budget)."""
import time

from brain.recall import weights
from brain.recall.lexicon import (CLAUSE_LEADS, FRAMING, HISTORY_WORDS, PHRASES, QUESTION_OPENERS, RECALLING,
                                  WORK_VERBS, asked_values)
from brain.util.text import STOPWORDS, UPPER, WORD_CHARS, Blanks
from brain.util.text import words as word_runs

_PATH_CHARS = Blanks(lambda ch: ch.isalnum() or ch in "_./-")
_NAME_CHARS = Blanks(lambda ch: ch.isalnum() or ch in "_'-")
STEM_CHARS = 5  # a word's first letters stand for the word ("deploying" meets "deploy", without a stemmer)

# Cheap tests for the dates brain/util/timeref.py reads, so that it (with `re` and `datetime`) loads only for
# text that may hold one. Each accepts everything timeref would find, and more, never less.
_RELATIVE_WORDS = ("yesterday", "today", "tonight", "tomorrow", "ago")  # "ago": "two weeks ago"
_RELATIVE_LEADS = frozenset("last past previous this next coming on".split())  # "last week", "on Friday"
_RELATIVE_UNITS = frozenset("week weekend month year night morning monday tuesday wednesday thursday friday "
                            "saturday sunday".split())
_MONTHS = frozenset("jan january feb february mar march apr april may jun june jul july aug august sep sept "
                    "september oct october nov november dec december".split())
_MONTH_LEADS = frozenset("in during since by until early late mid".split())  # "in May": "may" alone is a verb
_NEGATED = frozenset("don didn doesn isn wasn weren aren couldn shouldn wouldn hasn haven hadn won ain mustn needn "
                     "mightn shan".split())


class Clock:
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
            first = time.gmtime(self.epoch - (weights.RECENT_DAYS - 1) * 86400)
            self.recent_from = "%04d-%02d-%02d" % (first.tm_year, first.tm_mon, first.tm_mday)
        else:
            from datetime import timedelta  # a caller's datetime: datetime is loaded already

            self.recent_from = (now.date() - timedelta(days=weights.RECENT_DAYS - 1)).isoformat()

    def date(self):
        if self._now is None:
            from datetime import (  # only for a prompt with a date (~1 ms otherwise)
                datetime,
                timezone,
            )

            self._now = datetime.fromtimestamp(self.epoch, timezone.utc)
        return self._now.date()


class Prompt:
    """What ranking needs from the prompt: its words, the names and dates it mentions, the files it names."""

    def __init__(self, text: str, files, now, typed: bool = False):
        if len(text) > weights.PROMPT_HEAD + weights.PROMPT_TAIL:  # a pasted log: its start and the question after
            text = text[:weights.PROMPT_HEAD] + "\n" + text[-weights.PROMPT_TAIL:]
        self.text = text
        paths = file_paths(text) if "." in text else []  # a file's path has a dot before its extension
        self.files = {path.rsplit("/", 1)[-1] for path in paths} | {f.rsplit("/", 1)[-1] for f in files if f}
        self.dates = []
        undated = text
        absolute = may_have_calendar_date(text)
        relative = may_have_relative_date(text)
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
        extensions = _extension_counts(paths if undated is text else file_paths(undated))
        self.wants, asking = asked_values(runs)
        self.stated_kinds = stated_kinds(self.wants)  # what a memory's value_kinds holds when it states one
        self.why = "why" in runs  # a reason: said before the decision or change it explains
        self.asks_history = not HISTORY_WORDS.isdisjoint(runs)  # "why did we ...?": about the work done together
        verbs = None if self.asks_history or not typed else work_verbs(undated)
        self.gives_work = verbs is not None  # what it asks to do is no topic: "fix" finds every "fixed by"
        for pair, one in PHRASES.items():  # "log in" is one idea: login
            runs = _joined(runs, pair, one)
        framing = asking | FRAMING | ((verbs or set()) & WORK_VERBS) | _digit_fragments(undated, self.gives_work)
        if extensions:  # "see comments/models.py": the file is matched by name; "py" alone is no topic
            framing |= {ext for ext, count in extensions.items() if runs.count(ext) <= count}
        for i, word in enumerate(runs):
            if word not in STOPWORDS and word not in framing and (len(word) > 1 or word.isdigit()) \
                    and word not in words and not _negated_verb(word, runs[i + 1:i + 2]):
                words.append(word)
        self.words = words[:weights.PROMPT_WORDS]
        self.stems = {word[:STEM_CHARS] for word in self.words}  # which replaced value a memory names
        self.lower_words = set(word_runs(text.lower()))
        self.names = _capitalised(text)
        self.weak = False  # set by ranking: the best memory holds little of the prompt


def _digit_fragments(text: str, versions: bool) -> set:
    """Single digits that stand only inside a longer token: each matches nearly every memory of a store of versions
    and times, and says nothing alone. A version's ("django 5.1") only when `versions` (work to do: "bump it to
    1.4.0" names the new value, which no memory holds yet); always those of other tokens ("^\\d{3}-\\d{4}$")."""
    if not any(ch.isdigit() for ch in text):
        return set()
    inside, alone = set(), set()
    for token in text.lower().split():
        runs = word_runs(token)
        digits = {run for run in runs if len(run) == 1 and run.isdigit()}
        if len(runs) == 1:
            alone.update(digits)
        elif versions or not all(ch.isalnum() or ch in ".,?!" for ch in token):
            inside.update(digits)
    return inside - alone


def work_verbs(text: str):
    """The words that open the clauses of a prompt giving work ("Fix the failing test in tests/test_parser.py",
    "could you bump the version to 1.4.0?", "run the linter, then fix what it reports": fix; bump; run, fix), or
    None when it asks something: a clause of it opens with a question word or ends with a question mark, other than
    a request ("can you ...?"), or it asks memory in so many words ("remind me ...")."""
    lowered = text.lower()
    if not RECALLING.isdisjoint(word_runs(lowered)):
        return None
    verbs = set()
    pieces = lowered.split("?")
    for at, piece in enumerate(pieces):
        # a sentence's full stop ends a clause, the dots of "utils.py" and "1.4" do not
        clauses = [c for c in piece.replace(". ", "\n").replace(".\n", "\n").translate(_CLAUSE_BREAKS).split("\n")
                   if not c.isspace()]
        for number, clause in enumerate(clauses):
            runs = word_runs(clause)
            while runs and runs[0] in CLAUSE_LEADS:
                runs = runs[1:]
            if runs[:1] and runs[0] in _REQUESTING and runs[1:2] == ["you"]:
                runs = runs[2:]  # "can you look at the test?" asks for work
            elif runs[:1] and (runs[0] in QUESTION_OPENERS or (at < len(pieces) - 1 and number == len(clauses) - 1)):
                return None  # a question word, or the clause the question mark ends
            if runs:
                verbs.add(runs[0])
    return verbs


_CLAUSE_BREAKS = str.maketrans(",;:!", "\n\n\n\n")
_REQUESTING = frozenset(("can", "could", "would", "will"))


def stated_kinds(wanted: set) -> set:
    """The value kinds (search.db value_kinds) of a memory stating a value of a kind in `wanted`: a port is often
    written as a bare number ("the proxy forwards to 9400")."""
    return wanted | {"number"} if "port" in wanted else wanted


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


def may_have_relative_date(text: str) -> bool:
    """Whether `text` may say "yesterday", "two weeks ago", "last Friday", "this morning" or the like."""
    lowered = text.lower()
    if any(_has_word(lowered, word) for word in _RELATIVE_WORDS):
        return True
    return any(unit in lowered for unit in ("day", "week", "month", "year", "night", "morning")) \
        and _word_pairs(lowered, _RELATIVE_LEADS, _RELATIVE_UNITS)


def may_have_calendar_date(text: str) -> bool:
    """Whether `text` may name a calendar date: it has a digit ("2023-05-08", "8 May"), or a month after a
    preposition ("in May", "early June"), the only date timeref reads without a digit."""
    return any(ch.isdigit() for ch in text) or _word_pairs(text.lower(), _MONTH_LEADS, _MONTHS)


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


def file_paths(text: str) -> list:
    """The paths to files a text mentions, in order ("see comments/models.py" gives "comments/models.py")."""
    paths = []
    for run in text.translate(_PATH_CHARS).split():
        path = _file_path(run)
        # (a version number is no file: the extension starts with a letter)
        if path and not path.rsplit("/", 1)[-1].lower().startswith(("e.g", "i.e")):
            paths.append(path)
    return paths


def file_names(text: str) -> set:
    """Names of the files a text mentions ("comments/models.py" gives "models.py")."""
    return {path.rsplit("/", 1)[-1] for path in file_paths(text)}


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
