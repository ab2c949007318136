"""Listing memories from index/search.db: which chunks match a list's filters, in order, without opening a chunk
file (reading every file to list twenty took 35 s and 442 MB at 100k chunks). The caller then reads only the
files of the ids returned. The index holds the active store only: the archive is listed from its files."""
from brain.cpython.fast import sqlite3
from brain.index.search_index import connect

OWN_SCOPES = ("user", "global")  # the person's own memory: shown in every project, as recall does


def matching_ids(root, *, conversation_id=None, tags=(), chunk_type=None, since=None, until=None, project=None,
                 within=None, kind=None, status=None, hidden_levels=(), limit=None,
                 newest_first=False) -> tuple | None:
    """(ids, how many more matched but are at one of the sensitivity `hidden_levels`), oldest first unless
    `newest_first`; None when the index cannot be read (the caller lists from the files). `since`/`until` are
    normalized timestamps; `project`: that project's alone; `within`: that project's, those of no project and the
    person's own (scope user or global) from any project, recall's scoping."""
    where, args = [], []
    for column, value in (("conversation_id", conversation_id), ("type", chunk_type), ("project", project),
                          ("kind", kind), ("status", status)):
        if value is not None:
            where.append(f"{column} = ?")
            args.append(value)
    if since:
        where.append("created >= ?")
        args.append(since)
    if until:
        where.append("created <= ?")
        args.append(until)
    if within is not None:
        where.append(f"(project IS NULL OR project = ? OR scope IN {_placeholders(OWN_SCOPES)})")
        args += [within, *OWN_SCOPES]
    if tags:
        where.append(f"id IN (SELECT id FROM tags WHERE tag IN {_placeholders(tags)} GROUP BY id "
                     "HAVING count(DISTINCT tag) = ?)")
        args += [*tags, len(tags)]
    matched = " AND ".join(where) or "1"
    order = "DESC" if newest_first else "ASC"
    try:
        conn = connect(root, readonly=True)
        if conn is None:
            return None
        try:
            shown_sql = f"SELECT id FROM chunks WHERE {matched}"
            if hidden_levels:
                shown_sql += f" AND sensitivity NOT IN {_placeholders(hidden_levels)}"
            shown_sql += f" ORDER BY created {order}, id {order}" + (" LIMIT ?" if limit else "")
            ids = [row[0] for row in conn.execute(shown_sql, [*args, *hidden_levels] + ([limit] if limit else []))]
            hidden = conn.execute(f"SELECT count(*) FROM chunks WHERE {matched} AND sensitivity IN "
                                  f"{_placeholders(hidden_levels)}", [*args, *hidden_levels]).fetchone()[0] \
                if hidden_levels else 0
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return None
    return ids, hidden


def _placeholders(values) -> str:
    return "(" + ", ".join("?" * len(values)) + ")"
