"""The persistent search index: SQLite (stdlib) with FTS5, derived from the chunk files.

index/search.db holds, per active chunk, the columns recall ranks on and the content itself (so hooks never open
chunk files), an FTS5 table over content and tags (BM25, porter stemming), the link table (both directions), each
chunk's tags, and its entry of seed 000's metadata_index.json (so that the JSON index files are written from here,
never by re-reading chunk files). Updated inside the store's write lock on every create/update/delete; `reindex`
recreates it from the files in one transaction. WAL mode: readers never wait for writers, and a reader sees either
the index before a write session or after it, never a half-built one.

meta holds the layout version (`schema`), the chunk folders' fingerprint at the last commit, an `epoch` (a new
token whenever the index is made anew) and a `generation` (+1 on every commit that changed something): together
they say whether the JSON index files are current (json_indexes.py).
"""
import os

from brain.cpython.fast import sqlite3
from brain.util import fastjson
from brain.util.files import FILE_MODE, ensure_dir

DB_NAME = "search.db"
SCHEMA_VERSION = "10"  # 4: when_note/when_spans (relative dates resolved at write time); 5: tags, scope,
# replaced_at, value_kinds; 6: jmeta (the metadata_index.json entry), updated, arrived, epoch and generation;
# 7: file_names; 8: the chunk count kept without triggers (7 is brought to 8 in place); 9: parts; 10: settings

TOKENIZER = "porter unicode61"  # recall reads the index's form of a prompt word with the same one

_TABLES = f"""
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
  updated TEXT,  -- last revised
  arrived TEXT,  -- when an imported or captured memory dated long before entered this store
  tags TEXT NOT NULL DEFAULT '',
  files TEXT NOT NULL DEFAULT '',
  path TEXT NOT NULL,
  mtime_ns INTEGER NOT NULL DEFAULT 0,
  chash TEXT NOT NULL DEFAULT '',
  when_note TEXT NOT NULL DEFAULT '',
  when_spans TEXT NOT NULL DEFAULT '',
  value_kinds TEXT NOT NULL DEFAULT '',
  parts TEXT NOT NULL DEFAULT '',  -- the words inside camelCase names (index/identifiers.py), searched with content
  content TEXT NOT NULL,
  jmeta TEXT NOT NULL DEFAULT ''  -- last: rows are read up to content, and a long row's tail spills to overflow pages
);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
  content, tags, parts, content='chunks', content_rowid='rowid', tokenize='{TOKENIZER}');
CREATE TABLE IF NOT EXISTS links(src TEXT NOT NULL, type TEXT NOT NULL, dst TEXT NOT NULL,
  PRIMARY KEY(src, type, dst)) WITHOUT ROWID;
-- Value changes a turn made (chunk metadata.extra.changes): older memories holding `old` state a replaced value.
CREATE TABLE IF NOT EXISTS changes(project TEXT, old TEXT, new TEXT NOT NULL, at TEXT NOT NULL, id TEXT NOT NULL);
-- Settings a turn's tool calls set or showed (chunk metadata.extra.settings: a file's path, a key, its value; a
-- command's output has no path): capture asks for the value a key had before a later session changes it.
CREATE TABLE IF NOT EXISTS settings(project TEXT, path TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
  at TEXT NOT NULL, id TEXT NOT NULL);
-- Each chunk's tags, exact: auto-linking asks which chunks share a tag (the FTS column stems and splits words).
-- `created` too, so that ranking the chunks that share a tag reads this table alone.
CREATE TABLE IF NOT EXISTS tags(tag TEXT NOT NULL, id TEXT NOT NULL, created TEXT NOT NULL DEFAULT '',
  PRIMARY KEY(tag, id)) WITHOUT ROWID;
-- The last part of each path in a chunk's metadata.files ("models.py"): a prompt naming a file finds the memories
-- about it by one seek (a LIKE over chunks.files reads the whole table: 50 ms a prompt at 100k chunks).
CREATE TABLE IF NOT EXISTS file_names(name TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY(name, id)) WITHOUT ROWID;
-- The number of chunks, kept by insert_many and _delete: hooks show and weigh by it, and count(*) walks a whole
-- index (3 ms at 100k chunks, measured by bench/run.py). Seeded by connect() for an index made before this table.
-- Not by triggers: a statement with a trigger opens a statement savepoint, and FTS5 writes out its pending rows at
-- every savepoint, so each chunk inserted became a one-row segment to merge (8 WAL pages a chunk, not 0.35).
CREATE TABLE IF NOT EXISTS counts(name TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""
# The secondary indexes: a rebuild creates them after the rows are in (one sort each, instead of a random insert
# into each for every row: reindex of 100k chunks, bench/run.py).
_INDEXES = """
CREATE INDEX IF NOT EXISTS chunks_chash ON chunks(chash);
CREATE INDEX IF NOT EXISTS chunks_conv ON chunks(conversation_id, created);
CREATE INDEX IF NOT EXISTS chunks_project ON chunks(project, created);
CREATE INDEX IF NOT EXISTS chunks_kind ON chunks(kind, created);
-- session-start selection (core.py): pinned, recently used and most used walks, each a short LIMITed scan
CREATE INDEX IF NOT EXISTS chunks_pinned ON chunks(created) WHERE pinned=1;
CREATE INDEX IF NOT EXISTS chunks_accessed ON chunks(last_accessed, kind) WHERE last_accessed IS NOT NULL;
CREATE INDEX IF NOT EXISTS chunks_uses ON chunks(access_count, kind) WHERE access_count > 0;
CREATE INDEX IF NOT EXISTS links_dst ON links(dst, type);
CREATE INDEX IF NOT EXISTS tags_id ON tags(id);
CREATE INDEX IF NOT EXISTS file_names_id ON file_names(id);
CREATE INDEX IF NOT EXISTS changes_project ON changes(project, at);
CREATE INDEX IF NOT EXISTS changes_id ON changes(id);
CREATE INDEX IF NOT EXISTS settings_key ON settings(project, key);
CREATE INDEX IF NOT EXISTS settings_path ON settings(project, path);
CREATE INDEX IF NOT EXISTS settings_id ON settings(id);
"""
_SCHEMA = _TABLES + _INDEXES

_COLUMNS = ("id", "created", "type", "kind", "role", "project", "scope", "conversation_id", "confidence", "importance",
            "pinned", "status", "replaced_at", "sensitivity", "category", "tokens", "access_count", "last_accessed",
            "updated", "arrived", "tags", "files", "path", "mtime_ns", "chash", "when_note", "when_spans", "value_kinds",
            "parts", "content", "jmeta")


def db_path(root) -> str:
    return os.path.join(os.fspath(root), "index", DB_NAME)


def is_stale(root) -> bool:
    """True when chunk folders changed since the index was last committed (or there is no index yet)."""
    return staleness(root) is not None


def staleness(root):
    """Why the index is out of date: None (it is not), "files" (chunk folders changed since its last commit),
    "layout" (an older rlm-mem made it) or "damaged" (missing while there are chunk files, or not a database):
    the last two need a whole rebuild, too long for a hook to wait on."""
    from brain.index.fingerprint import index_readable, month_fingerprint  # not the prompt hook's: it never asks

    chunks = os.path.isdir(os.path.join(os.fspath(root), "chunks"))
    if not index_readable(root):
        return "damaged" if chunks else None
    conn = connect(root, readonly=True)
    try:
        if _older(schema_version(conn)):
            return "layout"  # the next writer rebuilds it (migrate_if_older)
        return None if get_meta(conn, "fingerprint", None) == month_fingerprint(root) else "files"
    except sqlite3.DatabaseError:  # not a database, or damaged tables: a writer (the worker) rebuilds it
        return "damaged"
    except ValueError:  # a damaged meta value: treat as stale, a writer re-indexes
        return "files"
    finally:
        conn.close()


# The hooks' readers (recall, the brief) map the file instead of copying each page they read through a system call:
# the prompt hook at 100,000 memories 36.1 -> 33.7 ms median (bench workspace, alternated with the default). Only
# they: a reader that streams the whole file (the JSON pass after reindex) would count every page it touched as
# its own memory (peak RSS 83 -> 214 MB), though they are the page cache's. A mapping is unsafe only if a writer
# shrinks the file under it; none does (no VACUUM, no auto_vacuum: freed pages stay in the file, reindex included;
# `discard` unlinks it, which leaves a reader's mapping whole).
READ_MMAP_BYTES = 256 * 1024 * 1024


def connect(root, *, readonly: bool = False, mapped: bool = False) -> sqlite3.Connection | None:
    """Open the index. Read-only callers get None when it does not exist yet (nothing indexed); `mapped`: read it
    through a memory map (the hooks' short reads; see READ_MMAP_BYTES)."""
    path = db_path(root)
    if readonly:
        if not os.path.exists(path):
            return None
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5, isolation_level=None)
        if mapped:
            conn.execute(f"PRAGMA mmap_size={READ_MMAP_BYTES}")
    else:
        ensure_dir(os.path.dirname(path))
        # create the file owner-only first: SQLite gives the -wal/-shm files the mode of the database file
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE))
        conn = sqlite3.connect(path, timeout=30, isolation_level=None)  # explicit BEGIN/COMMIT
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.executescript(_SCHEMA)
            conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES('schema', ?)", (SCHEMA_VERSION,))
            conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES('epoch', ?)", (_new_epoch(),))
            if conn.execute("SELECT 1 FROM counts WHERE name='chunks'").fetchone() is None:
                conn.execute("INSERT OR IGNORE INTO counts(name, value) SELECT 'chunks', count(*) FROM chunks")
        except BaseException:
            conn.close()
            raise
        os.chmod(path, 0o600)
    conn.execute("PRAGMA busy_timeout=10000")
    return conn


def connect_memory() -> sqlite3.Connection:
    """An empty index in memory, for a write session that cannot reach the file (it keeps nothing)."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.executescript(_SCHEMA)
    conn.execute("INSERT INTO counts(name, value) VALUES('chunks', 0)")
    return conn


def _is_damage(exc: Exception) -> bool:
    """A database error that says the file is not (or no longer) a usable database, as opposed to a busy or
    locked one, a full disk or a read-only folder, which rebuilding would not cure."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    text = str(exc).lower()
    return "not a database" in text or "malformed" in text or "corrupt" in text


def discard(root) -> None:
    """Remove the index files (the database, its WAL and shared-memory files): they are derived."""
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(db_path(root) + suffix)
        except FileNotFoundError:
            pass


# A write connection kept between the write sessions of one batch job (ChunkStore.batched: an import, a store
# build) in this process and thread: its page cache (64 MB) stays warm from one batch to the next (bench/run.py).
# Only for a job's length: a connection kept open longer would outlive a person's deleting the index by hand, and
# SQLite would then remove the new index's WAL when it closes.
_KEPT: dict = {}


def _file_id(path: str):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def keep_writer(root, conn: sqlite3.Connection) -> None:
    """Keep a write connection that ended its transaction for the next write session of the batch job."""
    from threading import get_ident  # writers only: threading would cost the prompt hook ~1.5 ms

    release_writer(root)
    _KEPT[db_path(root)] = (conn, _file_id(db_path(root)), get_ident())


def release_writer(root) -> None:
    """Close the connection kept for `root` (the batch job is over)."""
    kept = _KEPT.pop(db_path(root), None)
    if kept is not None:
        kept[0].close()


def connect_for_writing(root) -> tuple:
    """(connection, why it was replaced or None). An index file that is not a database (or is damaged where a
    writer first looks) is discarded and made anew: it is derived, so a write never fails because of it, and the
    caller's sync re-indexes every chunk file into the new one. The connection kept by keep_writer is reused
    when it is this file's (not replaced since) and this thread's."""
    kept = _KEPT.pop(db_path(root), None)
    if kept is not None:
        from threading import get_ident  # a batch job's kept connection: threading is loaded by then

        conn, file_id, thread = kept
        if file_id is not None and file_id == _file_id(db_path(root)) and thread == get_ident():
            try:
                conn.execute("SELECT value FROM meta WHERE key='schema'").fetchall()
                return conn, None
            except sqlite3.Error:
                pass
        conn.close()
    try:
        conn = connect(root)
        try:
            conn.execute("SELECT value FROM meta WHERE key='fingerprint'").fetchall()
            conn.execute("SELECT rowid FROM chunks ORDER BY rowid DESC LIMIT 1").fetchall()
        except BaseException:
            conn.close()
            raise
        return conn, None
    except sqlite3.DatabaseError as exc:
        if not _is_damage(exc):
            raise
        discard(root)
        return connect(root), str(exc)


def _new_epoch() -> str:
    return fastjson.dumps(os.urandom(8).hex())


def generation(conn: sqlite3.Connection) -> tuple:
    """(epoch, generation): which index this is and how many committed write sessions changed it."""
    return get_meta(conn, "epoch", None), int(get_meta(conn, "generation", 0) or 0)


def next_generation(conn: sqlite3.Connection) -> None:
    """Inside the caller's write transaction: one more change committed."""
    set_meta(conn, "generation", int(get_meta(conn, "generation", 0) or 0) + 1)


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
    version = schema_version(conn)
    if version == SCHEMA_VERSION:
        _drop_count_triggers(conn)  # an older rlm-mem sharing the store (another install) made them again
        return False
    if not _older(version):
        return False
    if version == "7":  # the rows are as they should be: changed in place, nothing re-indexed
        _drop_count_triggers(conn)
        for statement in _statements(_SCHEMA):  # the tables a later layout added (empty: no chunk had them)
            conn.execute(statement)
        conn.execute("UPDATE meta SET value=? WHERE key='schema'", (SCHEMA_VERSION,))
        return False
    recreate(conn)
    return True


def _drop_count_triggers(conn: sqlite3.Connection) -> None:
    """Layout 7's triggers that kept the chunk count: dropped, and the count made right again (with them and the
    counting in insert_many, each row counted twice)."""
    found = conn.execute("SELECT name FROM sqlite_master WHERE type='trigger' "
                         "AND name IN ('chunks_counted_in', 'chunks_counted_out')").fetchall()
    for (name,) in found:
        conn.execute(f"DROP TRIGGER {name}")
    if found:
        conn.execute("UPDATE counts SET value=(SELECT count(*) FROM chunks) WHERE name='chunks'")


def recreate(conn: sqlite3.Connection, *, bulk: bool = False) -> None:
    """Inside the caller's write transaction: every table dropped and made anew, empty, with a new epoch. Readers
    keep seeing the old index until the caller commits (WAL). `bulk`: for a rebuild that then inserts every chunk
    (insert_many) and calls end_bulk: the secondary indexes come last, the full-text index merges once."""
    for kind, name in conn.execute("SELECT type, name FROM sqlite_master WHERE type IN ('table', 'trigger') "
                                   "AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'fts_%'").fetchall():
        conn.execute(f'DROP {kind.upper()} IF EXISTS "{name}"')
    for statement in _statements(_TABLES if bulk else _SCHEMA):
        conn.execute(statement)
    conn.execute("INSERT INTO meta(key, value) VALUES('schema', ?)", (SCHEMA_VERSION,))
    conn.execute("INSERT INTO meta(key, value) VALUES('epoch', ?)", (_new_epoch(),))
    conn.execute("INSERT INTO counts(name, value) VALUES('chunks', 0)")
    if bulk:
        conn.execute("INSERT INTO fts(fts, rank) VALUES('automerge', 0)")  # no merging while rows stream in


def end_bulk(conn: sqlite3.Connection) -> None:
    """After a bulk rebuild's rows: the secondary indexes, and the full-text index's default merging."""
    for statement in _statements(_INDEXES):
        conn.execute(statement)
    conn.execute("INSERT INTO fts(fts, rank) VALUES('automerge', 4)")


def row_of(chunk: dict, path: str, mtime_ns: int = 0) -> tuple:
    md = chunk["metadata"]
    return (
        chunk["id"], md["created"], chunk["type"], md.get("kind", "memory"), md.get("role"), md.get("project"),
        md.get("scope"), md.get("conversation_id"), float(md.get("confidence", 0.8)), md.get("importance"),
        1 if md.get("pinned") else 0, md.get("status", "active"), md.get("superseded_at"),
        md.get("sensitivity", "low"), md.get("category"),
        int(chunk["tokens"]), int(md.get("access_count") or 0), md.get("last_accessed"), md.get("updated"),
        md.get("arrived"),
        " ".join(chunk.get("tags") or ()), "\n".join(md.get("files") or ()), path, mtime_ns,
        content_hash(chunk["content"]), *_when(chunk["content"], md["created"]), _value_kinds(chunk["content"]),
        _identifier_parts(chunk["content"]), chunk["content"], _metadata_entry(chunk, path),
    )


def _metadata_entry(chunk: dict, path: str) -> str:
    from brain.index.json_indexes import entry_text  # json and pathlib: writers only, never the prompt hook

    return entry_text(chunk, path)


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


def _identifier_parts(content: str) -> str:
    from brain.index.identifiers import identifier_parts  # re: writers only, never the prompt hook

    return identifier_parts(content)


def content_hash(text: str) -> str:
    """Identity of a memory's words for write-time dedup: case and whitespace do not make a new memory."""
    from brain.util.fasthash import sha1  # writers only: the prompt hook never hashes content

    return sha1(" ".join(text.lower().split()).encode("utf-8")).hexdigest()


def _delete(conn: sqlite3.Connection, chunk_id: str) -> None:
    row = conn.execute("SELECT rowid, content, tags, parts FROM chunks WHERE id=?", (chunk_id,)).fetchone()
    if row:
        conn.execute("INSERT INTO fts(fts, rowid, content, tags, parts) VALUES('delete', ?, ?, ?, ?)", row)
        conn.execute("DELETE FROM chunks WHERE rowid=?", (row[0],))
        conn.execute("UPDATE counts SET value = value - 1 WHERE name = 'chunks'")
    conn.execute("DELETE FROM links WHERE src=?", (chunk_id,))
    conn.execute("DELETE FROM tags WHERE id=?", (chunk_id,))
    conn.execute("DELETE FROM file_names WHERE id=?", (chunk_id,))
    conn.execute("DELETE FROM changes WHERE id=?", (chunk_id,))
    conn.execute("DELETE FROM settings WHERE id=?", (chunk_id,))


_INSERT = f"INSERT INTO chunks({','.join(_COLUMNS)}) VALUES({','.join('?' * len(_COLUMNS))})"
_ID, _CREATED, _CONTENT, _FILES, _PARTS = (_COLUMNS.index(c) for c in ("id", "created", "content", "files", "parts"))


def item_of(chunk: dict, path: str, mtime_ns: int = 0) -> tuple:
    """Everything the index keeps of a chunk, as plain tuples (small enough to pass between processes): (row,
    tags, link triples, value changes, settings)."""
    md, cid = chunk["metadata"], chunk["id"]
    links = [(cid, t, d) for t, ds in (chunk.get("links") or {}).items() for d in ds or ()]
    extra = md.get("extra") if isinstance(md.get("extra"), dict) else {}
    changes, settings = extra.get("changes"), extra.get("settings")
    changes = [(md.get("project"), c.get("old"), c["new"], md["created"], cid) for c in changes
               if isinstance(c, dict) and isinstance(c.get("new"), str)] if isinstance(changes, list) else []
    settings = [(md.get("project"), s.get("path") or "", s["key"], s["value"], md["created"], cid) for s in settings
                if isinstance(s, dict) and isinstance(s.get("key"), str) and isinstance(s.get("value"), str)
                and isinstance(s.get("path") or "", str)] if isinstance(settings, list) else []
    return row_of(chunk, path, mtime_ns), tuple(chunk.get("tags") or ()), links, changes, settings


def insert(conn: sqlite3.Connection, chunk: dict, path: str, mtime_ns: int = 0) -> None:
    """Index a chunk the caller knows is not indexed (a new id); an id that is there after all is replaced."""
    item = item_of(chunk, path, mtime_ns)
    try:
        insert_many(conn, [item])
    except sqlite3.IntegrityError:
        replace_item(conn, item)


def upsert(conn: sqlite3.Connection, chunk: dict, path: str, mtime_ns: int = 0) -> None:
    replace_item(conn, item_of(chunk, path, mtime_ns))


def replace_item(conn: sqlite3.Connection, item: tuple) -> None:
    """Index an item_of tuple, replacing what the index holds for its id."""
    _delete(conn, item[0][_ID])
    insert_many(conn, [item])


def insert_many(conn: sqlite3.Connection, items: list) -> None:
    """Index chunks not indexed yet (item_of tuples). IntegrityError when an id is there already: for one item
    nothing is written; a rebuild's batch rolls back to its savepoint and uses replace_item."""
    conn.executemany(_INSERT, [item[0] for item in items])
    first = conn.execute("SELECT last_insert_rowid()").fetchone()[0] - len(items) + 1
    conn.execute("UPDATE counts SET value = value + ? WHERE name = 'chunks'", (len(items),))
    conn.executemany("INSERT INTO fts(rowid, content, tags, parts) VALUES(?, ?, ?, ?)",
                     [(first + i, item[0][_CONTENT], " ".join(item[1]), item[0][_PARTS])
                      for i, item in enumerate(items)])
    conn.executemany("INSERT OR IGNORE INTO links(src, type, dst) VALUES(?, ?, ?)",
                     [link for item in items for link in item[2]])
    conn.executemany("INSERT OR IGNORE INTO tags(tag, id, created) VALUES(?, ?, ?)",
                     [(t, item[0][_ID], item[0][_CREATED]) for item in items for t in item[1]])
    conn.executemany("INSERT INTO changes(project, old, new, at, id) VALUES(?, ?, ?, ?, ?)",
                     [change for item in items for change in item[3]])
    settings = [setting for item in items for setting in item[4]]
    if settings:
        conn.executemany("INSERT INTO settings(project, path, key, value, at, id) VALUES(?, ?, ?, ?, ?, ?)",
                         settings)
    named = [(name, item[0][_ID]) for item in items if item[0][_FILES] for name in file_names(item[0][_FILES])]
    if named:
        conn.executemany("INSERT OR IGNORE INTO file_names(name, id) VALUES(?, ?)", named)


def file_names(files: str) -> set:
    """The file names of a chunks.files value (paths, one a line): what follows each path's last "/", as recall
    compares them (a folder's path, ending in "/", names no file)."""
    return {path.rsplit("/", 1)[-1] for path in files.split("\n")} - {""}


def set_mtimes(conn: sqlite3.Connection, pairs) -> None:
    """Record the chunk files' mtimes, [(mtime_ns, chunk id)], once they are known (a batch writes them later)."""
    conn.executemany("UPDATE chunks SET mtime_ns=? WHERE id=?", pairs)


def remove(conn: sqlite3.Connection, chunk_id: str) -> None:
    _delete(conn, chunk_id)


def purge_traces(conn: sqlite3.Connection) -> None:
    """After deleting text for good (outside any transaction): merge the full-text index into one segment, so
    that no old segment keeps the deleted words (FTS5 only marks them deleted until segments merge), and move the
    WAL into the database and empty it (it holds the pages as they were). With secure_delete, which writers set,
    freed pages and cells are zeroed as they are freed."""
    conn.execute("INSERT INTO fts(fts) VALUES('optimize')")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


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


def indexed_ids(conn: sqlite3.Connection, months=None) -> dict:
    """id -> indexed file mtime, of every chunk or of those whose id is of one of `months` (YYYY-MM)."""
    rows = conn.execute("SELECT id, mtime_ns FROM chunks")
    return dict(rows) if months is None else {cid: m for cid, m in rows if cid[6:13] in months}
