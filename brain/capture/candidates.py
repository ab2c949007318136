"""MEMORY_CANDIDATES: the block printed when memory cannot be written, and reading that block back.

Format (reference/livehud.md):

    ## System Notes

    [MEMORY_CANDIDATES]
    1. user_prefers_dark_themes.md — category: present — tags: [preference, ui]
       ---
       User explicitly stated preference for dark mode interfaces.

The reader is lenient: the heading and the marker are optional, items may or may not be indented, "-" or "–" may
stand for the em dash, content may span lines. It stops at the next unindented Markdown heading, a `[MARKER]`
line or a code fence. Content that itself contains numbered `name.md — category:` lines cannot round-trip.

A candidate is redacted when it is made (file name, category, tags, content), so the block a session prints on
stderr, the fallback file and whatever is imported from them never carry a secret.
"""
import os
import re
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from brain.capture.queue import safe_name
from brain.safety.redact import redact
from brain.util.files import atomic_write_text, ensure_dir

CATEGORIES = ("past", "present", "future")
HEADING = "## System Notes"
MARKER = "[MEMORY_CANDIDATES]"
INDENT = "   "
MIN_WORDS, MAX_WORDS = 3, 10
_FILLER = ("memory", "note")  # pads names that are too short to be descriptive
_DROPPED = {"a", "an", "the"}


@dataclass(frozen=True)
class MemoryCandidate:
    """One memory that could not be saved. Values are normalised on creation (see `__post_init__`)."""

    filename: str
    category: str = "present"
    tags: tuple = field(default_factory=tuple)
    content: str = ""

    def __post_init__(self):
        # frozen: normalise through object.__setattr__ so equal input always gives equal candidates
        object.__setattr__(self, "filename", _redacted_name(str(self.filename)))
        object.__setattr__(self, "category", redact(str(self.category)).strip().lower() or "present")
        tags = [self.tags] if isinstance(self.tags, str) else list(self.tags or ())
        object.__setattr__(self, "tags", tuple(t for t in (redact(str(t)).strip() for t in tags) if t))
        object.__setattr__(self, "content", _normalise_content(redact(str(self.content or ""))))

    @classmethod
    def from_dict(cls, d: dict) -> "MemoryCandidate":
        return cls(filename=d.get("filename") or d.get("name") or "", category=d.get("category") or "present",
                   tags=d.get("tags") or (), content=d.get("content") or "")


def _redacted_name(name: str) -> str:
    """A file name redacted also as the words it joins with "_" (a token glued to "bot_token_" is not a token's
    start): read with spaces, any secret found makes the name the redacted words, joined again."""
    redacted = redact(name).strip()
    spaced = redacted.replace("_", " ")
    found = redact(spaced)
    if redacted == name.strip() and found == spaced:
        return redacted
    # a secret was in it: the name becomes the redacted words as a file name ("…_redacted_password.md"), which
    # the block's reader keeps as it is (a marker's brackets would not survive being read back)
    return slug_filename(found)


def _normalise_content(text) -> str:
    lines = [line.rstrip() for line in str(text or "").replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return "\n".join(lines).strip("\n")


def slug_filename(text: str) -> str:
    """A memory file name from free text: 3–10 lowercase ASCII words joined by underscores, ending in `.md`.
    Made from the redacted text, so a secret's pieces cannot become the words of a name."""
    text = redact(str(text or "")).strip()
    if _is_slug(text):
        return text  # already a good name: keep it (slug_filename is idempotent)
    text = re.sub(r"\.md$", "", text, flags=re.IGNORECASE)
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    words = [w[:24] for w in re.findall(r"[a-z0-9]+", ascii_text) if w not in _DROPPED]
    words = words[:MAX_WORDS]
    if not words:
        words = list(_FILLER) + ["untitled"]
    elif len(words) < MIN_WORDS:
        words = list(_FILLER[: MIN_WORDS - len(words)]) + words
    return "_".join(words) + ".md"


def _is_slug(name: str) -> bool:
    stem = name[:-3] if name.endswith(".md") else None
    return bool(stem and re.fullmatch(r"[a-z0-9]+(?:_[a-z0-9]+){%d,%d}" % (MIN_WORDS - 1, MAX_WORDS - 1), stem))


def _as_candidate(c) -> MemoryCandidate:
    return c if isinstance(c, MemoryCandidate) else MemoryCandidate.from_dict(c)


def format_candidates(cands) -> str:
    """The System Notes block for these candidates (dicts or MemoryCandidate). ValueError on a bad category."""
    items = []
    for number, cand in enumerate((_as_candidate(c) for c in cands), start=1):
        if cand.category not in CATEGORIES:
            raise ValueError("category must be past, present or future")
        name = cand.filename if _is_slug(cand.filename) else slug_filename(cand.filename or cand.content)
        tags = ", ".join(cand.tags)
        body = "\n".join(INDENT + line if line else "" for line in cand.content.split("\n"))
        items.append(f"{number}. {name} — category: {cand.category} — tags: [{tags}]\n{INDENT}---\n{body}".rstrip())
    return f"{HEADING}\n\n{MARKER}\n" + "\n\n".join(items) + "\n"


_DASH = r"(?:—|–|-{1,2})"
_ITEM = re.compile(
    rf"^(?P<indent>\s*)\d+[.)]\s+[`*]*(?P<filename>[^\s`*]+?)[`*]*\s*{_DASH}\s*category\s*:\s*(?P<category>[A-Za-z]+)"
    rf"(?:\s*{_DASH}\s*tags\s*:\s*\[?(?P<tags>[^\]]*?)\]?)?\s*$",
    re.IGNORECASE)
_SEPARATOR = re.compile(r"^\s*-{3,}\s*$")
_STOP = re.compile(r"^(?:#{1,6}\s|\[/?[A-Z_]+\]\s*$|```)")


def parse_candidates(text: str) -> list:
    """The candidates in a MEMORY_CANDIDATES block (or in any text holding such items), in order."""
    lines = str(text or "").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    start = next((i + 1 for i, line in enumerate(lines) if line.strip() == MARKER), 0)
    found, current = [], None
    for line in lines[start:]:
        item = _ITEM.match(line)
        if item:
            current = {"head": item, "indent": len(item["indent"]), "body": [], "separated": False}
            found.append(current)
            continue
        if _STOP.match(line) and (current is None or not line.startswith(" ")):
            if found:
                break
            continue
        if current is None:
            continue
        if not current["separated"] and not "".join(current["body"]).strip() and _SEPARATOR.match(line):
            current.update(separated=True, body=[])
            current["indent"] = len(line) - len(line.lstrip())  # content is indented like the separator
            continue
        if current["indent"] and line.strip() and not line[0].isspace():
            break  # unindented prose after indented items: the block has ended
        current["body"].append(line)
    return [_candidate_from(c) for c in found]


def _candidate_from(raw: dict) -> MemoryCandidate:
    head, indent = raw["head"], raw["indent"]
    if not raw["separated"]:  # no "---" to show the indentation: use the body's own
        indent = min((len(ln) - len(ln.lstrip(" \t")) for ln in raw["body"] if ln.strip()), default=0)
    body = []
    for line in raw["body"]:
        lead = len(line) - len(line.lstrip(" \t"))
        body.append(line[min(lead, indent):])
    tags = [t.strip().strip("'\"") for t in (head["tags"] or "").split(",")]
    return MemoryCandidate(filename=head["filename"], category=head["category"], tags=tags, content="\n".join(body))


# --- when memory cannot be written: keep the block where the person can find it --------------------------------

def fallback_folder() -> Path | None:
    """Where MEMORY_CANDIDATES are kept when memory itself cannot be written (None if nowhere is writable)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    for folder in (Path(base) / "rlm-mem" / "candidates", Path(os.environ.get("TMPDIR", "/tmp")) / "rlm-mem-candidates"):
        try:
            ensure_dir(folder)
            if os.access(folder, os.W_OK):
                return folder
        except OSError:
            continue
    return None


def keep_candidates(text: str, session_id: str) -> Path | None:
    folder = fallback_folder()
    if folder is None:
        return None
    path = folder / f"{safe_name(session_id)}-{int(time.time())}.md"
    try:
        atomic_write_text(path, text)
        return path
    except OSError:
        return None
