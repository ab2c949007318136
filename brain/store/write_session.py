"""One locked write session: chunk files are written at once, the search index is committed once at the end.

`writing(layout)` takes the store lock (index/.store.lock, with a timeout), opens the search index in one
`BEGIN IMMEDIATE` transaction and yields a WriteSession. Before anything else it re-indexes the month folders
whose chunk files changed behind rlm-mem's back (a git pull, a crash, a hand edit), rebuilds an index an older
rlm-mem made, and replaces an index that is not a database any more (it is derived: a write never fails because
of it), all in the same transaction. On success the transaction commits with the new month fingerprint and the
next generation number (what the JSON indexes are compared with: see json_indexes.py); seed 000's JSON index
files are not on this path.

What a failed write leaves, exactly:
- a chunk file could not be written (a full disk, a read-only folder): the new chunk files this session wrote are
  removed again and StoreUnwritable says that nothing was saved;
- the chunk files are on disk but the index could not be committed: the write stands (chunk files are the
  source of truth), the caller is told through `index_error` and a logged warning, and the next write's sync
  indexes the files (their month folders changed).
A death mid-session (kill -9, KeyboardInterrupt) leaves the chunk files it wrote; the next session's sync picks
them up.

A bulk session writes its files through util/files.BatchWriter, atomically but without an fsync each; before it
commits, the session makes them and their folders durable at once and records their mtimes in the index.
"""
import logging
import os
from contextlib import contextmanager
from json import dumps
from json.encoder import encode_basestring
from pathlib import Path

from brain.cpython.fast import sqlite3
from brain.index import search_index
from brain.index.fingerprint import month_fingerprint
from brain.store.chunk import month_of, validate_chunk_id
from brain.store.links import count_tag_rows, referrers
from brain.util import fastjson
from brain.util.errors import StoreUnwritable
from brain.util.files import BatchWriter, atomic_write_encoded, store_lock

log = logging.getLogger("rlm_mem")
_CACHE = "-65536"  # KiB


def mtime_ns(path) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


def _pretty(value, indent: str) -> str:
    """json.dumps(value, indent=2, ensure_ascii=False), about twice as fast (the standard encoder has no C path
    once `indent` is given): containers laid out here, every other value spelled by fastjson as json spells it;
    TypeError for what JSON cannot hold (a key that is not a string included)."""
    kind = type(value)
    if kind is dict and value:
        inner = indent + "  "
        return ("{\n" + ",\n".join(f"{inner}{encode_basestring(k)}: {_pretty(v, inner)}" for k, v in value.items())
                + f"\n{indent}}}")
    if kind in (list, tuple) and value:
        inner = indent + "  "
        return "[\n" + ",\n".join(inner + _pretty(v, inner) for v in value) + f"\n{indent}]"
    return fastjson.dumps(value)


def chunk_text(data: dict) -> bytes:
    """A chunk file's bytes: seed 000's pretty-printed UTF-8 JSON."""
    try:
        text = _pretty(data, "")
        if any(type(k) is not str for k in data):
            raise TypeError("key")
    except TypeError:  # a value or key of another kind: the standard encoder decides
        text = dumps(data, indent=2, ensure_ascii=False)
    return (text + "\n").encode("utf-8")


@contextmanager
def writing(layout, *, lock_timeout=None, bulk: bool = False, keep: bool = False):
    """Lock the store and yield a WriteSession; commit when the block ends without error. `keep`: leave the index
    connection open for the next session of a batch job (search_index.keep_writer)."""
    layout.ensure()
    with store_lock(layout.root, lock_timeout):
        session = WriteSession(layout, bulk=bulk, keep=keep)
        try:
            yield session
        except Exception:
            session.abort(discard_new=True)  # a failure we report: nothing of it stays behind
            raise
        except BaseException:
            session.abort(discard_new=False)  # stands for a death (kill -9 never gets here): like one
            raise
        session.commit()


class WriteSession:
    def __init__(self, layout, *, bulk: bool = False, keep: bool = False):
        self.layout = layout
        self.keep = keep
        self.added: list = []
        self.new_paths: list = []  # chunk files this session created: removed again if it fails
        self.saved: list = []  # ids whose chunk file this session wrote, moved or removed
        self.index_error = None  # why the index could not be updated (the chunk files stand)
        self.batch = BatchWriter() if bulk else None
        self.pending: dict = {}  # path -> chunk, written by the batch writer and not yet known to be on disk
        self.changed = False
        self.tag_rows: dict = {}  # tag -> {id: created} of its rows in the index, read once a session (links.py)
        self._chunks, self._archive = os.fspath(layout.chunks_dir), os.fspath(layout.archive_dir)
        self._checked: set = set()  # chunk folders found free of links in this session
        self.replaced = None
        self.mtimes: dict = {}
        try:
            self.conn, self.replaced = search_index.connect_for_writing(layout.root)
            if self.replaced:
                log.warning("the search index under %s was damaged (%s); it is rebuilt from the chunk files",
                            layout.root, self.replaced)
            self.conn.execute("PRAGMA secure_delete=ON")  # deleted text is overwritten, never left in free pages
            self.conn.execute(f"PRAGMA cache_size={_CACHE}")
            self.conn.execute("BEGIN IMMEDIATE")
            search_index.migrate_if_older(self.conn)  # then _sync finds no fingerprint and re-indexes every file
            self.synced = self._sync()
        except (sqlite3.Error, OSError) as exc:  # a full disk, an unopenable file: derived data never stops a write
            self._without_index(exc)
            self.synced = None

    def _without_index(self, exc) -> None:
        """Go on with the chunk files only. The session's index operations go to an empty in-memory index (links
        within the batch still work); nothing of it is kept, and since the month folders change, the next write
        that can reach the index re-indexes these files."""
        self.index_error = str(exc)
        self.tag_rows = {}  # what was read from the index left behind
        old = getattr(self, "conn", None)
        if old is not None:
            try:
                old.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            old.close()
        self.conn = search_index.connect_memory()
        self.conn.execute("BEGIN")

    def _index(self, operation, *args) -> None:
        """An index operation; the first one that fails turns the session to files only (see _without_index)."""
        try:
            operation(self.conn, *args)
        except sqlite3.OperationalError as exc:  # a full disk, an I/O error (damage shows when the file opens)
            if self.index_error is not None:
                raise
            self._without_index(exc)
            operation(self.conn, *args)
        self.changed = True

    def _sync(self):
        """Re-index the month folders whose mtime differs from the one recorded at the last commit."""
        stored = search_index.get_meta(self.conn, "fingerprint", None)
        current = month_fingerprint(self.layout.root)
        if stored == current:
            return None
        stored = stored or {}
        months = {m for m in set(stored) | set(current) if stored.get(m) != current.get(m)}
        indexed = search_index.indexed_ids(self.conn, months)
        seen, added, removed = set(), 0, 0
        for month in sorted(months):
            folder = self.layout.chunks_dir / month
            for path in sorted(folder.glob("chunk-*.json")) if folder.is_dir() else ():
                seen.add(path.stem)
                if indexed.get(path.stem) == mtime_ns(path):
                    continue
                data = self.layout.read_file(path)
                if data is None:
                    self.forget(path.stem) if path.stem in indexed else None
                    continue
                self.index(data, path)
                added += 1
        for cid in indexed:
            if cid not in seen:
                self.forget(cid)
                removed += 1
        self.changed = True  # at least the fingerprint moved: what was derived from the files is to be redone
        return {"months": sorted(months), "indexed": added, "removed": removed}

    # lookups -------------------------------------------------------------
    def _files(self, chunk_id: str) -> tuple:
        """(live path, archived path, live path relative to the root) of an id, validated, as strings: a batch
        asks for thousands (pathlib costs tens of microseconds each)."""
        validate_chunk_id(chunk_id)
        month = month_of(chunk_id)
        return (f"{self._chunks}/{month}/{chunk_id}.json", f"{self._archive}/{chunk_id}.json",
                f"chunks/{month}/{chunk_id}.json")

    def existing(self, chunk_id: str):
        """The stored chunk with this id, live or archived, or written earlier in this session (None when the id
        is free: two stats, the common case)."""
        live, archived, _ = self._files(chunk_id)
        if live in self.pending:
            return self.pending[live]
        for path in (live, archived):
            if os.path.isfile(path):
                return self.layout.read_file(Path(path))
        return None

    def taken(self, chunk_id: str) -> bool:
        """Whether the id is used, live, archived or earlier in this session."""
        live, archived, _ = self._files(chunk_id)
        return live in self.pending or os.path.lexists(live) or os.path.lexists(archived)

    def referrers(self, target: str) -> list:
        return referrers(self.conn, self.layout, target)

    # mutations -----------------------------------------------------------
    def _put(self, data: dict, *, new: bool, clean: bool = False) -> tuple:
        """Write the chunk file: (path relative to the root, its mtime, or 0 when the batch writer has it and the
        commit records it)."""
        path, _, rel = self._files(data["id"])
        folder = os.path.dirname(path)
        if folder not in self._checked:  # no folder on the way is a link (once per folder and session)
            self.layout.refuse_link(Path(folder))
            self._checked.add(folder)
        if new:
            self.new_paths.append(path)
        self.saved.append(data["id"])
        if self.batch is not None:
            self.pending[path] = data
            self.batch.write(path, data, chunk_text, clean=clean)  # redacts data in place: indexed as written
            return rel, 0
        try:
            atomic_write_encoded(path, data, chunk_text)  # redacts data in place: indexed as written
        except OSError as exc:
            raise StoreUnwritable(f"nothing was saved: cannot write {path}: {exc.strerror or exc}") from exc
        return rel, mtime_ns(path)

    def write(self, data: dict) -> None:
        """Rewrite a stored chunk (or write one whose id may exist) and index it."""
        rel, mtime = self._put(data, new=False)
        self._index(search_index.upsert, data, rel, mtime)
        self.tag_rows.clear()  # its tags may have changed: read again when next asked

    def add(self, data: dict, *, clean: bool = False) -> None:
        """Write a chunk whose id is free (the caller checked) and index it."""
        rel, mtime = self._put(data, new=True, clean=clean)
        self._index(search_index.insert, data, rel, mtime)
        count_tag_rows(self.tag_rows, data.get("tags") or (), data["metadata"]["created"], data["id"])
        self.added.append(data)

    def moved(self, chunk_id: str) -> None:
        """The caller moved or removed this chunk's file (archive, restore, delete): the change stands on disk."""
        self.saved.append(chunk_id)

    def write_archived(self, data: dict) -> None:
        atomic_write_encoded(self.layout.archive_path(data["id"]), data, chunk_text)
        self.saved.append(data["id"])

    def index(self, data: dict, path: Path) -> None:
        self._index(search_index.upsert, data, self.layout.relpath(path), mtime_ns(path))
        self.tag_rows.clear()

    def forget(self, chunk_id: str) -> None:
        self._index(search_index.remove, chunk_id)
        self.tag_rows.clear()

    def strip_links_to(self, ref: str, target: str) -> None:
        live = self.layout.chunk_path(ref)
        archived = not live.is_file()
        data = self.layout.read_file(self.layout.archive_path(ref) if archived else live, validate=False)
        if data is None:
            return
        data["links"] = {k: [t for t in v if t != target] for k, v in data["links"].items()}
        notes = [n for n in data["metadata"].get("relations") or () if n.get("target") != target]
        if notes:
            data["metadata"]["relations"] = notes
        else:
            data["metadata"].pop("relations", None)
        self.write_archived(data) if archived else self.write(data)

    def abort(self, *, discard_new: bool = False) -> None:
        """Roll back the index transaction. With `discard_new` (the session failed and says so) the chunk files it
        created are removed as well, so that what it reports (nothing saved) is what is on disk."""
        if self.batch is not None:
            self.batch.close()
        if discard_new:
            for path in self.new_paths:
                try:
                    os.unlink(path)
                except OSError:
                    pass
        try:
            self.conn.execute("ROLLBACK")
        except Exception:  # noqa: BLE001 - the connection may already be gone; nothing else to undo
            pass
        self.conn.close()

    def commit(self) -> None:
        mtimes = {}
        if self.batch is not None:  # every file of this batch is durable before anything reports it saved
            try:
                mtimes = self.batch.finish()
                self.mtimes = mtimes  # path -> mtime of each file the batch wrote (brain/sync seeds its scan)
            except OSError as exc:
                self.abort(discard_new=True)
                raise StoreUnwritable(f"nothing was saved: cannot write the new chunk files: "
                                      f"{exc.strerror or exc}") from exc
        try:
            if self.index_error is None:
                search_index.set_mtimes(self.conn, [(m, Path(p).stem) for p, m in mtimes.items()])
                if self.changed:
                    search_index.next_generation(self.conn)
                    search_index.set_meta(self.conn, "fingerprint", month_fingerprint(self.layout.root))
                self.conn.execute("COMMIT")
                if self.keep:
                    search_index.keep_writer(self.layout.root, self.conn)  # warm for the job's next session
                else:
                    self.conn.close()
                return
        except sqlite3.Error as exc:
            self.index_error = str(exc)
        except BaseException:
            self.abort()
            raise
        self.abort()  # the chunk files stand; their month folders changed, so the next write indexes them
        if not self.saved:
            raise StoreUnwritable(f"the search index could not be updated: {self.index_error}")
        shown = ", ".join(self.saved[:5]) + (" ..." if len(self.saved) > 5 else "")
        log.warning("saved %s; the search index could not be updated (%s): recall finds %s after the next write "
                    "or `rlm-mem reindex`", shown, self.index_error, "it" if len(self.saved) == 1 else "them")
