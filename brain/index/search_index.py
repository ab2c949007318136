"""The persistent search index: SQLite (stdlib) with FTS5, derived from the chunk files.

index/search.db holds, per active chunk, the columns recall ranks on and the content itself (so hooks never open
chunk files), an FTS5 table over content and tags (BM25, porter stemming), and the link table (both directions).
Updated inside the store's write lock on every create/update/delete; `rebuild` recreates it from the files.
WAL mode: readers never wait for writers.
"""
import os

from brain.index.fingerprint import month_fingerprint
from brain.util import fastjson
from brain.util.fasthash import sha1
from brain.util.files import FILE_MODE, ensure_dir
from brain.util.sqlite import sqlite3

DB_NAME = "search.db"
SCHEMA_VERSION = "5"  # 4: when_note/when_spans (relative dates resolved at write time); 5: tags, scope,
# replaced_at, value_kinds

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS chunks(
  rowid INTEGER PRIMARY KEY,
  id TEXT UNIQUE NOT NULL,
  created TEXT NOT NULL,
  type TEXT NOT NULL,
  kind TEXT NOT NULL DEFAULT 'memory',
  role TEXT,
  project TEXT,
  scope TEXT,
  conversation_id TEXT,
  confidence REAL NOT NULL DEFAULT 0.8,
  importance REAL,
  pinned INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL DEFAULT 'active',
  replaced_at TEXT,
  sensitivity TEXT NOT NULL DEFAULT 'low',
  category TEXT,
  tokens INTEGER NOT NULL,
  access_count INTEGER NOT NULL DEFAULT 0,
  last_accessed TEXT,
  tags TEXT NOT NULL DEFAULT '',
  files TEXT NOT NULL DEFAULT '',
  path TEXT NOT NULL,
  mtime_ns INTEGER NOT NULL DEFAULT 0,
  chash TEXT NOT NULL DEFAULT '',
  when_note TEXT NOT NULL DEFAULT '',
  when_spans TEXT NOT NULL DEFAULT '',
  value_kinds TEXT NOT NULL DEFAULT '',
  content TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_chash ON chunks(chash);
CREATE INDEX IF NOT EXISTS chunks_conv ON chunks(conversation_id, created);
CREATE INDEX IF NOT EXISTS chunks_project ON chunks(project, created);
CREATE INDEX IF NOT EXISTS chunks_kind ON chunks(kind, created);
-- session-start selection (core.py): pinned, recently used and most used walks, each a short LIMITed scan
CREATE INDEX IF NOT EXISTS chunks_pinned ON chunks(created) WHERE pinned=1;
CREATE INDEX IF NOT EXISTS chunks_accessed ON chunks(last_accessed, kind) WHERE last_accessed IS NOT NULL;
CREATE INDEX IF NOT EXISTS chunks_uses ON chunks(access_count, kind) WHERE access_count > 0;
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
  content, tags, content='chunks', content_rowid='rowid', tokenize='porter unicode61');
CREATE TABLE IF NOT EXISTS links(src TEXT NOT NULL, type TEXT NOT NULL, dst TEXT NOT NULL,
  PRIMARY KEY(src, type, dst)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS links_dst ON links(dst, type);
-- Value changes a turn made (chunk metadata.extra.changes): older memories holding `old` state a replaced value.
CREATE TABLE IF NOT EXISTS changes(project TEXT, old TEXT, new TEXT NOT NULL, at TEXT NOT NULL, id TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS changes_project ON changes(project, at);
CREATE INDEX IF NOT EXISTS changes_id ON changes(id);
-- Each chunk's tags, exact: auto-linking asks which chunks share a tag (the FTS column stems and splits words).
CREATE TABLE IF NOT EXISTS tags(tag TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY(tag, id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tags_id ON tags(id);
-- The number of chunks, kept by triggers: hooks show and weigh by it, and count(*) walks a whole index
-- (3 ms at 100k chunks, measured by bench/run.py). Seeded by connect() for an index made before this table.
CREATE TABLE IF NOT EXISTS counts(name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TRIGGER IF NOT EXISTS chunks_counted_in AFTER INSERT ON chunks
  BEGIN UPDATE counts SET value = value + 1 WHERE name = 'chunks'; END;
CREATE TRIGGER IF NOT EXISTS chunks_counted_out AFTER DELETE ON chunks
  BEGIN UPDATE counts SET value = value - 1 WHERE name = 'chunks'; END;
"""

_COLUMNS = ("id", "created", "type", "kind", "role", "project", "scope", "conversation_id", "confidence", "importance",
            "pinned", "status", "replaced_at", "sensitivity", "category", "tokens", "access_count", "last_accessed", "tags",
            "files", "path", "mtime_ns", "chash", "when_note", "when_spans", "value_kinds", "content")


def db_path(root) -> str:
    return os.path.join(os.fspath(root), "index", DB_NAME)


def is_stale(root) -> bool:
    """True when chunk folders changed since the index was last committed (or there is no index yet)."""
    return staleness(root) is not None


def staleness(root):
    """Why the index is out of date: None (it is not), "files" (chunk folders changed since its last commit, or
    there is none yet) or "layout" (an older rlm-mem made it: a whole rebuild, too long for a hook to wait on)."""
    conn = connect(root, readonly=True)
    if conn is None:
        return "files" if os.path.isdir(os.path.join(os.fspath(root), "chunks")) else None
    try:
        if _older(schema_version(conn)):
            return "layout"  # the next writer rebuilds it (migrate_if_older)
        return None if get_meta(conn, "fingerprint", None) == month_fingerprint(root) else "files"
    except (sqlite3.Error, ValueError):  # a damaged value or tables: treat as stale, a writer rebuilds
        return "files"
    finally:
        conn.close()


def connect(root, *, readonly: bool = False) -> sqlite3.Connection | None:
    """Open the index. Read-only callers get None when it does not exist yet (nothing indexed)."""
    path = db_path(root)
    if readonly:
        if not os.path.exists(path):
            return None
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5, isolation_level=None)
    else:
        ensure_dir(os.path.dirname(path))
        # create the file owner-only first: SQLite gives the -wal/-shm files the mode of the database file
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE))
        conn = sqlite3.connect(path, timeout=30, isolation_level=None)  # explicit BEGIN/COMMIT
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.executescript(_SCHEMA)
        conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES('schema', ?)", (SCHEMA_VERSION,))
        if conn.execute("SELECT 1 FROM counts WHERE name='chunks'").fetchone() is None:
            conn.execute("INSERT OR IGNORE INTO counts(name, value) SELECT 'chunks', count(*) FROM chunks")
        os.chmod(path, 0o600)
    conn.execute("PRAGMA busy_timeout=10000")
    return conn


def _older(version) -> bool:
    try:
        return int(version) < int(SCHEMA_VERSION)
    except (TypeError, ValueError):  # no version row or an unreadable one: made before versions were kept
        return True


def _statements(script: str):
    """The statements of a script, one by one (a trigger's body holds ";" too)."""
    pending = ""
    for line in script.splitlines(keepends=True):
        if line.lstrip().startswith("--"):
            continue
        pending += line
        if sqlite3.complete_statement(pending):
            yield pending.strip()
            pending = ""


def migrate_if_older(conn: sqlite3.Connection) -> bool:
    """Inside the caller's write transaction: drop an index made by an older rlm-mem and create the current
    layout. It is derived, and without its fingerprint the caller re-indexes every chunk file into it before it
    commits. One transaction: a writer killed half-way leaves the old index whole (SQLite's DDL rolls back).
    An index made by a newer rlm-mem is left alone (two installed versions must not rebuild each other's)."""
    if not _older(schema_version(conn)):
        return False
    for kind, name in conn.execute("SELECT type, name FROM sqlite_master WHERE type IN ('table', 'trigger') "
                                   "AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'fts_%'").fetchall():
        conn.execute(f'DROP {kind.upper()} IF EXISTS "{name}"')
    for statement in _statements(_SCHEMA):
        conn.execute(statement)
    conn.execute("INSERT INTO meta(key, value) VALUES('schema', ?)", (SCHEMA_VERSION,))
    conn.execute("INSERT INTO counts(name, value) VALUES('chunks', 0)")
    return True


def row_of(chunk: dict, path: str, mtime_ns: int = 0) -> tuple:
    md = chunk["metadata"]
    return (
        chunk["id"], md["created"], chunk["type"], md.get("kind", "memory"), md.get("role"), md.get("project"),
        md.get("scope"), md.get("conversation_id"), float(md.get("confidence", 0.8)), md.get("importance"),
        1 if md.get("pinned") else 0, md.get("status", "active"), md.get("superseded_at"), md.get("sensitivity", "low"),
        md.get("category"),
        int(chunk["tokens"]), int(md.get("access_count") or 0), md.get("last_accessed"),
        " ".join(chunk.get("tags") or ()), "\n".join(md.get("files") or ()), path, mtime_ns,
        content_hash(chunk["content"]), *_when(chunk["content"], md["created"]), _value_kinds(chunk["content"]),
        chunk["content"],
    )


def _when(content: str, created) -> tuple:
    """Relative dates ("yesterday", "last week") resolved once, when a memory is indexed, so recall shows and
    matches them without parsing text on every prompt (the parser needs `re`, ~3 ms of the prompt hook)."""
    from brain.util.timeref import resolved  # re and datetime: writers only, never the prompt hook

    return resolved(content, created)


def _value_kinds(content: str) -> str:
    """The kinds of value a memory states ("duration url"), found once when it is indexed, so that "how long
    ...?" can favour a memory holding a duration without the prompt hook reading any regex."""
    from brain.util.values import coarse_kinds  # re: writers only, never the prompt hook

    return coarse_kinds(content)


def content_hash(text: str) -> str:
    """Identity of a memory's words for write-time dedup: case and whitespace do not make a new memory."""
    return sha1(" ".join(text.lower().split()).encode("utf-8")).hexdigest()


def _delete(conn: sqlite3.Connection, chunk_id: str) -> None:
    row = conn.execute("SELECT rowid, content, tags FROM chunks WHERE id=?", (chunk_id,)).fetchone()
    if row:
        conn.execute("INSERT INTO fts(fts, rowid, content, tags) VALUES('delete', ?, ?, ?)", row)
        conn.execute("DELETE FROM chunks WHERE rowid=?", (row[0],))
    conn.execute("DELETE FROM links WHERE src=?", (chunk_id,))
    conn.execute("DELETE FROM tags WHERE id=?", (chunk_id,))
    conn.execute("DELETE FROM changes WHERE id=?", (chunk_id,))


def upsert(conn: sqlite3.Connection, chunk: dict, path: str, mtime_ns: int = 0) -> None:
    _delete(conn, chunk["id"])
    cur = conn.execute(
        f"INSERT INTO chunks({','.join(_COLUMNS)}) VALUES({','.join('?' * len(_COLUMNS))})",
        row_of(chunk, path, mtime_ns))
    conn.execute("INSERT INTO fts(rowid, content, tags) VALUES(?, ?, ?)",
                 (cur.lastrowid, chunk["content"], " ".join(chunk.get("tags") or ())))
    conn.executemany("INSERT OR IGNORE INTO links(src, type, dst) VALUES(?, ?, ?)",
                     [(chunk["id"], t, d) for t, ds in (chunk.get("links") or {}).items() for d in ds or ()])
    conn.executemany("INSERT OR IGNORE INTO tags(tag, id) VALUES(?, ?)", [(t, chunk["id"]) for t in chunk.get("tags") or ()])
    md = chunk["metadata"]
    changes = (md.get("extra") or {}).get("changes") if isinstance(md.get("extra"), dict) else None
    if isinstance(changes, list):
        conn.executemany("INSERT INTO changes(project, old, new, at, id) VALUES(?, ?, ?, ?, ?)",
                         [(md.get("project"), c.get("old"), c["new"], md["created"], chunk["id"]) for c in changes
                          if isinstance(c, dict) and isinstance(c.get("new"), str)])


def remove(conn: sqlite3.Connection, chunk_id: str) -> None:
    _delete(conn, chunk_id)


def clear(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM chunks")
    conn.execute("INSERT INTO fts(fts) VALUES('delete-all')")
    conn.execute("DELETE FROM links")
    conn.execute("DELETE FROM tags")
    conn.execute("DELETE FROM changes")


def chunk_count(conn: sqlite3.Connection) -> int:
    """How many chunks are indexed: one row read (count(*) only for an index no writer has opened since)."""
    try:
        row = conn.execute("SELECT value FROM counts WHERE name='chunks'").fetchone()
    except sqlite3.OperationalError:  # an index from before the counts table
        row = None
    return row[0] if row else conn.execute("SELECT count(*) FROM chunks").fetchone()[0]


def set_meta(conn: sqlite3.Connection, key: str, value) -> None:
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (key, fastjson.dumps(value)))


def get_meta(conn: sqlite3.Connection, key: str, default=None):
    row = conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    return fastjson.loads(row[0]) if row else default


def schema_version(conn: sqlite3.Connection):
    """The layout version the index was made with (stored as plain text, not JSON like the other meta values)."""
    row = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    return row[0] if row else None


def indexed_ids(conn: sqlite3.Connection) -> dict:
    return dict(conn.execute("SELECT id, mtime_ns FROM chunks"))
