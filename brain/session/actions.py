"""What a person (the command line) or an agent (the MCP server) asks of memory by hand, written once: remember,
recall with filters, show one memory, list memories, change one, replace one by another. The command line, the
MCP server and the local page call these, so the checks (ids, sensitivity, scopes), the lock and the audit lines
are the same whichever way a request came in.

Sensitivity: a reader is limited to a level (`max_sensitivity`; None: the person, who asked for every level). A
memory above it is refused by `show` and by every change (update, forget, restore, pin, link, status, replace,
supersede), left out of `list_memories` (their number is returned, so the reader can say some were hidden), never
named as a link of a memory shown, and never the memory a repeat of its words reinforces (a new one is stored: the
answer is the same whether or not such words were stored). Only the person lowers a sensitivity
(`lower_sensitivity`): a reader that could would read what it lowered.
"""
from brain.capture.scopes import scope_of
from brain.index.listing import OWN_SCOPES
from brain.recall.depth import render, structure_lines, summary_line
from brain.recall.recall import recall
from brain.session.brief import refresh_briefs
from brain.store import sensitivity
from brain.store.chunk import is_chunk_id
from brain.store.chunk_store import relation_note
from brain.store.lifecycle import (contest, own_store_beside, reinstate, remember_memory, require_visible, retract,
                                   set_deletion_policy, set_pinned, set_scope, supersede, supersede_with_statement)
from brain.util.errors import ChunkNotFound, ChunkValidationError, RlmMemError
from brain.util.timestamps import normalize_timestamp

class InvalidDate(ChunkValidationError):
    """A since/until that is not an ISO date or time."""




def scope_of_chunk(chunk) -> str:
    return chunk.metadata.get("scope") or "project"


def remember(store, content: str, project, *, chunk_type=None, tags=None, conversation_id=None, confidence=0.9,
             supersedes=(), pinned=False, sensitivity_level=None, scope=None, deletion_policy=None,
             procedure=None, max_sensitivity: str | None = sensitivity.DEFAULT_LIMIT) -> list:
    """Store what was asked to be remembered; returns its chunks (the one it repeats, when it was said before).

    `project` is the ProjectInfo it is filed under; `supersedes` takes full or 8-hex short ids. Without `scope`,
    the words choose user or project (brain/capture/scopes.py); a repeat said again with a scope takes that scope.
    The project's session-start brief is refreshed, so the next session start finds it ready. What is about the
    person never goes into a project's memory shared through git: it goes to their own store (`store_for`).
    `deletion_policy`: seed 004's auto_prune (the default), manual_only or never; `procedure`: {"steps",
    "preconditions", "postconditions"} (lists of text) makes it seed 003's procedure. A memory above
    `max_sensitivity` is neither superseded (refused) nor reinforced by a repeat (a new memory is stored)."""
    chosen = scope or scope_of(content)
    store = store_for(store, chosen)
    chunks = remember_memory(store, content, chunk_type=chunk_type, tags=tags, conversation_id=conversation_id,
                             confidence=confidence, pinned=pinned, project=project.id, procedure=procedure or None,
                             supersedes=[permitted(store, ref, max_sensitivity) for ref in supersedes],
                             max_sensitivity=max_sensitivity,
                             extra_metadata={"project_name": project.name, "sensitivity": sensitivity_level,
                                             "scope": None if chosen == "project" else chosen,
                                             "deletion_policy": None if deletion_policy == "auto_prune"
                                             else deletion_policy})
    if scope:
        chunks = [set_scope(store, c.id, scope) if scope_of_chunk(c) != scope else c for c in chunks]
    refresh_brief(store.root, project.id)
    return chunks


def store_for(store, scope: str):
    """Where a memory of `scope` goes: a user-scope memory said in a project whose memory is shared with its team
    goes to the person's own store (lifecycle.own_store_beside); everything else stays in `store`."""
    return (own_store_beside(store) or store) if scope == "user" else store


def refresh_brief(root, project_id: str) -> None:
    """This project's session-start brief, computed now that memory changed, so that the next session start finds
    it ready (bench/run.py: the first start after a write). A cache: failing to refresh it loses nothing."""
    try:
        refresh_briefs(root, project_id=project_id, stale_only=True)
    except Exception:  # noqa: BLE001 - the next session start computes it
        pass


def up_to_date(store) -> None:
    """Index chunk files changed behind rlm-mem's back (a git pull, a hand edit) before a read, as the hooks do:
    one stat per month folder when nothing changed."""
    try:
        store.sync_derived()
    except (RlmMemError, OSError):
        pass  # a read-only or busy store is still searchable as it is


def recall_memories(store, query: str, *, project, limit=None, budget_tokens=None, depth="full",
                    max_sensitivity="medium", files=(), track=True, chunk_type=None, since=None):
    """recall/recall.recall over the store brought up to date first (chunk files changed behind rlm-mem's back,
    a git pull, are indexed before ranking). `chunk_type` and `since` (an ISO date or time): only the memories of
    that type, or made since then, are ranked."""
    up_to_date(store)
    return recall(store.root, query, project=project, limit=limit, budget_tokens=budget_tokens, depth=depth,
                  max_sensitivity=max_sensitivity, files=files, track=track, chunk_type=chunk_type,
                  since=_timestamp(since, "since") if since else None)


def _timestamp(value: str, name: str) -> str:
    try:
        return normalize_timestamp(value)
    except ValueError:
        raise InvalidDate(f"{name}: not an ISO date or time, e.g. 2026-02-01") from None


def too_sensitive(chunk, max_sensitivity: str | None = sensitivity.DEFAULT_LIMIT) -> bool:
    """Whether the chunk is more private than a reader limited to `max_sensitivity` (None: no limit) may see."""
    return max_sensitivity is not None and sensitivity.above(chunk.metadata.get("sensitivity"), max_sensitivity)


def _refuse_hidden(chunk, max_sensitivity) -> None:
    if too_sensitive(chunk, max_sensitivity):
        raise ChunkValidationError(f"{chunk.id} is marked {chunk.metadata['sensitivity']} sensitivity, above "
                                   f"{max_sensitivity}")


def permitted(store, ref: str, max_sensitivity: str | None = sensitivity.DEFAULT_LIMIT) -> str:
    """The full id `ref` names (full id or 8-hex tail), refused with show's words (ChunkValidationError) when that
    memory, active or archived, is more private than `max_sensitivity`: a reader changes only what it may read."""
    chunk_id = store.resolve_id(ref)
    if max_sensitivity is not None:
        chunk = store.get_chunk(chunk_id, include_archived=True, track=False)
        if chunk is not None:
            _refuse_hidden(chunk, max_sensitivity)
    return chunk_id


def show(store, ref: str, *, max_sensitivity: str | None = sensitivity.DEFAULT_LIMIT, archived: bool = False):
    """The memory `ref` names (full id or 8-hex tail), counted as a use; ChunkNotFound, or ChunkValidationError
    when it is more private than `max_sensitivity` (it is then not counted). Its links to memories above
    `max_sensitivity` are left out of what is returned (the file keeps them)."""
    chunk_id = store.resolve_id(ref)
    chunk = store.get_chunk(chunk_id, include_archived=archived, track=False)
    if chunk is None:
        hint = "" if archived else " (archived memories are not looked at)"
        raise ChunkNotFound(f"no chunk {chunk_id} in {store.root}{hint}")
    _refuse_hidden(chunk, max_sensitivity)
    return _without_hidden_links(store, store.get_chunk(chunk_id, include_archived=archived), max_sensitivity)


def _without_hidden_links(store, chunk, max_sensitivity):
    """`chunk` with its links (and their notes) to memories above `max_sensitivity` taken out: a reader that may
    not read a memory is not told its id either."""
    if max_sensitivity is None:
        return chunk
    targets = {t for ids in chunk.links.values() for t in ids if is_chunk_id(t)}
    hidden = set()
    for target in targets:
        linked = store.get_chunk(target, include_archived=True, track=False)
        if linked is not None and too_sensitive(linked, max_sensitivity):
            hidden.add(target)
    if hidden:
        chunk.links = {kind: [t for t in ids if t not in hidden] for kind, ids in chunk.links.items()}
        notes = [n for n in chunk.metadata.get("relations") or () if not (isinstance(n, dict)
                                                                           and n.get("target") in hidden)]
        chunk.metadata["relations"] = notes
    return chunk


def chunk_line(chunk) -> str:
    """One line of a list: id, day, type, the first words, pin and status."""
    flags = "".join([" 📌" if chunk.pinned else "", f" [{chunk.status}]" if chunk.status != "active" else ""])
    return f"{chunk.id}  {chunk.created[:10]}  {chunk.type:<10} {summary_line(chunk.to_dict(), 70)}{flags}"


def chunk_text(chunk, depth: str) -> str:
    """One memory at a depth: a head line (id, type, time, confidence, uses, status when not active, deletion
    policy when set, tags), the text, and at full depth its structure (a session record's five layers, a
    procedure's steps) and its links with their strength and context; `complete` is every field."""
    d = chunk.to_dict()
    if depth == "complete":
        return render(d, depth)
    md = chunk.metadata
    head = (f"{chunk.id} · {chunk.type} · {chunk.created.replace('T', ' ')[:16]} · confidence {md['confidence']:.2f}"
            f" · accessed {md['access_count']}×")
    if chunk.status != "active":
        head += f" · {chunk.status.upper()}"
    if md.get("deletion_policy"):
        head += f" · deletion policy {md['deletion_policy']}"
    if chunk.tags:
        head += " · tags: " + ", ".join(chunk.tags)
    lines = [head, render(d, depth)]
    if depth == "full":
        lines += structure_lines(md)
        links = [f"  {t} → {_targets(d, t, v)}" for t, v in chunk.links.items() if v]
        if links:
            lines += ["links:"] + links
    return "\n".join(lines)


def _targets(chunk: dict, link_type: str, targets) -> str:
    """The targets of one link type, each with its strength and context when recorded."""
    shown = []
    for target in targets:
        note = relation_note(chunk, link_type, target)
        extra = ", ".join(x for x in (f"strength {note['strength']:g}" if "strength" in note else "",
                                      f"\"{note['context']}\"" if note.get("context") else "") if x)
        shown.append(f"{target} ({extra})" if extra else target)
    return ", ".join(shown)


def list_memories(store, *, max_sensitivity: str | None = sensitivity.DEFAULT_LIMIT, limit=None, newest_first=False,
                  since=None, until=None, archived=False, **filters) -> tuple:
    """(chunks, how many were hidden as too sensitive): the memories matching `filters` (ChunkStore.list_chunks's,
    and `within`: a project's as recall scopes it), oldest first (newest first when asked), at most `limit`.
    `max_sensitivity` None shows every level. Found in the search index (brought up to date first), so only the
    chunks listed are read; the archive, or a store whose index cannot be read, from the files."""
    for name, value in (("since", since), ("until", until)):
        if value:
            _timestamp(value, name)  # a clear error before the chunk files are read (list_chunks reads the value)
    since, until = since or None, until or None
    if not archived:
        up_to_date(store)
        found = store.list_indexed(since=since, until=until, max_sensitivity=max_sensitivity, limit=limit,
                                   newest_first=newest_first, **filters)
        if found is not None:
            return found
    within = filters.pop("within", None)
    chunks = [c for c in store.list_chunks(since=since, until=until, archived=archived, **filters)
              if within is None or c.project in (None, within) or scope_of_chunk(c) in OWN_SCOPES]
    shown = [c for c in chunks if not too_sensitive(c, max_sensitivity)]
    if newest_first:
        shown.reverse()
    return (shown[:limit] if limit else shown), len(chunks) - len(shown)


def update(store, ref: str, *, reason=None, deletion_policy=None,
           max_sensitivity: str | None = sensitivity.DEFAULT_LIMIT, lower_sensitivity: bool = False, **changes):
    """Change a memory's content, chunk_type, tags, confidence, sensitivity or deletion policy (those given and
    not None). A memory above `max_sensitivity` is refused; a sensitivity lower than the memory's only when
    `lower_sensitivity` (the person asked: the command line, the page)."""
    changes = {k: v for k, v in changes.items() if v is not None}
    if not changes and deletion_policy is None:
        raise ChunkValidationError("nothing to change: give content, type, tags, confidence, sensitivity or "
                                   "deletion policy")
    if "confidence" in changes and not 0.0 <= changes["confidence"] <= 1.0:
        raise ChunkValidationError("confidence must be between 0 and 1")
    if "content" in changes:
        require_visible(changes["content"])
    chunk_id = permitted(store, ref, max_sensitivity)
    if "sensitivity" in changes and not lower_sensitivity:
        current = store.get_chunk(chunk_id, track=False)
        level = (current.metadata.get("sensitivity") if current else None) or sensitivity.DEFAULT
        if sensitivity.LEVELS.index(sensitivity.check_level(changes["sensitivity"])) < \
                sensitivity.LEVELS.index(level):
            raise ChunkValidationError(f"{chunk_id} is marked {level} sensitivity; only you lower it "
                                       f"(`rlm-mem update {chunk_id[-8:]} --sensitivity {changes['sensitivity']}`)")
    chunk = set_deletion_policy(store, chunk_id, deletion_policy, reason=reason) if deletion_policy else None
    return store.revise_chunk(chunk_id, reason=reason, **changes) if changes else chunk


def supersede_by(store, old_ref: str, statement: str, project, *, chunk_type=None, tags=None,
                 max_sensitivity: str | None = sensitivity.DEFAULT_LIMIT) -> list:
    """Store `statement` as a new memory that replaces `old_ref` (full or 8-hex short id) and mark the old one
    replaced: what the model records when a decision or a value it was shown has changed (`rlm-mem supersede`, the
    MCP tool). Returns the new memory's chunks; the project's brief is refreshed."""
    chunks = supersede_with_statement(store, permitted(store, old_ref, max_sensitivity), statement,
                                      chunk_type=chunk_type, tags=tags, project=project.id,
                                      extra_metadata={"project_name": project.name})
    refresh_brief(store.root, project.id)
    return chunks


def replace(store, old_ref: str, new_ref: str, reason=None, *,
            max_sensitivity: str | None = sensitivity.DEFAULT_LIMIT) -> tuple:
    """Mark the memory `old_ref` as replaced by `new_ref` (both must exist; a memory cannot replace itself).
    Returns (old id, new id)."""
    old, new = permitted(store, old_ref, max_sensitivity), permitted(store, new_ref, max_sensitivity)
    if old == new:
        raise ChunkValidationError("a memory cannot replace itself")
    if store.get_chunk(new, track=False) is None:
        raise ChunkNotFound(f"no memory {new} (archived memories are restored first)")
    supersede(store, old, new, reason)
    return old, new


def forget(store, ref: str, *, permanent: bool = False, reason=None,
           max_sensitivity: str | None = sensitivity.DEFAULT_LIMIT) -> str:
    """Archive a memory (restore brings it back), or delete it for good; returns its id."""
    chunk_id = permitted(store, ref, max_sensitivity)
    if not store.delete_chunk(chunk_id, permanent=permanent, reason=reason):
        raise ChunkNotFound(f"no chunk {chunk_id} in {store.root} (already archived?)")
    return chunk_id


def restore(store, ref: str, *, reason=None, max_sensitivity: str | None = sensitivity.DEFAULT_LIMIT):
    """Bring an archived memory back; returns it."""
    return store.restore_chunk(permitted(store, ref, max_sensitivity), reason=reason)


def pin(store, ref: str, pinned: bool, *, max_sensitivity: str | None = sensitivity.DEFAULT_LIMIT):
    """Pin (always in the session-start context) or unpin a memory; returns it."""
    return set_pinned(store, permitted(store, ref, max_sensitivity), pinned)


STATUS_CHANGES = {"contested": contest, "retracted": retract, "active": reinstate}


def set_status(store, ref: str, status: str, *, reason=None,
               max_sensitivity: str | None = sensitivity.DEFAULT_LIMIT):
    """Contest, retract or reinstate (`status`: contested, retracted, active) a memory; returns it."""
    return STATUS_CHANGES[status](store, permitted(store, ref, max_sensitivity), reason=reason)


def link(store, source_ref: str, target_ref: str, link_type: str, *, remove: bool = False, strength=None,
         context=None, max_sensitivity: str | None = sensitivity.DEFAULT_LIMIT) -> tuple:
    """Relate `source_ref` to `target_ref` (or take that link out: ChunkValidationError when there is none);
    both ends must be readable at `max_sensitivity`. Returns (the source memory, the target's id)."""
    source, target = permitted(store, source_ref, max_sensitivity), permitted(store, target_ref, max_sensitivity)
    if remove:
        chunk = store.get_chunk(source, track=False)
        if chunk is not None and target not in (chunk.links.get(link_type) or ()):
            raise ChunkValidationError(f"{source} has no {link_type} link to {target}")
    return store.link_chunks(source, target, link_type, remove=remove, strength=strength, context=context), target
