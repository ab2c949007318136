"""rlm-mem's own markdown: one file per chunk, YAML frontmatter holding every field, the content as the body.

    ---
    id: chunk-2026-02-10-a1b2c3d4
    type: fact
    tokens: 12
    tags: [db]
    metadata: {created: '2026-02-10T14:30:00Z', ...}
    links: {context_of: [...], ...}
    ---

    The staging database listens on port 5433.

Exporting then importing gives back the same chunks. Strings that YAML would read as dates, booleans or numbers
are quoted on the way out, and dates a person wrote unquoted are turned back into text on the way in. A file
without `id`/`metadata` (written by hand) is imported as a new memory from whatever fields it has.
"""
from pathlib import Path

import yaml

from brain.interop.jsonl import is_whole_chunk, record_from
from brain.interop.records import Issue, Record, SourceError, md_files, read_text, split_frontmatter
from brain.store.chunk import CHUNK_TYPES, is_chunk_id, month_of
from brain.store.validation import schema_errors
from brain.util.files import write_user_text

FORMAT = "markdown"
FIELDS = ("id", "type", "tokens", "tags", "metadata", "links")


def looks_like(meta: dict) -> bool:
    return is_chunk_id(meta.get("id")) and isinstance(meta.get("metadata"), dict)


def looks_like_partial(meta: dict) -> bool:
    """A hand-written memory in this format: no id yet, but a type rlm-mem knows."""

    return meta.get("type") in CHUNK_TYPES


def sources(path: Path) -> list:
    return md_files(path) if path.is_dir() else [path]


def render(chunk: dict) -> str:
    head = {name: chunk[name] for name in FIELDS if name in chunk}
    text = yaml.safe_dump(head, sort_keys=False, allow_unicode=True, default_flow_style=False, width=120)
    if yaml.safe_load(text) != head:  # PyYAML writes NEL and U+2028 raw, then reads them as line breaks
        text = yaml.safe_dump(head, sort_keys=False, allow_unicode=False, default_flow_style=False, width=120)
    return f"---\n{text}---\n\n{chunk['content']}\n"


def read(src: Path, context=None):
    meta, body = split_frontmatter(read_text(src), keep_newlines=True)
    if not body.strip():
        raise SourceError("the file has no content below its frontmatter")
    obj = dict(meta, content=body.strip())
    if is_whole_chunk(obj):
        chunk = {name: obj[name] for name in ("id", "content", "tokens", "type", "metadata", "links", "tags")
                 if name in obj}
        yield Record(content=obj["content"], ident=obj["id"], file=str(src), chunk=chunk)
        return
    if "metadata" in meta and not isinstance(meta["metadata"], dict):
        raise SourceError("metadata must be a mapping")

    errors = schema_errors("import_record", {k: v for k, v in obj.items() if k != "title"})
    if errors:
        raise SourceError("; ".join(errors[:3]))
    record = record_from({k: v for k, v in obj.items() if k != "title"}, str(src), None)
    if isinstance(record, Issue):
        raise SourceError(record.message)
    if meta.get("title"):
        record.metadata["title"] = str(meta["title"])[:300]
    if not meta.get("id"):
        record.ident = src.name
    yield record


def write(chunks, out_dir: Path, progress=None) -> list:
    """One file per chunk under out_dir/YYYY-MM/ (a month a folder, as in the store)."""

    paths = []
    for done, chunk in enumerate(chunks, 1):
        path = Path(out_dir) / month_of(chunk["id"]) / f"{chunk['id']}.md"
        write_user_text(path, render(chunk), fsync=False)
        paths.append(path)
        if progress:
            progress(done)
    return paths
