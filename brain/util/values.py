"""Values written in text: durations ("14 days", and in code `10 * time.Minute`, `Duration::from_secs(30)`,
`timedelta(minutes=15)`), times of day ("04:30 UTC"), cron schedules ("0 */6 * * *"), URLs and host names, versions
and other numbered things ("Node 18", "port 8090"), long numbers. Capture follows how they change (a value replaced by
another); the search index keeps which kinds a memory states, so that "how long ...?" favours a memory holding a
duration. Regex-based: writers and the capture worker use it, never the prompt hook.
"""
import re

from brain.util.text import case_folded

_UNITS = (r"ms|milliseconds?|seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|"
          r"kb|mb|gb|tb|percent|%|requests?|times|retries|tries|attempts|workers|replicas|threads|connections")
UNIT_VALUE = re.compile(rf"\b(\d+(?:\.\d+)?)\s?({_UNITS})\b", re.IGNORECASE)
_TIME = re.compile(r"\b([01]?\d|2[0-3]):[0-5]\d(?:\s?UTC)?\b")
_URL = re.compile(r"\bhttps?://[^\s'\"<>)\]`,]+")
# Labels of at most 63 characters, at most ten of them (as DNS has it): the bounds keep a long run of "a-a-a-..."
# from being rescanned from every position.
_HOST = re.compile(r"\b(?=[a-z0-9-]{0,62}[a-z])[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){0,8}\."
                   r"(?:dev|io|com|net|org|app|cloud|co|ai|sh|internal|local)\b", re.IGNORECASE)
SUBJECT_NUMBER = re.compile(r"\b([A-Za-z][A-Za-z+#]{1,20})(?:\s+v?|[:@]v?)(\d+(?:\.\d+){0,2})\b")
_LONG_NUMBER = re.compile(r"(?<![\w.])\d{3,6}(?![\w.])")
# `pool = 10`, `version: 0.3.1` (whole), and names as YAML writes them: `maximum-pool-size: 12`
ASSIGNED_NUMBER = re.compile(r"\b([A-Za-z_][A-Za-z_-]{0,38}[A-Za-z_])\s*[=:]\s*(\d+(?:\.\d+){0,3}(?:[eE][-+]?\d+)?)\b"
                             r"(?!\.\d)")  # `lr: 3e-4`: a learning rate is written in scientific notation
# Durations as code writes them; each is read as "N unit" so that it matches the same value in prose.
_GO_DURATION = re.compile(r"(?:\b(\d+(?:\.\d+)?)\s*\*\s*)?\btime\.(Millisecond|Second|Minute|Hour)\b")
_CALL_DURATION = re.compile(r"\b(?:Duration|TimeDelta)(?:::from_|::|\.of)(millis|secs|mins|hours|days|weeks|minutes|"
                            r"seconds|Millis|Seconds|Minutes|Hours|Days)\((\d+)\)")
_DOT_DURATION = re.compile(r"(?<![\w.])(\d+)\.(seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b")  # 72.hours
# Go, Kubernetes and Prometheus write durations with one letter: maxAge: 72h, timeout: 30s, for: 5m, retention 15d.
_SHORT_DURATION = re.compile(r"(?<![\w.])(\d+)([smhd])(?!\w|\.\d)")
_SHORT_UNITS = {"s": "second", "m": "minute", "h": "hour", "d": "day"}
# ISO 8601, as Java's Duration and Spring write them: PT30M, PT2H, P7D.
_ISO_DURATION = re.compile(r"(?<![\w.])P(?:T(\d+)([HMS])|(\d+)([DW]))(?![\w.])")
_ISO_UNITS = {"H": "hour", "M": "minute", "S": "second", "D": "day", "W": "week"}
_KEYWORD_DURATION = re.compile(r"\b(weeks|days|hours|minutes|seconds|milliseconds)\s*=\s*(\d+(?:\.\d+)?)\b")
_CODE_UNITS = {"millis": "millisecond", "secs": "second", "mins": "minute", "seconds": "second", "minutes": "minute",
               "hours": "hour", "days": "day", "weeks": "week", "milliseconds": "millisecond"}
# Five cron fields (six with seconds first) in quotes or backticks ("30 2 * * *", `0 */6 * * *`), one a number, and
# perhaps a time zone after them.
_CRON = re.compile(r"(?<=[\"'`])(?=[^\"'`]*\d)((?:[\d*/,-]+[ \t]+){4,5}[\d*/,-]+)"
                   r"(?=(?:[ \t]+[A-Z][A-Za-z_]+/[A-Za-z_]+)?[\"'`])")  # sidekiq-cron: "0 22 * * 3 Europe/Berlin"
# A whole number of a larger unit reads as that unit (3600 seconds is "1 hour", said "every hour").
_LARGER = (("millisecond", 1000, "second"), ("second", 60, "minute"), ("minute", 60, "hour"), ("hour", 24, "day"))
# A container image whose tag names a variant ("node:20-alpine", "rust:1.82-slim"), or any image a Dockerfile's FROM
# line names: the variant changes ("alpine" to "bookworm-slim") where the version number does not.
_IMAGE = re.compile(r"(?<![\w/.:@-])((?:[a-z0-9][a-z0-9.-]*/)*[a-z0-9][a-z0-9._-]*:\d[\w.]*-[A-Za-z][\w.-]*)"
                    r"(?![\w:/@-])")
_FROM_IMAGE = re.compile(r"(?m)^[ \t]*FROM\s+(?:--platform=\S+\s+)?([a-z0-9][\w./-]*(?::[\w.-]+)?)(?=\s|$)")
PATH = re.compile(r"(?<![\w/.-])(?:\.{0,2}/)?[\w.-]+(?:/[\w.-]+)+/?")
# Subjects that say nothing on their own ("at 5", "to 20", "in 3").
WEAK_SUBJECTS = frozenset("at to in on of for from by with and or the a an is are was were be it its this that "
                           "than about around over under up down last next every each all some any only after "
                           "before since until step steps line lines page pages item items".split())

# Cheap tests that a pattern cannot match (what each requires, found by a literal scan): most memories hold no URL,
# many no digit, and the host pattern tries every word (a 100k-memory reindex runs these on every memory).
_HOST_HINT = re.compile(r"\.(?:dev|io|com|net|org|app|cloud|co|ai|sh|internal|local)\b", re.IGNORECASE)
_DIGIT = re.compile(r"\d")


DURATION_KINDS = frozenset("unit:millisecond unit:second unit:minute unit:hour unit:day unit:week unit:month".split())


def named(value: str) -> bool:
    """A name that can stand for a tool or a thing (not a common word): what a replace sentence may change."""
    value = value.strip(".,;:()`'\"")
    return 3 <= len(value) <= 40 and value.lower() not in WEAK_SUBJECTS and not value.isdigit()


def value_kinds(text: str) -> list:
    """(kind, value) for each specific value written in `text`, in order."""
    out = []
    if "://" in text:
        for m in _URL.finditer(text):
            out.append(("url", m.group(0).rstrip(".")))
    if _HOST_HINT.search(text):
        for m in _HOST.finditer(text):
            if not any(m.group(0) in v for k, v in out if k == "url"):
                out.append(("host", m.group(0)))
    if not _DIGIT.search(text):  # every pattern below but code durations (`time.Second`) needs a digit
        for unit, number in _code_durations(text):
            out.append(_code_duration(unit, number))
        return out
    for m in UNIT_VALUE.finditer(text):
        out.append(("unit:" + _unit(m.group(2)), f"{m.group(1)} {m.group(2)}"))
    if "." in text:  # Ruby and Kotlin write `72.hours`: said as written, "72 hours"
        for m in _DOT_DURATION.finditer(text):
            out.append(("unit:" + _unit(m.group(2)), f"{m.group(1)} {m.group(2)}"))
    for unit, number in _code_durations(text):
        out.append(_code_duration(unit, number))
    for m in _SHORT_DURATION.finditer(text):  # said in words: "72 hours" (holds_value finds 72h)
        out.append(_in_words(m.group(1), _SHORT_UNITS[m.group(2)]))
    if "P" in text:
        for m in _ISO_DURATION.finditer(text):  # "30 minutes" (holds_value finds PT30M)
            out.append(_in_words(m.group(1) or m.group(3), _ISO_UNITS[m.group(2) or m.group(4)]))
    for m in _TIME.finditer(text):
        out.append(("time", m.group(0)))
    for m in _CRON.finditer(text):
        out.append(("cron", " ".join(m.group(1).split())))
    for m in SUBJECT_NUMBER.finditer(text):
        subject = m.group(1)
        if subject.lower() not in WEAK_SUBJECTS and not UNIT_VALUE.match(text, m.start(2)):
            out.append(("subject:" + subject.lower(), f"{subject.title() if subject.islower() else subject} "
                                                      f"{m.group(2)}"))
    for m in _LONG_NUMBER.finditer(text):
        out.append(("number", m.group(0)))
    if ":" in text or "FROM" in text:
        images = [m.group(1).rstrip(".") for m in _IMAGE.finditer(text)] if ":" in text else []
        if "FROM" in text:
            images += [m.group(1) for m in _FROM_IMAGE.finditer(text) if any(c.isdigit() for c in m.group(1))]
        out += [("image", image) for image in dict.fromkeys(images)]
    return out


def _in_words(number: str, unit: str) -> tuple:
    """A duration written with a letter (72h, PT30M) as a kind and the words prose says it in: "72 hours"."""
    return f"unit:{unit}", f"{number} {unit}{'' if number == '1' else 's'}"


def _code_duration(unit: str, number: float) -> tuple:
    for smaller, factor, larger in _LARGER:
        if unit == smaller and number >= factor and number % factor == 0:
            unit, number = larger, number / factor
    return f"unit:{unit}", f"{_number(number)} {unit}{'' if number == 1 else 's'}"


def _code_durations(text: str):
    """(unit, number) for each duration written as code: `10 * time.Minute`, `time.Second`, `Duration::from_secs(30)`,
    `Duration.ofMinutes(5)`, `timedelta(minutes=15)`."""
    if "time." in text:
        for m in _GO_DURATION.finditer(text):
            yield m.group(2).lower(), float(m.group(1) or 1)
    if "Duration" in text or "TimeDelta" in text:
        for m in _CALL_DURATION.finditer(text):
            yield _CODE_UNITS[m.group(1).lower()], float(m.group(2))
    if "=" in text:
        for m in _KEYWORD_DURATION.finditer(text):
            yield _CODE_UNITS[m.group(1)], float(m.group(2))


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)


def _unit(word: str) -> str:
    word = word.lower()
    for base in ("millisecond", "second", "minute", "hour", "day", "week", "month", "year", "request"):
        if word.startswith(base[:3]) and (word.startswith(base) or len(word) <= 4):
            return base
    if word in ("times", "retries", "tries", "attempts"):  # "retried 3 times" is "3 attempts"
        return "attempt"
    return word.rstrip("s")



_DURATION_UNITS = frozenset(("millisecond", "ms", "second", "sec", "minute", "min", "hour", "hr", "day", "week", "month",
                             "year"))


_TODO = re.compile(r"\b(?:next steps?|next time|follow-?ups?|todo|to-do|still to do|left to do|still open|pending)\b|"
                   r"\bTODO\b",
                   re.IGNORECASE)


_TODO_HINTS = ("next", "follow", "todo", "to-do", "to do", "still open", "pending")


def says_open_work(text: str) -> bool:
    """Whether `text` says what is left to do ("Still open: ...", "Next time ...", "TODO")."""
    folded = case_folded(text)  # _TODO's words are found by a literal scan first (the pattern tries every word)
    return any(hint in folded for hint in _TODO_HINTS) and _TODO.search(text) is not None


def coarse_kinds(text: str) -> str:
    """The kinds of value `text` states, space-separated: duration, quantity, time, url, port, version, number,
    and todo for text that says what is left to do."""
    kinds = {"todo"} if says_open_work(text) else set()
    for kind, _ in value_kinds(text):
        if kind.startswith("unit:"):
            kinds.add("duration" if kind[5:] in _DURATION_UNITS else "quantity")
        elif kind == "subject:port":
            kinds.add("port")
        elif kind.startswith("subject:"):
            kinds.add("version")
        elif kind == "cron":
            kinds.add("time")
        else:
            kinds.add("url" if kind == "host" else kind)
    return " ".join(sorted(kinds))
