"""Seed 000's automatic links, looked up in the live search index (index/search.db) of the write session:
- context_of: the conversation the chunk came from;
- follows: the previous chunk of the same conversation, if made at most 5 minutes before;
- related_to: up to five chunks sharing the most tags (a tag on more than 200 chunks is a category, "turn" or
  "python", not evidence that two chunks are related).
Chunks added earlier in the same write session are already in the index (same transaction), so a batch links
among itself too.
"""
from collections import Counter  # (loaded already on every write path: logging imports it)
from heapq import nlargest
from itertools import chain

from brain.util.timestamps import epoch_seconds

FOLLOWS_WINDOW_SECONDS = 5 * 60
MAX_RELATED = 5
RELATED_TAG_LIMIT = 200


def previous_in_conversation(conn, conversation: str, created: str, chunk_id: str):
    """The latest other chunk of `conversation` made at or before `created`, if within the follows window."""
    row = conn.execute("SELECT id, created FROM chunks WHERE conversation_id=? AND created<=? AND id!=? "
                       "ORDER BY created DESC, id DESC LIMIT 1", (conversation, created, chunk_id)).fetchone()
    if row is None:
        return None
    then, now = epoch_seconds(row[1]), epoch_seconds(created)
    return row[0] if then is not None and now is not None and now - then <= FOLLOWS_WINDOW_SECONDS else None


def related_by_tags(conn, tags, chunk_id: str, exclude, rows_of=None) -> list:
    """Up to MAX_RELATED chunks sharing the most of `tags` (newest first among equals, then the greater id).
    `rows_of`: tag -> {id: created} of the chunks holding it, or None for a tag on more than RELATED_TAG_LIMIT;
    kept by the caller's write session, which adds what it indexes (WriteSession.add), so that a batch reads each
    tag's rows once instead of asking SQLite to rank them again for every chunk (0.2 ms a chunk)."""
    rows_of = {} if rows_of is None else rows_of
    usable = []
    for tag in dict.fromkeys(tags):
        if tag not in rows_of:
            rows = conn.execute("SELECT id, created FROM tags WHERE tag=? LIMIT ?",
                                (tag, RELATED_TAG_LIMIT + 1)).fetchall()
            rows_of[tag] = dict(rows) if len(rows) <= RELATED_TAG_LIMIT else None
        if rows_of[tag] is not None:
            usable.append(rows_of[tag])
    if not usable:
        return []
    created = {}  # id -> created: a chunk's tag rows all carry the chunk's own time
    for rows in usable:
        created.update(rows)
    for cid in (chunk_id, *exclude):
        created.pop(cid, None)
    ids = list(created)
    shared = list(map(Counter(chain.from_iterable(usable)).__getitem__, ids))
    # (tags shared, created, id), all descending: SQL's ORDER BY count(*) DESC, max(created) DESC, id DESC
    return [cid for _, _, cid in nlargest(MAX_RELATED, zip(shared, map(created.__getitem__, ids), ids))]


def count_tag_rows(rows_of: dict, tags, created: str, chunk_id: str) -> None:
    """A chunk indexed with these tags: its row joins each tag's rows that related_by_tags holds."""
    for tag in dict.fromkeys(tags):
        rows = rows_of.get(tag)
        if rows is not None:
            rows[chunk_id] = created
            if len(rows) > RELATED_TAG_LIMIT:
                rows_of[tag] = None


def auto_link(chunk: dict, conn, rows_of=None) -> None:
    """Add context_of, follows and related_to to a new chunk (links it already has are kept). `rows_of`: see
    related_by_tags."""
    links, md = chunk["links"], chunk["metadata"]
    conversation = md.get("conversation_id")
    if conversation:
        if conversation not in links["context_of"]:
            links["context_of"].append(conversation)
        if not links["follows"]:
            previous = previous_in_conversation(conn, conversation, md["created"], chunk["id"])
            if previous:
                links["follows"].append(previous)
    if not links["related_to"]:
        links["related_to"].extend(related_by_tags(conn, chunk["tags"], chunk["id"], links["follows"], rows_of))


def referrers(conn, layout, target: str) -> list:
    """Chunks (live or archived) whose links point at `target`."""
    refs = {src for (src,) in conn.execute("SELECT DISTINCT src FROM links WHERE dst=?", (target,))}
    for path in layout.iter_archive_paths():  # archived chunks can hold links too
        data = layout.read_file(path, validate=False)
        if data and any(target in v for v in data.get("links", {}).values()):
            refs.add(data["id"])
    return sorted(refs)
