"""JSON Lines: the bulk path in, and one of the two exports out.

In: one record a line (schemas/import_record.schema.json: content, type, tags, conversation_id, created,
confidence, source, and optionally id, metadata, links, project). A line holding a whole chunk (an rlm-mem export)
is restored as it is; a line with an rlm-mem chunk id keeps that id. A bad line is reported with its number and
skipped; the others are imported.
"""
import json
from pathlib import Path

from brain.interop.records import Issue, Record, SourceError, jsonable, timestamp
from brain.safety.redact import redact
from brain.store.chunk import CHUNK_TYPES, EXTRA_LINK_TYPES, LINK_TYPES, SOURCES, is_chunk_id
from brain.store.chunk_store import METADATA_FIELDS
from brain.store.validation import schema_errors
from brain.util.files import open_regular, write_user_text

FORMAT = "jsonl"
EXPORT_NAME = "memories.jsonl"
MAX_LINE = 8 * 1024 * 1024  # one record; a longer line is reported and skipped, never held whole
_RESERVED = ("created", "conversation_id", "source", "confidence", "access_count", "last_accessed")


def sources(path: Path) -> list:
    if path.is_dir():
        return sorted(p for p in path.iterdir() if p.suffix in (".jsonl", ".ndjson") and p.is_file())
    return [path]


def is_whole_chunk(obj: dict) -> bool:
    return (is_chunk_id(obj.get("id")) and isinstance(obj.get("metadata"), dict) and "created" in obj["metadata"]
            and isinstance(obj.get("links"), dict) and "tokens" in obj)


def _lines(fh):
    """(line number, bytes, skipped) for each line, reading at most MAX_LINE bytes of any one line."""
    number = 0
    while True:
        raw = fh.readline(MAX_LINE + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
            skipped = len(raw)
            while raw and not raw.endswith(b"\n"):
                raw = fh.readline(MAX_LINE)
                skipped += len(raw)
            yield number, b"", skipped
            continue
        yield number, raw, 0


def read(src: Path, context=None):
    offset = 0
    try:
        fd = open_regular(src, follow_links=True)  # a device or a FIFO is refused before any read
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror or exc}") from None
    with open(fd, "rb") as fh:
        for number, raw, skipped in _lines(fh):
            offset += len(raw) + skipped
            if skipped:
                yield Issue(str(src), f"line longer than {MAX_LINE:,} bytes; skipped", number)
                continue
            try:
                text = raw.decode("utf-8").strip().lstrip("\ufeff")  # a BOM some editors put first
            except UnicodeDecodeError as exc:
                yield Issue(str(src), f"not UTF-8 text (byte {exc.start} of the line)", number)
                continue
            if not text:
                continue
            try:
                obj = json.loads(text)
            except ValueError as exc:
                yield Issue(str(src), f"not JSON: {exc.msg} (column {exc.colno})", number)
                continue
            if not isinstance(obj, dict):
                yield Issue(str(src), "a line must hold a JSON object", number)
                continue
            if is_whole_chunk(obj):
                chunk = {k: obj[k] for k in ("id", "content", "tokens", "type", "metadata", "links", "tags")
                         if k in obj}
                yield Record(content=str(obj.get("content", "")), ident=obj["id"], file=str(src), line=number,
                             chunk=chunk, offset=offset)
                continue
            errors = [] if quick_valid(obj) else schema_errors("import_record", obj)
            if errors:
                yield Issue(str(src), "; ".join(errors[:3]), number)
                continue
            record = record_from(obj, str(src), number)
            if isinstance(record, Issue):
                yield record
                continue
            record.offset = offset
            yield record


def quick_valid(obj: dict) -> bool:
    """True when `obj` certainly satisfies import_record.schema.json (checked by hand: the bulk path's hot loop).
    False sends it to the schema validator, which then says what is wrong."""

    def optional(name, check):
        return name not in obj or check(obj[name])

    return (isinstance(obj.get("content"), str) and obj["content"] != ""
            and optional("type", lambda v: v in CHUNK_TYPES)
            and optional("tags", lambda v: isinstance(v, str) or isinstance(v, list)
                         and all(isinstance(t, str) for t in v))
            and optional("conversation_id", lambda v: v is None or isinstance(v, str))
            and optional("created", lambda v: isinstance(v, str))
            and optional("confidence", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
                         and 0 <= v <= 1)
            and optional("source", lambda v: v in SOURCES)
            and optional("id", lambda v: isinstance(v, str))
            and optional("metadata", lambda v: isinstance(v, dict))
            and optional("links", lambda v: isinstance(v, dict))
            and optional("project", lambda v: v is None or isinstance(v, str)))


def record_from(obj: dict, file: str, line: int | None):
    """A Record from one import record (already valid against its schema), or an Issue."""
    created = timestamp(obj.get("created"))
    if obj.get("created") and not created:
        return Issue(file, "created is not an ISO 8601 time", line)

    metadata, extra = {}, {}
    for name, value in (obj.get("metadata") or {}).items():
        if name in METADATA_FIELDS and name not in _RESERVED:
            metadata[name] = value
        elif name not in _RESERVED and jsonable(value):
            extra[name] = value  # kept, not interpreted
    if extra:
        metadata["extra"] = dict(metadata.get("extra") or {}, **extra)
    if obj.get("project") is not None:
        metadata["project"] = obj["project"]
    links = {}
    for name, targets in (obj.get("links") or {}).items():
        if name in LINK_TYPES + EXTRA_LINK_TYPES and isinstance(targets, list):
            links[name] = [str(t) for t in targets if isinstance(t, str)]
    record_id = obj.get("id")
    md = obj.get("metadata") or {}
    conversation = obj.get("conversation_id", md.get("conversation_id"))
    return Record(
        content=obj["content"], file=file, line=line,
        ident=str(record_id) if record_id else f"{redact(str(conversation))}|{created}",  # (redacted, then joined)
        chunk_type=obj.get("type"), tags=obj.get("tags") or [], created=created or timestamp(md.get("created")),
        confidence=obj.get("confidence", md.get("confidence", 0.8)), conversation_id=conversation,
        source=obj.get("source", "import"), metadata=metadata, links=links,
        keep_id=record_id if is_chunk_id(record_id) else None, ref_name=str(record_id) if record_id else None)


def write(chunks, out_dir: Path, progress=None) -> list:
    """Every chunk as one line of out_dir/memories.jsonl (written whole, then moved into place)."""

    lines = []
    for done, chunk in enumerate(chunks, 1):
        lines.append(json.dumps(chunk, ensure_ascii=False, sort_keys=False))
        if progress:
            progress(done)
    path = Path(out_dir) / EXPORT_NAME
    write_user_text(path, "".join(line + "\n" for line in lines))
    return [path]
