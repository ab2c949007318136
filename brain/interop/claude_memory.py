"""Claude Code's auto memory (~/.claude/projects/<project>/memory/): MEMORY.md, an index of one-line links,
plus topic files with frontmatter `name`, `description`, `type: user|feedback|project|reference`.

Every topic file becomes a memory; the index's link text gives it a title when the file has none. Index lines that
are not links (notes written straight into MEMORY.md) become memories of their own.
"""
import re
from pathlib import Path

from brain.interop.records import (
    Record,
    SourceError,
    as_tags,
    file_time,
    jsonable,
    md_files,
    read_text,
    split_frontmatter,
    timestamp,
    with_title,
)
from brain.safety.redact import redact

FORMAT = "claude-memory"
INDEX = "MEMORY.md"
TYPES = {"user": "fact", "feedback": "preference", "project": "fact", "reference": "note"}
KINDS = {"feedback": "preference"}
_LINK = re.compile(r"\[(?P<title>[^\][]+)\]\((?P<target>[^)\s]+\.md)\)\s*(?:[—–:-]+\s*(?P<hook>.*))?")
_BULLET = re.compile(r"^\s*[-*+]\s+(?P<text>.+?)\s*$")


def looks_like(meta: dict) -> bool:
    return str(meta.get("type", "")).strip().lower() in TYPES and "title" not in meta


def _folder(path: Path) -> Path | None:
    if path.is_dir():
        return path
    return path.parent if path.name == INDEX else None


def sources(path: Path) -> list:
    folder = _folder(path)
    if folder is None:
        return [path]
    files = md_files(folder)
    if not files:
        raise SourceError("no markdown files (MEMORY.md and topic files) in this folder")
    return sorted(files, key=lambda p: (p.name != INDEX, str(p)))  # the index first: it names the topics


def prepare(path: Path, files: list) -> dict:
    """Titles and one-line hooks the index gives each topic file."""
    folder = _folder(path)
    index = folder / INDEX if folder else None
    entries = {}
    if index is not None and index.is_file():
        try:
            text = read_text(index)
        except SourceError:
            return entries
        for line in text.splitlines():
            m = _LINK.search(line)
            if m:
                entries[Path(m["target"]).name] = (redact(m["title"].strip()), redact((m["hook"] or "").strip()))
    return entries


def read(src: Path, context=None):
    if src.name == INDEX:
        yield from _index_notes(src)
        return
    entries = context or {}
    meta, body = split_frontmatter(read_text(src))
    if not body.strip():
        raise SourceError("the memory file has no content")
    kind = str(meta.get("type", "")).strip().lower()
    link_title, hook = entries.get(src.name, (None, ""))
    title = link_title or str(meta.get("name") or redact(src.stem)).replace("_", " ").replace("-", " ").strip()
    description = str(meta.get("description") or hook or "").strip()
    text = body.strip()
    if description and description.lower() not in text.lower():
        text = f"{description}\n\n{text}"
    extra = {"claude_memory_file": src.name}
    extra.update({k: v for k, v in meta.items() if k not in ("type", "tags") and jsonable(v)})
    metadata = {"title": title[:300], "original_type": kind[:100] or None, "kind": KINDS.get(kind),
                "extra": extra}
    tags = as_tags(meta.get("tags"))  # no tag for the origin: provenance says it, and a shared tag would relate all
    yield Record(content=with_title(title, text), ident=src.name, file=str(src), chunk_type=TYPES.get(kind),
                 tags=tags, created=timestamp(meta.get("created")) or file_time(src), confidence=0.9,
                 metadata={k: v for k, v in metadata.items() if v is not None}, ref_name=src.name)


def _index_notes(src: Path):
    created = file_time(src)
    for number, line in enumerate(read_text(src).splitlines(), 1):
        bullet = _BULLET.match(line)
        if not bullet or _LINK.search(line):
            continue
        yield Record(content=bullet["text"], ident=f"{INDEX}:{redact(bullet['text'])[:200]}", file=str(src), line=number,
                     created=created, confidence=0.9,
                     metadata={"original_type": "index-note", "extra": {"claude_memory_file": INDEX}})
