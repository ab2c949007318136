"""The legacy protocol's memory files (brain/memory/allmemories/*.md, reference/livehud.md):

    # [CORRECTION] Staging port
    **Created:** 2026-02-08 14:30
    **Category:** present
    **Tags:** [db, staging]
    ---
    The staging database listens on port 5433.

[CORRECTION] files become corrections (confidence at least 0.95), [CRITICAL] files are pinned, and a line
`DEPRECATED: See ... <new_file>` supersedes this memory by that file when it is imported too.
"""
import re
from pathlib import Path

from brain.interop.records import (
    LinkRequest,
    Record,
    SourceError,
    as_tags,
    file_time,
    md_files,
    read_text,
    timestamp,
    with_title,
)
from brain.safety.redact import redact

FORMAT = "legacy"
CATEGORIES = ("past", "present", "future")
CORRECTION_CONFIDENCE = 0.95

_TITLE = re.compile(r"^#\s+(?P<title>.+?)\s*#*\s*$")
_FIELD = re.compile(r"^\*\*(?P<name>[A-Za-z ]+)(?::\*\*|\*\*:)\s*(?P<value>.*?)\s*$")  # **Name:** or **Name**:
_MARKER = re.compile(r"^\[(CORRECTION|CRITICAL)\]\s*", re.IGNORECASE)
_DEPRECATED = re.compile(r"^[^\w\n]*DEPRECATED\b.*?\bSee\b(?P<rest>.*)$", re.IGNORECASE | re.MULTILINE)
_FILE_NAME = re.compile(r"(?<![\w.\-/])[\w.\-/]+\.md\b|(?<![a-z0-9])[a-z0-9]+(?:_[a-z0-9]+)+")


def looks_like(text: str) -> bool:
    head = text.lstrip()[:600]
    return head.startswith("# ") and bool(re.search(r"^\*\*(Created|Category|Tags):\*\*", head, re.MULTILINE))


def sources(path: Path) -> list:
    return md_files(path) if path.is_dir() else [path]


def parse(text: str) -> dict:
    """Title, fields and body of one legacy file; SourceError when it is not one."""
    lines = text.replace("\r\n", "\n").split("\n")
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    title = _TITLE.match(lines[i]) if i < len(lines) else None
    if not title:
        raise SourceError("no '# Title' line at the top: not a legacy memory file")
    fields, i = {}, i + 1
    while i < len(lines):
        line = lines[i].strip()
        field = _FIELD.match(line)
        if field:
            fields[field["name"].strip().lower()] = field["value"]
        elif re.fullmatch(r"-{3,}", line):
            i += 1
            break
        elif line:
            break  # no separator: the body starts at the first line that is not a field
        i += 1
    body = "\n".join(lines[i:]).strip()
    if not body:
        raise SourceError("the memory has no content below its header")
    return {"title": title["title"].strip(), "fields": fields, "body": body}


def _replacement(body: str) -> str | None:
    """The file named on a DEPRECATED line, as a bare file name."""
    m = _DEPRECATED.search(body)
    if not m:
        return None
    name = _FILE_NAME.search(m["rest"].strip().strip("[]()`'\""))
    if not name:
        return None
    name = Path(name.group(0)).name
    return name if name.endswith(".md") else name + ".md"


def read(src: Path, context=None):
    parsed = parse(read_text(src))
    title, fields, body = parsed["title"], parsed["fields"], parsed["body"]
    marker = _MARKER.match(title)
    flag = marker.group(1).upper() if marker else None
    clean_title = _MARKER.sub("", title).strip() or title
    metadata = {"title": redact(clean_title)[:300], "extra": {"legacy_file": src.name}}  # redacted, then cut
    category = fields.get("category", "").strip().strip("[]").lower()
    if category in CATEGORIES:
        metadata["category"] = category
    elif category:
        metadata["extra"]["category"] = fields["category"]
    created = timestamp(fields.get("created"))
    if fields.get("created") and not created:
        metadata["extra"]["created"] = fields["created"]
    confidence = 0.8
    if flag == "CORRECTION":
        metadata["kind"], confidence = "correction", CORRECTION_CONFIDENCE
    elif flag == "CRITICAL":
        metadata["pinned"] = True
    tags = as_tags(fields.get("tags"))
    yield Record(content=with_title(clean_title, body), ident=src.name, file=str(src), tags=tags,
                 created=created or file_time(src), confidence=confidence, metadata=metadata, ref_name=src.name)
    newer = _replacement(body)
    if newer and newer != src.name:
        yield LinkRequest(src=newer, link_type="supersede", dst=src.name, file=str(src))

