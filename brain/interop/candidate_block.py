"""A MEMORY_CANDIDATES block (the fallback output of a session that could not write memory), from a file or stdin.

Parsing is brain/capture/candidates.py's; this module only turns candidates into records.
"""
from pathlib import Path

from brain.capture.candidates import MARKER, parse_candidates
from brain.interop.records import Record, SourceError, read_text
from brain.safety.redact import redact

FORMAT = "candidates"
CATEGORIES = ("past", "present", "future")


def looks_like(text: str) -> bool:
    return MARKER in text or bool(parse_candidates(text))


def sources(path: Path) -> list:
    if path.is_dir():
        raise SourceError("candidates come from a file or stdin (-), not a folder")
    return [path]


def records_from_text(text: str, file: str, mtime: str | None = None):
    candidates = parse_candidates(text)
    if not candidates:
        raise SourceError("no MEMORY_CANDIDATES items found (expected `1. name.md — category: ... — tags: [...]`)")
    for number, cand in enumerate(candidates, 1):
        if not cand.content.strip():
            raise SourceError(f"candidate {number} ({cand.filename}) has no content")
        stem = cand.filename[:-3] if cand.filename.endswith(".md") else cand.filename
        metadata = {"title": redact(stem.replace("_", " ").strip())[:300] or None,  # redacted, then cut
                    "extra": {"candidate_file": cand.filename}}
        if cand.category in CATEGORIES:
            metadata["category"] = cand.category
        else:
            metadata["extra"]["category"] = cand.category
        yield Record(content=cand.content, ident=cand.filename or str(number), file=file, tags=list(cand.tags),
                     created=mtime, metadata=metadata, ref_name=cand.filename)


def read(src: Path, context=None):
    yield from records_from_text(read_text(src), str(src))
