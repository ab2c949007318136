"""A memory's life beyond the seed: write-time dedup (reinforce), supersede, pin, status.

Identical content to an active memory reinforces that memory instead of adding a copy. A memory that replaces
another records `supersedes`; the old one is marked superseded (kept readable, never offered as current).
"""
from . import access, search_index
from .audit import audit
from .chunk import utc_now, validate_chunk_id
from .errors import ChunkNotFound


def find_duplicate(store, content: str, project=None):
    """Id of an active chunk with the same words (case and spacing aside), or None."""
    conn = search_index.connect(store.root, readonly=True)
    if conn is None:
        return None
    try:
        from .redact import redact

        digest = search_index.content_hash(redact(content.strip()))
        rows = conn.execute("SELECT id, project FROM chunks WHERE chash=? AND status='active'", (digest,)).fetchall()
    finally:
        conn.close()
    for cid, proj in rows:
        if project is None or proj in (None, project):
            return cid
    return None


def reinforce(store, chunk_id: str, confidence: float | None = None, reason: str = "same content stored again"):
    """Count a repeat as a use, and raise confidence to the newer statement's."""
    access.record_access(store.root, [chunk_id])
    chunk = store.get_chunk(chunk_id, track=False)
    if chunk is not None and confidence is not None and confidence > chunk.metadata["confidence"]:
        chunk = store.update_chunk(chunk_id, confidence=confidence, reason=reason)
    audit(store.root, "reinforce", chunk_id, actor=store.actor, reason=reason)
    return chunk


def supersede(store, old_id: str, new_id: str, reason: str | None = None):
    """Mark `old_id` as replaced by `new_id` (both directions linked, the date of the change kept)."""
    validate_chunk_id(old_id)
    old = store.get_chunk(old_id, track=False)
    if old is None:
        raise ChunkNotFound(f"no chunk {old_id} to supersede")
    links = dict(old.links)
    links["superseded_by"] = sorted(set(links.get("superseded_by", [])) | {new_id})
    store.update_chunk(old_id, status="superseded", superseded_at=utc_now(), links=links,
                       reason=reason or f"superseded by {new_id}")
    new = store.get_chunk(new_id, track=False)
    if new is not None and old_id not in new.links.get("supersedes", []):
        links = dict(new.links)
        links["supersedes"] = sorted(set(links.get("supersedes", [])) | {old_id})
        store.update_chunk(new_id, links=links, reason=f"supersedes {old_id}")
    audit(store.root, "supersede", old_id, actor=store.actor, reason=reason, details={"by": new_id})


def set_pinned(store, chunk_id: str, pinned: bool):
    chunk = store.update_chunk(chunk_id, pinned=True if pinned else None, reason="pin" if pinned else "unpin")
    audit(store.root, "pin" if pinned else "unpin", chunk_id, actor=store.actor)
    return chunk


def remember_memory(store, content: str, *, chunk_type=None, tags=None, conversation_id=None, confidence=0.9,
                    supersedes=(), pinned=False, project=None, kind="memory", created=None, key=None,
                    source="interaction", extra_metadata=None):
    """The deliberate "remember this" path used by the CLI and the agent: dedup, store, supersede, pin."""
    duplicate = None if supersedes else find_duplicate(store, content, project)
    if duplicate:
        chunk = reinforce(store, duplicate, confidence)
        if pinned and chunk is not None and not chunk.pinned:
            chunk = set_pinned(store, duplicate, True)
        return [chunk] if chunk is not None else []
    for old in supersedes:
        validate_chunk_id(old)
        if store.get_chunk(old, track=False) is None:
            raise ChunkNotFound(f"no chunk {old} to supersede (see `rlm-mem list`)")
    metadata = {"kind": kind, "project": project}
    if pinned:
        metadata["pinned"] = True
    metadata.update(extra_metadata or {})
    chunks = store.remember(content, chunk_type=chunk_type, conversation_id=conversation_id, tags=tags,
                            confidence=confidence, metadata=metadata, created=created, key=key, source=source,
                            links={"supersedes": list(supersedes)} if supersedes else None)
    for old in supersedes:
        supersede(store, old, chunks[0].id)
    return chunks
