"""Seed 000's automatic links, looked up in the live search index (index/search.db) of the write session:
- context_of: the conversation the chunk came from;
- follows: the previous chunk of the same conversation, if made at most 5 minutes before;
- related_to: up to five chunks sharing the most tags (a tag on more than 200 chunks is a category, "turn" or
  "python", not evidence that two chunks are related).
Chunks added earlier in the same write session are already in the index (same transaction), so a batch links
among itself too.
"""
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


def related_by_tags(conn, tags, chunk_id: str, exclude, common=None) -> list:
    """Up to MAX_RELATED chunks sharing the most of `tags` (newest first among equals). `common`: a set of tags
    already found on more than RELATED_TAG_LIMIT chunks, kept by the caller's write session (a tag only grows
    more common within it), so that a batch does not count the same tag again for every chunk."""
    common = set() if common is None else common
    usable = []
    for tag in dict.fromkeys(tags):
        if tag in common:
            continue
        (count,) = conn.execute("SELECT count(*) FROM (SELECT 1 FROM tags WHERE tag=? LIMIT ?)",
                                (tag, RELATED_TAG_LIMIT + 1)).fetchone()
        (common.add if count > RELATED_TAG_LIMIT else usable.append)(tag)
    if not usable:
        return []
    skip = [chunk_id, *exclude]
    # counted and ordered inside SQLite, from the tags table alone: at most RELATED_TAG_LIMIT rows a tag
    return [cid for (cid,) in conn.execute(
        f"SELECT id FROM tags WHERE tag IN ({','.join('?' * len(usable))}) "
        f"AND id NOT IN ({','.join('?' * len(skip))}) GROUP BY id "
        "ORDER BY count(*) DESC, max(created) DESC, id DESC LIMIT ?", [*usable, *skip, MAX_RELATED])]


def auto_link(chunk: dict, conn, common=None) -> None:
    """Add context_of, follows and related_to to a new chunk (links it already has are kept). `common`: see
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
        links["related_to"].extend(related_by_tags(conn, chunk["tags"], chunk["id"], links["follows"], common))


def referrers(conn, layout, target: str) -> list:
    """Chunks (live or archived) whose links point at `target`."""
    refs = {src for (src,) in conn.execute("SELECT DISTINCT src FROM links WHERE dst=?", (target,))}
    for path in layout.iter_archive_paths():  # archived chunks can hold links too
        data = layout.read_file(path, validate=False)
        if data and any(target in v for v in data.get("links", {}).values()):
            refs.add(data["id"])
    return sorted(refs)
