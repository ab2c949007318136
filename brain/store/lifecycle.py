"""A memory's life beyond the seed: write-time dedup (reinforce), supersede, pin, status, scope (and the person's
own memory kept out of a team's).

Identical content to an active memory reinforces that memory instead of adding a copy. A memory that replaces
another records `supersedes`; the old one is marked superseded (kept readable, never offered as current).
"""
import os

from brain.context.location import own_root
from brain.cpython.fast import sqlite3
from brain.index import access, search_index
from brain.safety.fence import has_visible
from brain.safety.redact import redact
from brain.store import sensitivity
from brain.store.audit import audit
from brain.store.chunk import DELETION_POLICIES, validate_chunk_id
from brain.store.chunk_store import ChunkStore
from brain.store.write_session import writing
from brain.util.errors import ChunkNotFound, ChunkValidationError
from brain.util.timestamps import utc_now


def find_duplicate(store, content: str, project=None, max_sensitivity: str | None = None):
    """Id of an active chunk with the same words (case and spacing aside), or None (also when the search index
    cannot be read: it is derived, and the write that follows rebuilds it). A chunk more private than
    `max_sensitivity` (None: no limit) is not one: its reader would learn its id, and that the words are stored."""
    try:
        conn = search_index.connect(store.root, readonly=True)
        if conn is None:
            return None
        try:
            digest = search_index.content_hash(redact(content.strip()))
            rows = conn.execute("SELECT id, project, sensitivity FROM chunks WHERE chash=? AND status='active'",
                                (digest,)).fetchall()
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return None
    for cid, proj, level in rows:
        if (project is None or proj in (None, project)) and \
                not (max_sensitivity and sensitivity.above(level, max_sensitivity)):
            return cid
    return None


def reinforce(store, chunk_id: str, confidence: float | None = None, reason: str = "same content stored again"):
    """Count a repeat as a use, and raise confidence to the newer statement's."""
    access.record_access(store.root, [chunk_id])
    chunk = store.get_chunk(chunk_id, track=False)
    if chunk is not None and confidence is not None and confidence > chunk.metadata["confidence"]:
        chunk = store.revise_chunk(chunk_id, confidence=confidence, reason=reason)
    audit(store.root, "reinforce", chunk_id, actor=store.actor, reason=reason)
    return chunk


def supersede(store, old_id: str, new_id: str, reason: str | None = None, *, note: str | None = None,
              when: str | None = None):
    """Mark `old_id` as replaced by `new_id` (both directions linked, the date of the change kept: `when`, an ISO
    time, defaults to now).

    `note` ("User changed mind 2026-02-08") is kept on the old memory as metadata.extra.change_note."""
    validate_chunk_id(old_id)
    old = store.get_chunk(old_id, track=False)
    if old is None:
        raise ChunkNotFound(f"no chunk {old_id} to supersede")
    links = dict(old.links)
    links["superseded_by"] = sorted(set(links.get("superseded_by", [])) | {new_id})
    changes = {"extra": dict(old.metadata.get("extra") or {}, change_note=note)} if note else {}
    store.revise_chunk(old_id, status="superseded", superseded_at=when or utc_now(), links=links,
                       reason=reason or f"superseded by {new_id}", **changes)
    new = store.get_chunk(new_id, track=False)
    if new is not None and old_id not in new.links.get("supersedes", []):
        links = dict(new.links)
        links["supersedes"] = sorted(set(links.get("supersedes", [])) | {old_id})
        store.revise_chunk(new_id, links=links, reason=f"supersedes {old_id}")
    audit(store.root, "supersede", old_id, actor=store.actor, reason=reason, details={"by": new_id})


def resolve_contradiction(store, first_id: str, second_id: str) -> tuple:
    """Two memories linked by `contradicts`: trust the newer (seed 001). The older is superseded by it, with the
    note "User changed mind YYYY-MM-DD" (the newer memory's date). Returns (old id, new id).

    Same time (stored in one second): the source of the link is the newer. Raises ChunkValidationError when they
    are not linked, when which is newer cannot be told, or when the older one is pinned (a pin is a person's statement; they unpin or supersede by hand)."""
    first = store.get_chunk(first_id, track=False)
    second = store.get_chunk(second_id, track=False)
    for cid, chunk in ((first_id, first), (second_id, second)):
        if chunk is None:
            raise ChunkNotFound(f"no chunk {cid}")
    first_says = second_id in first.links.get("contradicts", [])
    second_says = first_id in second.links.get("contradicts", [])
    if not first_says and not second_says:
        raise ChunkValidationError(f"{first_id} and {second_id} are not linked by contradicts")
    if first.created != second.created:
        old, new = (first, second) if first.created < second.created else (second, first)
    elif first_says != second_says:  # stored in the same second: the one that says "I contradict" came later
        old, new = (second, first) if first_says else (first, second)
    else:
        raise ChunkValidationError(f"{first_id} and {second_id} have the same time; supersede one by hand")
    if old.pinned:
        raise ChunkValidationError(f"{old.id} is pinned; unpin it or supersede it by hand")
    note = f"User changed mind {new.created[:10]}"
    supersede(store, old.id, new.id, reason=f"contradicted by {new.id}: {note}", note=note)
    return old.id, new.id


def _set_status(store, chunk_id: str, status: str, action: str, reason: str | None):
    chunk = store.revise_chunk(chunk_id, status=status, reason=reason or action)
    audit(store.root, action, chunk_id, actor=store.actor, reason=reason)
    return chunk


def contest(store, chunk_id: str, reason: str | None = None):
    """Seed 004's contested: disputed but kept. Still recalled and shown at session start, always marked
    "contested" and ranked lower, until it is settled (`reinstate`, or `retract`)."""
    return _set_status(store, chunk_id, "contested", "contest", reason)


def retract(store, chunk_id: str, reason: str | None = None):
    """Seed 004's retracted: withdrawn as wrong; kept readable for the record (`get`, `list`), never recalled or
    injected until reinstated."""
    return _set_status(store, chunk_id, "retracted", "retract", reason)


def reinstate(store, chunk_id: str, reason: str | None = None):
    """Back to active after a contest or retraction (the audit log keeps what happened)."""
    chunk = store.revise_chunk(chunk_id, status=None, superseded_at=None, reason=reason or "reinstated as active")
    audit(store.root, "reinstate", chunk_id, actor=store.actor, reason=reason)
    return chunk


def set_deletion_policy(store, chunk_id: str, policy: str, reason: str | None = None):
    """Seed 004's deletion policy: auto_prune (the default: gardening may archive it), manual_only (only a person
    removes it), never (`forget --permanent` refuses it; gardening leaves it)."""
    if policy not in DELETION_POLICIES:
        raise ChunkValidationError(f"unknown deletion policy {policy!r}; use one of {', '.join(DELETION_POLICIES)}")
    return store.revise_chunk(chunk_id, deletion_policy=None if policy == "auto_prune" else policy,
                              reason=reason or f"deletion policy {policy}")


SCOPES = ("user", "project", "global")  # metadata.scope; a memory without one is "project"


def set_scope(store, chunk_id: str, scope: str, reason: str | None = None):
    """Who a memory is about and where it applies: user (in every project), project (here only), global. A memory
    made user-scope in a project's shared memory moves to the person's own store (move_to_own)."""
    if scope not in SCOPES:
        raise ChunkValidationError(f"unknown scope; use one of {', '.join(SCOPES)}")
    chunk = store.revise_chunk(chunk_id, scope=None if scope == "project" else scope, reason=reason or f"scope {scope}")
    audit(store.root, "scope", chunk_id, actor=store.actor, reason=reason, details={"scope": scope})
    if scope == "user":
        move_to_own(store, chunk_id)
    return chunk


def set_pinned(store, chunk_id: str, pinned: bool):
    chunk = store.revise_chunk(chunk_id, pinned=True if pinned else None, reason="pin" if pinned else "unpin")
    audit(store.root, "pin" if pinned else "unpin", chunk_id, actor=store.actor)
    return chunk


# In the order a cognitive-memory import has always written them into content (its ids derive from the content).
PROCEDURE_PARTS = (("steps", "Steps"), ("preconditions", "Preconditions"), ("postconditions", "Postconditions"))


def procedure_text(content: str, procedure: dict) -> str:
    """A procedure's content as recall searches and shows it: the text, then its conditions and numbered steps
    (the structured lists stay in metadata.procedure)."""
    sections = [content.strip()]
    for name, heading in PROCEDURE_PARTS:
        items = [str(item) for item in procedure.get(name) or ()]
        if items:
            sections.append(heading + ":\n" + "\n".join(f"{i}. {item}" for i, item in enumerate(items, 1)))
    return "\n\n".join(s for s in sections if s)


def require_visible(content) -> None:
    """ChunkValidationError for text a reader would see as nothing (only invisible or control characters)."""
    if isinstance(content, str) and content.strip() and not has_visible(content):
        raise ChunkValidationError("content has no visible character (only invisible or control characters); "
                                   "give the text to remember")


def remember_memory(store, content: str, *, chunk_type=None, tags=None, conversation_id=None, confidence=0.9,
                    supersedes=(), pinned=False, project=None, kind="memory", created=None, key=None,
                    source="interaction", extra_metadata=None, procedure=None, max_sensitivity=None):
    """The deliberate "remember this" path used by the CLI and the agent: dedup, store, supersede, pin.
    `procedure` ({"steps", "preconditions", "postconditions"}: lists of text) makes it seed 003's procedure;
    `max_sensitivity`: the reader's level (find_duplicate)."""
    require_visible(content)
    if procedure:
        content = procedure_text(content, procedure)
        chunk_type = chunk_type or "pattern"
        extra_metadata = dict(extra_metadata or {}, procedure=procedure, original_type="procedure")
    duplicate = None if supersedes else find_duplicate(store, content, project, max_sensitivity)
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


# ---------------------------------------------------------------- the person's own memory beside a team's
# What is about the person (scope user) never goes into a memory folder a team shares through its repository
# (`install --memory-in-project`, `rlm-mem share`): a memory root inside a git work tree. It goes to the person's own
# root (context/location.own_root), theirs alone, which `rlm-mem sync` carries to their other machines.
def own_store_beside(store) -> ChunkStore | None:
    """The person's own store when `store` is a project's memory shared through git (another folder), else None."""
    root, _ = own_root()
    if os.path.realpath(root) == os.path.realpath(store.root) or not access.in_git_repository(store.root):
        return None
    return ChunkStore(root, actor=store.actor, lock_timeout=store.lock_timeout)


def move_to_own(store, chunk_id: str) -> ChunkStore | None:
    """Move a memory out of a project's shared folder into the person's own store (same id, same history, the links
    the own store can follow); the shared folder deletes it for good. Returns the own store, or None when `store`
    is not a shared folder."""
    own = own_store_beside(store)
    if own is None:
        return None
    data = store.layout.read_chunk(chunk_id, include_archived=True)
    if data is None:
        return None
    archived = store.layout.is_archived(chunk_id)
    with writing(own.layout, lock_timeout=own.lock_timeout) as session:
        # its links to the project's memories would point at nothing there: only those the own store holds stay
        data["links"] = {kind: [t for t in targets if session.taken(t)] for kind, targets in data["links"].items()}
        session.write_archived(data) if archived else session.write(data)
    audit(own.root, "create", chunk_id, actor=store.actor, reason="moved from a project's shared memory: it is "
          "about you (scope user)")
    store.delete_chunk(chunk_id, permanent=True, reason="moved to the person's own memory (scope user)")
    return own


def supersede_with_statement(store, old_ref: str, content: str, *, chunk_type=None, tags=None, project=None,
                             extra_metadata=None, confidence: float = 0.9):
    """Store `content` as a new memory that replaces `old_ref` (a full id or the 8-hex tail recall shows), and mark
    the old one replaced by it: what the model records when a decision, a value or a statement it was shown has
    changed. The new memory's type is `chunk_type`, else a decision when the old one was one, else a fact.
    Raises InvalidChunkId / ChunkNotFound for a bad id, ChunkValidationError for empty content; nothing is written
    then. Returns the new memory's chunks."""
    old_id = store.resolve_id(old_ref)
    old = store.get_chunk(old_id, track=False)
    if old is None:
        raise ChunkNotFound(f"no memory {old_ref} to supersede (see `rlm-mem list`)")
    if not isinstance(content, str) or not content.strip():
        raise ChunkValidationError("the new statement is empty; say what holds now")
    chosen = chunk_type or ("decision" if old.type == "decision" else "fact")
    return remember_memory(store, content, chunk_type=chosen, tags=tags, confidence=confidence,
                           supersedes=[old_id], project=project, extra_metadata=extra_metadata)
