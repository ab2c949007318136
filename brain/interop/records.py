"""What every import format produces and what an import or export reports.

A format reader turns source files into `Record`s (one memory each, possibly long: the importer splits it) and
`LinkRequest`s (a relation between two records named by the source's own identifiers, resolved once everything
is written). Readers never touch the store; the importer does.
"""
import hashlib
import json
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path

import yaml
from frontmatter.default_handlers import YAMLHandler

from brain.safety.redact import redact_value
from brain.util.files import read_bytes
from brain.util.timestamps import normalize_timestamp, timestamp_or_none

MAX_SOURCE_BYTES = 64 * 1024 * 1024  # one memory file (markdown, a MEMORY.md, a candidates block) at most


@dataclass
class Issue:
    """A problem with one source: the file (and line, when there is one) and what is wrong."""

    path: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


@dataclass
class Record:
    """One memory read from a source, before it becomes chunks.

    `ident` is the record's identity inside its format (a file name, a UUID, an id): with a digest of the content it
    makes the chunk id stable, so importing the same source twice stores nothing new. `ref_name` is how other
    records of the same import refer to this one. `chunk` holds a complete chunk to restore as it is (rlm-mem's
    own exports: same id, links and metadata); `keep_id` keeps a record's chunk id when the rest is built.
    """

    content: str
    ident: str
    file: str
    line: int | None = None
    chunk_type: str | None = None
    tags: list = field(default_factory=list)
    created: str | None = None
    confidence: float = 0.8
    conversation_id: str | None = None
    source: str = "import"
    metadata: dict = field(default_factory=dict)
    links: dict = field(default_factory=dict)
    ref_name: str | None = None
    chunk: dict | None = None
    keep_id: str | None = None
    offset: int | None = None  # bytes of the source file consumed once this record is read (progress)


@dataclass
class LinkRequest:
    """`src` relates to `dst` (both refs of records in this import). link_type "supersede" means src replaces dst."""

    src: str
    link_type: str
    dst: str
    file: str
    original: dict | None = None  # what the source said of the relation beyond type, strength and context
    strength: float | None = None  # seed 003's relation strength (0-1) and context sentence: metadata.relations
    context: str | None = None


@dataclass
class ImportReport:
    format: str = ""
    created: int = 0
    skipped_existing: int = 0
    links: int = 0
    unresolved_links: int = 0
    files: int = 0
    errors: list = field(default_factory=list)
    ids: list = field(default_factory=list)  # ids of the chunks created, in order
    bad_paths: list = field(default_factory=list)  # given paths from which nothing at all could be imported

    def error(self, path, message: str, line: int | None = None) -> None:
        self.errors.append(Issue(str(path), message, line))

    def summary(self) -> str:
        parts = [f"imported {self.created} chunk{'s' * (self.created != 1)}",
                 f"{self.skipped_existing} already present"]
        if self.links:
            parts.append(f"{self.links} link{'s' * (self.links != 1)}")
        if self.unresolved_links:
            parts.append(f"{self.unresolved_links} link{'s' * (self.unresolved_links != 1)} to memories not imported")
        if self.errors:
            parts.append(f"{len(self.errors)} error{'s' * (len(self.errors) != 1)}")
        return f"{', '.join(parts)} ({self.format}, {self.files} file{'s' * (self.files != 1)})"

    def to_dict(self) -> dict:
        return {"format": self.format, "created": self.created, "skipped_existing": self.skipped_existing,
                "links": self.links, "unresolved_links": self.unresolved_links, "files": self.files,
                "errors": [str(e) for e in self.errors], "ids": list(self.ids),
                "bad_paths": list(self.bad_paths)}


@dataclass
class ExportReport:
    format: str
    out_dir: str
    chunks: int = 0
    files: list = field(default_factory=list)

    def summary(self) -> str:
        return f"exported {self.chunks} chunk{'s' * (self.chunks != 1)} as {self.format} to {self.out_dir}"

    def to_dict(self) -> dict:
        return {"format": self.format, "out_dir": self.out_dir, "chunks": self.chunks, "files": len(self.files)}


class SourceError(Exception):
    """A whole source cannot be read (missing, unreadable, not this format)."""


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def read_text(path: Path) -> str:
    """A source file as text. Bytes, not text mode: a lone \\r inside a memory must survive. Only a regular file
    of at most MAX_SOURCE_BYTES is read (a device or a FIFO is refused before any read)."""
    try:
        data = read_bytes(path, MAX_SOURCE_BYTES, follow_links=True)
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror or exc}") from None
    if b"\x00" in data[:8192]:
        raise SourceError("not a text file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(f"not UTF-8 text (byte {exc.start})") from None


def plain(value):
    """YAML values as JSON-ready ones: dates and datetimes (unquoted in hand-written YAML) become ISO text."""
    if isinstance(value, datetime):
        return normalize_timestamp(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def split_frontmatter(text: str, *, keep_newlines: bool = False) -> tuple:
    """(frontmatter dict, body) via python-frontmatter's YAML handler; ({}, text) when there is none.

    The frontmatter comes back redacted: readers turn its values into titles and names ("api_key" → "api key"),
    and a secret must be caught in the form it was written. SourceError on unreadable YAML. `keep_newlines`: leave \r\n in the body as it is (frontmatter.loads would turn
    it into \n, and rlm-mem's own export must give back the exact content).
    """
    handler = YAMLHandler()
    text = (text if keep_newlines else text.replace("\r\n", "\n")).strip()
    if not handler.detect(text):
        return {}, text
    try:
        head, body = handler.split(text)
        meta = handler.load(head)
    except ValueError:
        return {}, text
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""  # +2: the opening --- and 1-based
        raise SourceError(f"the YAML frontmatter cannot be read{where}: {getattr(exc, 'problem', None) or exc}") \
            from None
    return (redact_value(plain(meta)) if isinstance(meta, dict) else {}), body.strip()


def timestamp(value) -> str | None:
    """An ISO 8601 time in rlm-mem's form, or None when absent or unreadable."""
    if value in (None, ""):
        return None
    return timestamp_or_none(value)


def as_tags(value) -> list:
    """Tags from a YAML list, a "[a, b]" string or "a, b"."""
    if value is None:
        return []
    if isinstance(value, str):
        value = value.strip().strip("[]").split(",")
    if not isinstance(value, (list, tuple)):
        value = [value]
    return [t for t in (str(v).strip().strip("'\"#").strip() for v in value) if t]


def number(value, default=None):
    """A float in [0, 1], or the default."""
    try:
        n = float(value)
    except (TypeError, ValueError):
        return default
    return n if 0.0 <= n <= 1.0 else default


def with_title(title: str | None, body: str) -> str:
    """Content that stands on its own: the title first (recall searches content, not titles), then the body."""
    body = body.strip()
    title = (title or "").strip()
    if not title or body.lower().startswith(title.lower()):
        return body or title
    return f"{title}\n\n{body}" if body else title


def file_time(path: Path) -> str | None:
    """A file's modification time, for sources that do not say when a memory was written."""

    try:
        return datetime.fromtimestamp(Path(path).stat().st_mtime, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    except OSError:
        return None


def jsonable(value) -> bool:
    try:
        json.dumps(value)
        return True
    except (TypeError, ValueError):
        return False


def md_files(folder: Path, *, skip=()) -> list:
    """Markdown files under a folder, sorted, no symlinks, none inside hidden folders or `skip` names."""
    out = []
    for path in sorted(Path(folder).rglob("*.md")):
        rel = path.relative_to(folder).parts
        if any(p.startswith(".") for p in rel) or path.is_symlink() or not path.is_file():
            continue
        if path.name in skip or any(p in skip for p in rel[:-1]):
            continue
        out.append(path)
    return out
