"""One locked write session: chunk files are written at once, the derived indexes are committed once at the end.

`writing(layout)` takes the store lock (index/.store.lock, with a timeout), opens the search index in one
`BEGIN IMMEDIATE` transaction and yields a WriteSession. Before anything else it re-indexes the month folders
whose chunk files changed behind rlm-mem's back (a git pull, a crash, a hand edit), and rebuilds an index an older
rlm-mem made, in the same transaction. On success the JSON indexes are saved and the transaction commits with the
new month fingerprint; on error the transaction rolls back (chunk files already written stay, and the next
session's sync picks them up).

A bulk session writes files without a per-file fsync and makes exactly those files and their folders durable in
one pass before it commits.
"""
from contextlib import contextmanager
from pathlib import Path

from brain.index import search_index
from brain.index.fingerprint import month_fingerprint
from brain.index.json_indexes import JsonIndexes
from brain.store.links import referrers
from brain.util.errors import StoreUnwritable
from brain.util.files import atomic_write_json, fsync_written, store_lock


def mtime_ns(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


@contextmanager
def writing(layout, *, lock_timeout=None, bulk: bool = False):
    """Lock the store and yield a WriteSession; commit when the block ends without error."""
    layout.ensure()
    with store_lock(layout.root, lock_timeout):
        session = WriteSession(layout, bulk=bulk)
        try:
            yield session
        except BaseException:
            session.abort()
            raise
        session.commit()


class WriteSession:
    def __init__(self, layout, *, bulk: bool = False):
        self.layout = layout
        self.bulk = bulk
        self.indexes = JsonIndexes(layout.index_dir).load()
        self.conn = search_index.connect(layout.root)
        self.conn.execute("BEGIN IMMEDIATE")
        search_index.migrate_if_older(self.conn)  # then _sync finds no fingerprint and re-indexes every file
        self.added: list = []
        self.unsynced: list = []  # files written in a bulk session, made durable in commit()
        self._json_dirty = False
        self.synced = self._sync()

    def _sync(self):
        """Re-index the month folders whose mtime differs from the one recorded at the last commit."""
        stored = search_index.get_meta(self.conn, "fingerprint", None)
        current = month_fingerprint(self.layout.root)
        if stored == current:
            return None
        stored = stored or {}
        months = {m for m in set(stored) | set(current) if stored.get(m) != current.get(m)}
        indexed = search_index.indexed_ids(self.conn)
        seen, added, removed = set(), 0, 0
        for month in months:
            folder = self.layout.chunks_dir / month
            for path in sorted(folder.glob("chunk-*.json")) if folder.is_dir() else ():
                seen.add(path.stem)
                if indexed.get(path.stem) == mtime_ns(path) and path.stem in self.indexes.metadata:
                    continue
                data = self.layout.read_file(path)
                if data is None:
                    self.forget(path.stem) if path.stem in indexed else None
                    continue
                self.index(data, path)
                added += 1
        for cid in list(indexed):
            if cid[6:13] in months and cid not in seen:
                self.forget(cid)
                removed += 1
        for cid in [c for c in self.indexes.metadata if c[6:13] in months and c not in seen]:
            self.indexes.remove(cid)
            self._json_dirty = True
        return {"months": sorted(months), "indexed": added, "removed": removed}

    # lookups -------------------------------------------------------------
    def existing(self, chunk_id: str):
        """The stored chunk with this id, live or archived (None when the id is free: one stat, the common case)."""
        for path in (self.layout.chunk_path(chunk_id), self.layout.archive_path(chunk_id)):
            if path.is_file():
                return self.layout.read_file(path)
        return None

    def referrers(self, target: str) -> list:
        return referrers(self.conn, self.layout, target)

    # mutations -----------------------------------------------------------
    def write(self, data: dict, *, index_json: bool = True) -> Path:
        path = self.layout.chunk_path(data["id"])
        if path.parent.is_symlink():
            self.layout.refuse_link(path.parent)
        try:
            atomic_write_json(path, data, fsync=not self.bulk)  # redacts data in place: indexed as written
        except OSError as exc:
            raise StoreUnwritable(f"cannot write {path}: {exc.strerror or exc}") from exc
        if self.bulk:
            self.unsynced.append(path)
        self.index(data, path, index_json=index_json)
        return path

    def write_archived(self, data: dict) -> None:
        atomic_write_json(self.layout.archive_path(data["id"]), data)

    def index(self, data: dict, path: Path, *, index_json: bool = True) -> None:
        rel = self.layout.relpath(path)
        if index_json:
            self.indexes.add(data, rel)
            self._json_dirty = True
        search_index.upsert(self.conn, data, rel, mtime_ns(path))

    def add(self, data: dict) -> None:
        self.write(data)
        self.added.append(data)

    def forget(self, chunk_id: str) -> None:
        self.indexes.remove(chunk_id)
        self._json_dirty = True
        search_index.remove(self.conn, chunk_id)

    def strip_links_to(self, ref: str, target: str) -> None:
        live = self.layout.chunk_path(ref)
        archived = not live.is_file()
        data = self.layout.read_file(self.layout.archive_path(ref) if archived else live, validate=False)
        if data is None:
            return
        data["links"] = {k: [t for t in v if t != target] for k, v in data["links"].items()}
        self.write_archived(data) if archived else self.write(data)

    def abort(self) -> None:
        """Roll back the index transaction; chunk files already written stay (the next sync picks them up)."""
        try:
            self.conn.execute("ROLLBACK")
        except Exception:  # noqa: BLE001 - the connection may already be gone; nothing else to undo
            pass
        self.conn.close()

    def commit(self) -> None:
        if self.unsynced:  # every file of this batch is durable before anything reports it saved
            fsync_written(self.unsynced)
        try:
            if self._json_dirty:  # before COMMIT: dying in between leaves a stale fingerprint, so the next writer
                self.indexes.save()  # re-syncs; after it, the JSON indexes would stay stale until a reindex
            search_index.set_meta(self.conn, "fingerprint", month_fingerprint(self.layout.root))
            self.conn.execute("COMMIT")
        finally:
            self.conn.close()
