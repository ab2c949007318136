"""From what a caller gives (content, type, tags, metadata, key) to a chunk dict ready to validate and write.

Every string of a new chunk is redacted here, at any depth (content, title, tags, conversation id, metadata.extra,
files, provenance...), before its type, size and id are worked out; the writer (brain/util/files.py) redacts again
on the way to disk, so a chunk changed later (`revise_chunk`) is covered too. Ids come from `created` and, for
captured and imported memories, a stable key (capturing the same thing twice gives the same id). The ids of chunks a
person deleted for good, and their keys, are kept in state/ (tombstones) so that neither capturing the same
transcript again nor a sync from another machine brings them back.
"""
import os

from brain.safety import private
from brain.safety.redact import redact, redact_value
from brain.store.chunk import CHUNK_TYPES, SOURCES, empty_links, is_chunk_id, new_chunk_id
from brain.store.classify import detect_type
from brain.util.errors import ChunkValidationError
from brain.util.fasthash import sha1
from brain.util.files import append_line, atomic_write_text, read_bytes
from brain.util.timestamps import epoch_seconds, normalize_timestamp, utc_now
from brain.util.tokens import estimate_tokens

MAX_TAGS = 50
MAX_TAG_LENGTH = 64
TOMBSTONES = "deleted-keys.txt"  # in state/: ids (and capture keys) of chunks deleted with --permanent
DORMANT = "dormant-ids.txt"  # in state/: ids of chunks gardening archived as dormant here (see `dormant`)

METADATA_FIELDS = ("confidence", "conversation_id", "source", "created", "updated", "arrived", "project",
                   "project_name", "kind", "role", "pinned", "status", "sensitivity", "category", "importance", "title",
                   "original_type", "superseded_at", "files", "part", "provenance", "extra", "scope", "relations",
                   "deletion_policy", "procedure", "layers", "ended")
_RESERVED = ("created", "conversation_id", "source", "confidence")


def clean_tags(tags) -> list:
    """Lowercased, trimmed, de-duplicated tags; bounded in number and length with a clear error."""
    if tags is None:
        return []
    if isinstance(tags, str):
        tags = tags.split(",")
    out = []
    for tag in tags:
        if not isinstance(tag, str):
            raise ChunkValidationError("tags must be strings, got a " + type(tag).__name__)
        if not private.without(tag).strip():
            continue  # all of it private: never kept, not even as a marker
        tag = " ".join(redact(tag).strip().lower().split())  # redacted first: some secrets are case-sensitive
        if not tag:
            continue
        if len(tag) > MAX_TAG_LENGTH:
            raise ChunkValidationError(f"a tag is longer than {MAX_TAG_LENGTH} characters")
        if tag not in out:
            out.append(tag)
    if len(out) > MAX_TAGS:
        raise ChunkValidationError(f"{len(out)} tags given; at most {MAX_TAGS} are allowed")
    return out


def kept_content(content) -> str:
    """The content to store, redacted (a `<private>` span becomes a marker); ChunkValidationError when nothing is
    left to keep."""
    if not isinstance(content, str) or not content.strip():
        raise ChunkValidationError("content is empty; give the text to remember")
    if not private.without(content).strip():
        raise ChunkValidationError("content is empty outside its private spans (those are never stored)")
    return redact(content.strip())


def key_hash(key: str) -> str:
    return "key:" + sha1(key.encode("utf-8")).hexdigest()[:16]


def same_key(existing: dict, chunk: dict) -> bool:
    """Whether a stored chunk was made from the same key (older chunks without the hash: same content)."""
    theirs = (existing.get("metadata", {}).get("provenance") or {}).get("hash")
    if theirs and str(theirs).startswith("key:"):
        return theirs == chunk["metadata"]["provenance"]["hash"]
    return existing.get("content") == chunk["content"]


def _confidence(value) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ChunkValidationError("confidence must be a number between 0 and 1") from None
    if not 0.0 <= value <= 1.0:
        raise ChunkValidationError("confidence must be between 0 and 1")
    return value


def build_chunk(content, *, chunk_type=None, conversation_id=None, tokens=None, tags=None, confidence=0.8,
                source="interaction", created=None, links=None, metadata=None, key=None) -> dict:
    """The chunk dict for these arguments (create_chunk's), redacted and with its id; ChunkValidationError on bad
    input. Not yet validated against the schema (the caller does, before taking the store lock)."""
    content = kept_content(content)
    if chunk_type is None:
        chunk_type = detect_type(content)
    if chunk_type not in CHUNK_TYPES:
        raise ChunkValidationError(f"unknown type; use one of {', '.join(CHUNK_TYPES)}")
    if source not in SOURCES:
        raise ChunkValidationError(f"unknown source; use one of {', '.join(SOURCES)}")
    try:
        created = normalize_timestamp(created) if created else utc_now()
    except ValueError:
        raise ChunkValidationError("created must be an ISO 8601 time") from None
    md = {"created": created, "conversation_id": conversation_id, "source": source,
          "confidence": _confidence(confidence), "access_count": 0, "last_accessed": None}
    for name, value in (metadata or {}).items():
        if name not in METADATA_FIELDS or name in _RESERVED:
            raise ChunkValidationError(f"unknown or reserved metadata field {redact(str(name))[:40]!r}")
        if value is not None:
            md[name] = value
    md = redact_value(_copied(md))  # the caller's dicts stay as they are
    if key:  # remember which key made this id: a second key landing on the same 8 hex digits is a collision
        md["provenance"] = dict(md.get("provenance") or {}, hash=key_hash(key))
    chunk_links = empty_links()
    for link_type, targets in redact_value(_copied(links or {})).items():
        chunk_links.setdefault(link_type, [])
        for target in targets:
            if target not in chunk_links[link_type]:
                chunk_links[link_type].append(target)
    return {
        "id": new_chunk_id(created, key),
        "content": content,
        "tokens": int(tokens) if tokens is not None else estimate_tokens(content),
        "type": chunk_type,
        "metadata": md,
        "links": chunk_links,
        "tags": clean_tags(tags),
    }


def _copied(value):
    """A deep copy of a JSON-like value (dicts and lists), so redacting it never changes the caller's."""
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_copied(v) for v in value]
    return value


ARRIVAL_GAP_SECONDS = 86400  # a captured or imported memory dated more than this before it is written here...


def stamp_arrival(chunk: dict, now: str) -> dict:
    """...carries metadata.arrived = `now`, its arrival in this store: gardening counts idleness from it, not from
    the memory's own date (a legacy import dated 287 days ago is not dormant on the day it arrives). A captured
    or imported memory is one with a provenance kind or the import source, and gardening's master of older
    memories (source "derived") arrives when it is made; what a caller stores with a date of
    its choosing through the library keeps that date as its age, and a whole chunk restored from rlm-mem's own
    export keeps its history (its `updated`, its uses)."""
    md = chunk["metadata"]
    if not ((md.get("provenance") or {}).get("kind") or md.get("source") in ("import", "derived")):
        return chunk
    then, arrived = epoch_seconds(md.get("created")), epoch_seconds(now)
    if then is not None and arrived is not None and arrived - then > ARRIVAL_GAP_SECONDS \
            and (md.get("arrived") or "") < now:
        md["arrived"] = now
    return chunk


def tombstone_token(token: str) -> bool:
    """An id of a memory deleted for good, or the capture key of one (what state/deleted-keys.txt holds)."""
    return is_chunk_id(token) or (len(token) == 20 and token.startswith("key:")
                                  and all(c in "0123456789abcdef" for c in token[4:]))


def tombstone_tokens(text: str) -> set:
    """The tokens of a tombstone file's text (anything else in it is left out)."""
    return {t for t in text.split() if tombstone_token(t)}


def tombstones(state_dir) -> set:
    """Ids of memories a person deleted for good, and the capture keys of those that were captured (the one reader
    of state/deleted-keys.txt: capture, sync and doctor read it through here)."""
    try:
        return tombstone_tokens(read_bytes(os.path.join(os.fspath(state_dir), TOMBSTONES)).decode("utf-8", "replace"))
    except OSError:
        return set()


def dormant(state_dir) -> set:
    """Ids of archived memories that gardening archived as dormant on this machine: how little they are used here,
    which is this machine's own view (access counts do not travel), so sync carries them as live memories."""
    try:
        text = read_bytes(os.path.join(os.fspath(state_dir), DORMANT)).decode("utf-8", "replace")
    except OSError:
        return set()
    return {t for t in text.split() if is_chunk_id(t)}


def mark_dormant(state_dir, chunk_ids, archived_as_dormant: bool) -> None:
    """Record that these memories were archived as dormant here, or (`archived_as_dormant` false: archived for
    another reason, a forget, a consolidation, a sync) that they were not. The caller holds the store lock."""
    chunk_ids = set(chunk_ids)
    if archived_as_dormant:
        if chunk_ids:
            append_line(os.path.join(os.fspath(state_dir), DORMANT), "\n".join(sorted(chunk_ids)))
        return
    known = dormant(state_dir)
    if known & chunk_ids:
        atomic_write_text(os.path.join(os.fspath(state_dir), DORMANT),
                          "".join(f"{t}\n" for t in sorted(known - chunk_ids)))


def bury(state_dir, hash_: str) -> None:
    append_line(state_dir / TOMBSTONES, hash_)
