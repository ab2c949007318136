"""Values written in text: durations ("14 days"), times of day ("04:30 UTC"), URLs and host names, versions and
other numbered things ("Node 18", "port 8090"), long numbers. Capture follows how they change (a value replaced by
another); the search index keeps which kinds a memory states, so that "how long ...?" favours a memory holding a
duration. Regex-based: writers and the capture worker use it, never the prompt hook.
"""
import re

_UNITS = (r"ms|milliseconds?|seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|"
          r"kb|mb|gb|tb|percent|%|requests?|times|retries|workers|replicas|threads|connections")
UNIT_VALUE = re.compile(rf"\b(\d+(?:\.\d+)?)\s?({_UNITS})\b", re.IGNORECASE)
_TIME = re.compile(r"\b([01]?\d|2[0-3]):[0-5]\d(?:\s?UTC)?\b")
_URL = re.compile(r"\bhttps?://[^\s'\"<>)\]`,]+")
_HOST = re.compile(r"\b(?=[a-z0-9-]*[a-z])[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:dev|io|com|net|org|app|cloud|co|ai|sh|"
                   r"internal|local)\b", re.IGNORECASE)
SUBJECT_NUMBER = re.compile(r"\b([A-Za-z][A-Za-z+#]{1,20})(?:\s+v?|[:@]v?)(\d+(?:\.\d+){0,2})\b")
_LONG_NUMBER = re.compile(r"(?<![\w.])\d{3,6}(?![\w.])")
ASSIGNED_NUMBER = re.compile(r"\b([A-Za-z_]{2,40})\s*[=:]\s*(\d+(?:\.\d+)?)\b")
PATH = re.compile(r"(?<![\w/.-])(?:\.{0,2}/)?[\w.-]+(?:/[\w.-]+)+/?")
# Subjects that say nothing on their own ("at 5", "to 20", "in 3").
WEAK_SUBJECTS = frozenset("at to in on of for from by with and or the a an is are was were be it its this that "
                           "than about around over under up down last next every each all some any only after "
                           "before since until step steps line lines page pages item items".split())

def value_kinds(text: str) -> list:
    """(kind, value) for each specific value written in `text`, in order."""
    out = []
    for m in _URL.finditer(text):
        out.append(("url", m.group(0).rstrip(".")))
    for m in _HOST.finditer(text):
        if not any(m.group(0) in v for k, v in out if k == "url"):
            out.append(("host", m.group(0)))
    for m in UNIT_VALUE.finditer(text):
        out.append(("unit:" + _unit(m.group(2)), f"{m.group(1)} {m.group(2)}"))
    for m in _TIME.finditer(text):
        out.append(("time", m.group(0)))
    for m in SUBJECT_NUMBER.finditer(text):
        subject = m.group(1)
        if subject.lower() not in WEAK_SUBJECTS and not UNIT_VALUE.match(text, m.start(2)):
            out.append(("subject:" + subject.lower(), f"{subject.title() if subject.islower() else subject} "
                                                      f"{m.group(2)}"))
    for m in _LONG_NUMBER.finditer(text):
        out.append(("number", m.group(0)))
    return out


def _unit(word: str) -> str:
    word = word.lower()
    for base in ("millisecond", "second", "minute", "hour", "day", "week", "month", "year", "request"):
        if word.startswith(base[:3]) and (word.startswith(base) or len(word) <= 4):
            return base
    return word.rstrip("s")



_DURATION_UNITS = frozenset(("millisecond", "ms", "second", "sec", "minute", "min", "hour", "hr", "day", "week", "month",
                             "year"))


_TODO = re.compile(r"\b(?:next steps?|follow-?ups?|todo|to-do|still to do|left to do|pending)\b|\bTODO\b",
                   re.IGNORECASE)


def coarse_kinds(text: str) -> str:
    """The kinds of value `text` states, space-separated: duration, quantity, time, url, port, version, number,
    and todo for text that says what is left to do."""
    kinds = {"todo"} if _TODO.search(text) else set()
    for kind, _ in value_kinds(text):
        if kind.startswith("unit:"):
            kinds.add("duration" if kind[5:] in _DURATION_UNITS else "quantity")
        elif kind == "subject:port":
            kinds.add("port")
        elif kind.startswith("subject:"):
            kinds.add("version")
        else:
            kinds.add("url" if kind == "host" else kind)
    return " ".join(sorted(kinds))
