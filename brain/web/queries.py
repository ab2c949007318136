"""What the page reads: pages of rows from index/search.db (read-only, WAL: never waits for a writer) and pages of
the archive folder.

Lists are paged by key, never by counting or sorting the whole store: the memory list walks (created, id)
downwards from the last row shown (`before`), the archive walks its file names downwards, one session's rows walk
the conversation index. Each query reads one page plus one row (to know whether there is a next page). Only the
first 400 characters of each memory's text are read for a list.
"""
import os
from contextlib import contextmanager

from brain.index import search_index
from brain.store.chunk import CHUNK_TYPES, is_chunk_id
from brain.store.layout import StoreLayout
from brain.store.lifecycle import SCOPES

PAGE_SIZE = 50
STATUSES = ("active", "superseded", "contested", "retracted")
ARCHIVED = "archived"  # not a metadata.status: the chunk file sits in archive/ (and so is not in search.db)
ALL_KINDS = "all"  # the kind filter's default leaves verbatim turns out; "all" keeps them
_LIGHT = ("id, created, type, kind, role, project, scope, conversation_id, pinned, status, sensitivity, tags, "
          "substr(content, 1, 400) AS content")


class Filters:
    """The list filters a person can set in the address: each checked, so a bad value is a plain 400 page."""

    FIELDS = ("kind", "type", "scope", "status", "project", "pinned")

    def __init__(self, params: dict):
        self.kind, self.type, self.scope, self.status, self.project, pinned = (
            (params.get(name) or "").strip() for name in self.FIELDS)
        self.pinned = pinned == "1"
        if self.type and self.type not in CHUNK_TYPES:
            raise ValueError(f"unknown type; use one of {', '.join(CHUNK_TYPES)}")
        if self.scope and self.scope not in SCOPES:
            raise ValueError(f"unknown scope; use one of {', '.join(SCOPES)}")
        if self.status and self.status not in STATUSES + (ARCHIVED,):
            raise ValueError(f"unknown status; use one of {', '.join(STATUSES + (ARCHIVED,))}")
        if len(self.kind) > 40 or len(self.project) > 200:
            raise ValueError("a kind or project name that long cannot exist")

    def as_params(self) -> dict:
        return {"kind": self.kind, "type": self.type, "scope": self.scope, "status": self.status,
                "project": self.project, "pinned": "1" if self.pinned else ""}

    def sql(self) -> tuple:
        """(WHERE clause, parameters) for search.db."""
        where, args = [], []
        if self.kind == "":
            where.append("kind != 'turn'")
        elif self.kind != ALL_KINDS:
            where.append("kind = ?")
            args.append(self.kind)
        for column in ("type", "status", "project"):
            if getattr(self, column):
                where.append(f"{column} = ?")
                args.append(getattr(self, column))
        if self.scope == "project":  # absent means project
            where.append("(scope IS NULL OR scope = 'project')")
        elif self.scope:
            where.append("scope = ?")
            args.append(self.scope)
        if self.pinned:
            where.append("pinned = 1")
        return " AND ".join(where) or "1", args

    def match(self, data: dict) -> bool:
        """The same filters on a chunk file (the archive is not indexed)."""
        md = data["metadata"]
        kind = md.get("kind", "memory")
        return ((self.kind == ALL_KINDS or (kind == self.kind if self.kind else kind != "turn"))
                and (not self.type or data["type"] == self.type)
                and (not self.scope or (md.get("scope") or "project") == self.scope)
                and (not self.project or md.get("project") == self.project)
                and (not self.pinned or bool(md.get("pinned"))))


@contextmanager
def reading(root):
    """A read-only connection to search.db, or None when nothing is indexed yet."""
    conn = search_index.connect(root, readonly=True)
    if conn is None:
        yield None
        return
    try:
        yield conn
    finally:
        conn.close()


def _dict_row(cursor, row) -> dict:
    return {d[0]: value for d, value in zip(cursor.description, row)}


def _rows(conn, sql: str, args=()) -> list:
    """The rows of one query, as dicts."""
    cursor = conn.cursor()
    cursor.row_factory = _dict_row
    return cursor.execute(sql, args).fetchall()


def parse_before(value: str):
    """The key of the last row shown, `created|id`, or None."""
    if not value:
        return None
    created, _, chunk_id = value.partition("|")
    if not is_chunk_id(chunk_id) or not 10 <= len(created) <= 40:
        raise ValueError("the page position (before=...) is not one this page made")
    return created, chunk_id


def memory_page(root, filters: Filters, before=None, size: int = PAGE_SIZE) -> tuple:
    """(rows newest first, the `before` key of the next page or None)."""
    if filters.status == ARCHIVED:
        return archive_page(root, filters, before[1] if before else None, size)
    where, args = filters.sql()
    if before:
        where += " AND (created < ? OR (created = ? AND id < ?))"
        args += [before[0], before[0], before[1]]
    with reading(root) as conn:
        if conn is None:
            return [], None
        rows = _rows(conn, f"SELECT {_LIGHT} FROM chunks WHERE {where} ORDER BY created DESC, id DESC LIMIT ?",
                     args + [size + 1])
    more = len(rows) > size
    rows = rows[:size]
    return rows, (f"{rows[-1]['created']}|{rows[-1]['id']}" if more else None)


def archive_page(root, filters: Filters, before_id=None, size: int = PAGE_SIZE) -> tuple:
    """Archived chunks, newest day first (by id), read file by file only until the page is full."""
    layout = StoreLayout(root)
    try:
        names = sorted((n[:-5] for n in os.listdir(layout.archive_dir) if n.endswith(".json")), reverse=True)
    except OSError:
        return [], None
    rows = []
    for chunk_id in names:
        if (before_id and chunk_id >= before_id) or not is_chunk_id(chunk_id):
            continue
        data = layout.read_file(layout.archive_path(chunk_id))
        if data is None or not filters.match(data):
            continue
        if len(rows) == size:
            return rows, f"{rows[-1]['created']}|{rows[-1]['id']}"
        rows.append(row_of_file(data, archived=True))
    return rows, None


def row_of_file(data: dict, *, archived: bool = False) -> dict:
    """A chunk file as the row shape the lists use."""
    md = data["metadata"]
    return {"id": data["id"], "created": md.get("created", ""), "type": data["type"],
            "kind": md.get("kind", "memory"), "role": md.get("role"), "project": md.get("project"),
            "scope": md.get("scope"), "conversation_id": md.get("conversation_id"),
            "pinned": 1 if md.get("pinned") else 0, "status": ARCHIVED if archived else md.get("status", "active"),
            "sensitivity": md.get("sensitivity", "low"), "tags": " ".join(data.get("tags") or ()),
            "content": data["content"][:400]}


def sessions_page(root, offset: int = 0, size: int = PAGE_SIZE) -> tuple:
    """(sessions newest first, each with its span, counts by kind and its session record's id; more?)."""
    with reading(root) as conn:
        if conn is None:
            return [], False
        found = _rows(
            conn, "SELECT conversation_id AS id, min(created) AS first, max(created) AS last, count(*) AS chunks, "
            "max(project) AS project FROM chunks WHERE conversation_id IS NOT NULL GROUP BY conversation_id "
            "ORDER BY last DESC, id DESC LIMIT ? OFFSET ?", (size + 1, offset))
        sessions = found[:size]
        if sessions:
            marks = ",".join("?" * len(sessions))
            ids = [s["id"] for s in sessions]
            kinds = _rows(conn, f"SELECT conversation_id AS id, kind, count(*) AS n FROM chunks "
                                f"WHERE conversation_id IN ({marks}) GROUP BY 1, 2", ids)
            records = _rows(conn, f"SELECT conversation_id AS id, id AS record, substr(content, 1, 400) AS content, "
                                  f"sensitivity FROM chunks WHERE kind = 'session' AND conversation_id IN ({marks})",
                            ids)
            by_id = {s["id"]: dict(s, kinds={}, record=None, content="", sensitivity=None) for s in sessions}
            for row in kinds:
                by_id[row["id"]]["kinds"][row["kind"]] = row["n"]
            for row in records:
                by_id[row["id"]].update(record=row["record"], content=row["content"], sensitivity=row["sensitivity"])
            sessions = [by_id[i] for i in ids]
    return sessions, len(found) > size


def session_rows(root, conversation_id: str, *, turns: bool, offset: int = 0, size: int = PAGE_SIZE) -> tuple:
    """One session's chunks in the order they were made: its turns, or everything else it captured."""
    where = "conversation_id = ? AND kind " + ("= 'turn'" if turns else "!= 'turn'")
    with reading(root) as conn:
        if conn is None:
            return [], False
        rows = _rows(conn, f"SELECT {_LIGHT} FROM chunks WHERE {where} ORDER BY created, id LIMIT ? OFFSET ?",
                     (conversation_id, size + 1, offset))
    return rows[:size], len(rows) > size


def rows_by_id(root, ids) -> dict:
    """id -> light row for the indexed ones among `ids`."""
    ids = list(ids)
    if not ids:
        return {}
    with reading(root) as conn:
        if conn is None:
            return {}
        rows = _rows(conn, f"SELECT {_LIGHT} FROM chunks WHERE id IN ({','.join('?' * len(ids))})", ids)
    return {r["id"]: r for r in rows}


def links_to(root, chunk_id: str) -> list:
    """(source id, link type) of every indexed chunk that links to `chunk_id`."""
    with reading(root) as conn:
        if conn is None:
            return []
        return conn.execute("SELECT src, type FROM links WHERE dst = ?", (chunk_id,)).fetchall()


def totals(root) -> dict:
    """Counts shown above the list: indexed chunks (a kept row), pinned (a partial index), projects."""
    with reading(root) as conn:
        if conn is None:
            return {"chunks": 0, "pinned": 0, "projects": []}
        return {"chunks": search_index.chunk_count(conn),
                "pinned": conn.execute("SELECT count(*) FROM chunks WHERE pinned = 1").fetchone()[0],
                "projects": [project for project, in conn.execute(
                    "SELECT DISTINCT project FROM chunks WHERE project IS NOT NULL ORDER BY project")]}

