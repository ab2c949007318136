"""ChunkStore: seed 000's Python API over the chunk files, with rlm-mem's batch, lifecycle and maintenance calls.

Chunk files under chunks/YYYY-MM/ are the source of truth. Everything under index/ (the three JSON indexes of the
seed, the SQLite search index, pending access counts) is derived and rebuilt by `reindex`. The jobs live apart:
paths and safe reading (layout.py), making a chunk from a caller's arguments (build.py), automatic links
(links.py), the locked write session that keeps the indexes in step (write_session.py). Every write is atomic
(temp + fsync + os.replace); every read-modify-write runs under one store lock with a timeout.

Seed 000's calls forgive bad ids the way the seed documents: `get_chunk` gives None, `update_chunk` and
`delete_chunk` give False for a malformed or unknown id (logged, no path touched). The library's own callers use
`revise_chunk`, which raises, so that a person gets a clear `Error: ...`.
"""
import collections
import itertools
import logging
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

from brain.cpython.fast import sqlite3
from brain.index import access, json_indexes, listing, search_index
from brain.index.fingerprint import index_signature, month_fingerprint
from brain.safety.redact import redact
from brain.store.audit import audit, audit_many, forget_kept_versions
from brain.store.build import (METADATA_FIELDS, build_chunk, bury, clean_tags, kept_content, mark_dormant, same_key,
                               stamp_arrival, tombstones)
from brain.store.chunk import (
    CHUNK_TYPES,
    EXTRA_LINK_TYPES,
    LINK_TYPES,
    MANUAL_LINK_TYPES,
    Chunk,
    empty_links,
    new_chunk_id,
    validate_chunk_id,
)
from brain.store.chunking import ChunkingEngine
from brain.store.episodes import forget_episode
from brain.store.layout import READ_FLAGS, StoreLayout
from brain.store.sensitivity import LEVELS, allowed
from brain.store.links import auto_link
from brain.store.validation import check, schema_errors
from brain.store.write_session import writing
from brain.util.errors import ChunkNotFound, ChunkValidationError, InvalidChunkId, KeptForever
from brain.util.files import atomic_write_text, ensure_dir, owner_lock, read_bytes, store_lock, try_acquire
from brain.util.timestamps import normalize_timestamp, utc_now
from brain.util.tokens import estimate_tokens

log = logging.getLogger("rlm_mem")

JSON_LOCK = ".json.lock"  # in index/: one JSON index pass at a time (taken inside the store lock, never around it)
MAX_CONTENT_CHARS = 2_000_000  # longer input is refused; anything below is chunked, never refused
MAX_CONTEXT_CHARS = 1000  # a relation's context sentence (schemas/chunk.schema.json)


class ChunkStore:
    """The store rooted at `root` (the folder holding chunks/, index/, archive/)."""

    def __init__(self, root="brain/memory", *, actor: str | None = None, lock_timeout: float | None = None):
        self.layout = StoreLayout(root)
        self.root = self.layout.root
        self.chunks_dir, self.index_dir, self.archive_dir = (self.layout.chunks_dir, self.layout.index_dir,
                                                             self.layout.archive_dir)
        self.actor = actor
        self.lock_timeout = lock_timeout
        self.engine = ChunkingEngine()
        self.batch_job = False

    def _writing(self, *, bulk: bool = False):
        return writing(self.layout, lock_timeout=self.lock_timeout, bulk=bulk, keep=self.batch_job)

    @contextmanager
    def batched(self):
        """A job of many write sessions in a row (an import, a store build): they share one connection to the
        search index, whose page cache stays warm from batch to batch; it is closed when the block ends."""
        self.batch_job = True
        try:
            yield self
        finally:
            self.end_batch_job()

    def end_batch_job(self) -> None:
        self.batch_job = False
        search_index.release_writer(self.root)

    # ------------------------------------------------------------------ reading
    def get_chunk(self, chunk_id: str, *, track: bool = True, include_archived: bool = False) -> Chunk | None:
        """The chunk, or None when the id is malformed, absent or unreadable. Counts as an access unless
        track=False."""
        try:
            data = self.layout.read_chunk(chunk_id, include_archived=include_archived)
        except InvalidChunkId as exc:
            log.warning("get_chunk: %s", exc)
            return None
        if data is None:
            return None
        pending = access.pending_access(self.root)
        if track:
            now = utc_now()
            try:
                access.record_access(self.root, [chunk_id], now)
                count, last = pending.get(chunk_id, (0, None))
                pending[chunk_id] = (count + 1, now)
            except OSError:
                pass  # a read-only store can still be read
        return Chunk.from_dict(access.apply_pending(data, pending))

    def resolve_id(self, ref: str) -> str:
        """A full id from a full id or the 8-hex tail shown in recalled context (InvalidChunkId, ChunkNotFound)."""
        return self.layout.full_id(ref)

    def list_chunks(self, conversation_id=None, tags=None, chunk_type=None, since=None, until=None, *,
                    project=None, kind=None, status=None, archived: bool = False, limit: int | None = None) -> list:
        """Chunks matching every filter given (tags: all of them), oldest first."""
        want_tags, since, until = _list_filters(chunk_type, tags, since, until)
        wanted = {"conversation_id": conversation_id, "project": project}
        pending = access.pending_access(self.root)
        out = []
        for data in self.layout.iter_chunks(archived=archived):
            md = data["metadata"]
            if any(value is not None and md.get(name) != value for name, value in wanted.items()):
                continue
            if (chunk_type is not None and data["type"] != chunk_type) or \
                    (want_tags and not want_tags.issubset(data.get("tags") or ())):
                continue
            if (since and md["created"] < since) or (until and md["created"] > until):
                continue
            if (kind is not None and md.get("kind", "memory") != kind) or \
                    (status is not None and md.get("status", "active") != status):
                continue
            out.append(Chunk.from_dict(access.apply_pending(data, pending)))
        out.sort(key=lambda c: (c.created, c.id))
        return out[:limit] if limit else out

    def list_indexed(self, conversation_id=None, tags=None, chunk_type=None, since=None, until=None, *,
                     max_sensitivity=None, limit=None, newest_first=False, **columns) -> tuple | None:
        """(chunks, how many more are above `max_sensitivity`) matching list_chunks's filters (and `within`:
        index/listing.py), found in the search index, so only the files listed are read; None when the index
        cannot be read."""
        want_tags, since, until = _list_filters(chunk_type, tags, since, until)
        found = listing.matching_ids(self.root, conversation_id=conversation_id, tags=sorted(want_tags),
                                     chunk_type=chunk_type, since=since, until=until,
                                     hidden_levels=() if max_sensitivity is None else
                                     LEVELS[len(allowed(max_sensitivity)):], limit=limit, newest_first=newest_first,
                                     **columns)
        if found is None:
            return None
        pending = access.pending_access(self.root)
        read = (self.layout.read_chunk(chunk_id) for chunk_id in found[0])
        return [Chunk.from_dict(access.apply_pending(data, pending)) for data in read if data is not None], found[1]

    # ------------------------------------------------------------------ writing
    def create_chunk(self, content, chunk_type=None, conversation_id=None, tokens=None, tags=None,
                     confidence=0.8, *, source="interaction", created=None, links=None, metadata=None, key=None,
                     auto_link=True, reason=None) -> Chunk:
        """Store one chunk (content must fit one chunk: use `remember` for long text) and return it.

        With `key`, the id is derived from it and creating the same key again returns the stored chunk unchanged.
        """
        spec = dict(content=content, chunk_type=chunk_type, conversation_id=conversation_id, tokens=tokens,
                    tags=tags, confidence=confidence, source=source, created=created, links=links,
                    metadata=metadata, key=key)
        return self.create_many([spec], auto_link=auto_link, reason=reason)[0]

    def remember(self, content, chunk_type=None, conversation_id=None, tags=None, confidence=0.8, *,
                 source="interaction", created=None, metadata=None, key=None, links=None, reason=None) -> list:
        """Store text of any length: the ChunkingEngine splits it; the parts follow one another."""
        if not isinstance(content, str) or not content.strip():
            raise ChunkValidationError("content is empty; give the text to remember")
        if len(content) > MAX_CONTENT_CHARS:
            raise ChunkValidationError(
                f"content is {len(content):,} characters; the limit is {MAX_CONTENT_CHARS:,} (split it or import a file)")
        pieces = self.engine.chunk(content)
        specs = []
        for i, piece in enumerate(pieces, 1):
            md = dict(metadata or {})
            if len(pieces) > 1:
                md["part"] = {"index": i, "count": len(pieces)}
            specs.append(dict(content=piece, chunk_type=chunk_type, conversation_id=conversation_id, tags=tags,
                              confidence=confidence, source=source, created=created, metadata=md,
                              links=links, key=f"{key}#{i}" if key else None))
        return self.create_many(specs, reason=reason, chain=True)

    def create_many(self, specs, *, auto_link=True, reason=None, chain=False, action="create",
                    on_error=None, bulk=None, added=None) -> list:
        """Create several chunks under one lock with one index write (the bulk path).

        `chain`: each chunk after the first follows the previous one. `on_error(i, exc)`: called for a spec that
        fails validation (it is skipped); without it the first error is raised and nothing is written.
        `bulk`: write files without a per-file fsync and make them durable once before committing (default: more
        than 8 specs). `added`: a list that receives the chunks actually created (not those that already existed).
        Returns one chunk per valid spec: the new one, or the stored one for a key seen before.
        """
        built = []
        for i, spec in enumerate(specs):
            try:
                chunk = build_chunk(**spec)
                errors = schema_errors("chunk", chunk)  # now, not under the lock: a bad spec must not follow
                if errors:                              # good ones to disk and then abort the batch
                    raise ChunkValidationError("invalid chunk: " + "; ".join(errors[:5]))
                built.append((chunk, spec.get("key")))
            except (ChunkValidationError, InvalidChunkId) as exc:
                if on_error is None:
                    raise
                on_error(i, exc)
        with self._writing(bulk=len(built) > 8 if bulk is None else bulk) as session:
            created = self._add_all(session, built, auto_link=auto_link, chain=chain)
        self._audit_saved(action, [chunk["id"] for chunk in session.added], reason=reason)
        if added is not None:
            added.extend(Chunk.from_dict(c) for c in session.added)
        return created

    def _add_all(self, session, built, *, auto_link: bool, chain: bool) -> list:
        created, previous, now = [], None, utc_now()
        deleted = tombstones(self.layout.state_dir) if any(key for _, key in built) else set()
        for chunk, key in built:
            if key and chunk["metadata"]["provenance"]["hash"] in deleted:
                continue  # deleted for good by a person: a later capture of the same entry stays deleted
            if key:
                existing, attempt = session.existing(chunk["id"]), 1
                while existing is not None and not same_key(existing, chunk):  # another key, same id
                    attempt += 1
                    chunk["id"] = new_chunk_id(chunk["metadata"]["created"], f"{key}#alt{attempt}")
                    existing = session.existing(chunk["id"])
                if existing is not None:  # stored before (live or archived): idempotent, never a copy
                    created.append(Chunk.from_dict(existing))
                    previous = chunk["id"]
                    continue
            while not key and session.taken(chunk["id"]):  # random ids can collide: draw again
                chunk["id"] = new_chunk_id(chunk["metadata"]["created"])
            if chain and previous and previous not in chunk["links"]["follows"]:
                chunk["links"]["follows"].append(previous)
            if auto_link:  # adds only ids the store made itself: validated above
                _auto_link(chunk, session.conn, rows_of=session.tag_rows)
            session.add(stamp_arrival(chunk, now), clean=True)
            created.append(Chunk.from_dict(chunk))
            previous = chunk["id"]
        return created

    def _audit_saved(self, action: str, chunk_ids: list, *, reason=None, details=None) -> None:
        """The audit lines of a write that is saved: a failure to append them (a full disk) must not read as a
        failed write, which a person would retry into a duplicate, so it is a warning naming what was saved."""
        try:
            if len(chunk_ids) == 1:
                reason = reason.get(chunk_ids[0]) if isinstance(reason, dict) else reason
                audit(self.root, action, chunk_ids[0], actor=self.actor, reason=reason, details=details)
            else:
                audit_many(self.root, action, chunk_ids, actor=self.actor, reason=reason)
        except OSError as exc:
            shown = ", ".join(chunk_ids[:5]) + (" ..." if len(chunk_ids) > 5 else "")
            log.warning("saved %s; the audit line could not be written (%s)", shown, exc.strerror or exc)

    def revise_chunk(self, chunk_id: str, *, reason=None, **changes) -> Chunk:
        """Change content, type, tags, links or metadata fields (e.g. confidence=0.98); returns the chunk.
        InvalidChunkId or ChunkNotFound for a bad id, ChunkValidationError for a bad value."""
        self.layout.chunk_path(chunk_id)  # validates the id before the lock is taken
        with self._writing() as session:
            data = self.layout.read_file(self.layout.chunk_path(chunk_id))
            if data is None:
                raise ChunkNotFound(f"no chunk {chunk_id} (see `rlm-mem list`; archived chunks need `restore`)")
            _apply_changes(data, changes, self.engine.max_tokens)
            check("chunk", data)
            session.write(data)
        self._audit_saved("update", [chunk_id], reason=reason, details={"fields": sorted(changes)})
        return Chunk.from_dict(data)

    def update_chunk(self, chunk_id: str, *, reason=None, **changes):
        """Seed 000's update: the updated Chunk, or False (logged) when the id is malformed or unknown."""
        try:
            return self.revise_chunk(chunk_id, reason=reason, **changes)
        except (InvalidChunkId, ChunkNotFound) as exc:
            log.warning("update_chunk: %s", exc)
            return False

    def delete_chunk(self, chunk_id: str, permanent: bool = False, *, reason=None) -> bool:
        """Soft delete moves the chunk to archive/; permanent removes it and every link to it, and purges its text
        from everything derived at once (purge_derived). False (logged) when the id is malformed or no such chunk
        exists."""
        try:
            live, archived = self.layout.chunk_path(chunk_id), self.layout.archive_path(chunk_id)
        except InvalidChunkId as exc:
            log.warning("delete_chunk: %s", exc)
            return False
        if not permanent:
            return bool(self.archive_many([chunk_id], reason=reason))
        with self._writing() as session:
            if live.is_file() and not live.is_symlink() and self.layout.inside(live):
                source = live
            elif archived.is_file() and not archived.is_symlink():
                source = archived
            else:
                return False
            stored = (self.layout.read_file(source, validate=False) or {}).get("metadata", {})
            if stored.get("deletion_policy") == "never":
                raise KeptForever(f"{chunk_id} is kept for ever (deletion policy never); to delete it, change that "
                                  f"first: rlm-mem update {chunk_id} --deletion-policy manual_only")
            keyed = stored.get("provenance") or {}
            for ref in session.referrers(chunk_id):
                session.strip_links_to(ref, chunk_id)
            os.unlink(source)
            session.moved(chunk_id)
            session.forget(chunk_id)
            # the id: a sync must not bring it back from another machine; a captured one's key: capturing it
            # again must not revive it
            bury(self.layout.state_dir, chunk_id)
            if str(keyed.get("hash", "")).startswith("key:"):
                bury(self.layout.state_dir, keyed["hash"])
        self._audit_saved("delete", [chunk_id], reason=reason)
        self.purge_derived(chunk_id)
        return True

    def archive_many(self, chunk_ids, *, reason=None, link: tuple | None = None, prunable_only: bool = False,
                     dormant: bool = False) -> list:
        """Soft-delete several live chunks in one write session (gardening archives hundreds at a time). `reason`:
        one for all or a dict of id -> reason (the audit line). `link` (type, target): added to each archived copy
        first (consolidated_into its master). `prunable_only` (gardening): a chunk whose deletion policy is not
        auto_prune is left where it is. `dormant`: gardening archives them for being little used here (a sync
        carries them as live: build.dormant). Returns the ids archived; ids that are not live chunks are skipped."""
        moved = []
        with self._writing() as session:
            for chunk_id in chunk_ids:
                live, archived = self.layout.chunk_path(chunk_id), self.layout.archive_path(chunk_id)
                if not (live.is_file() and not live.is_symlink() and self.layout.inside(live)):
                    continue
                data = self.layout.read_file(live) if link is not None or prunable_only else None
                if prunable_only and not prunable(data):
                    continue
                if not moved:
                    ensure_dir(self.archive_dir)
                if link is None:
                    os.replace(live, archived)
                else:
                    if data is None:
                        continue
                    targets = data["links"].setdefault(link[0], [])
                    targets.append(link[1]) if link[1] not in targets else None
                    session.write_archived(data)
                    os.unlink(live)
                session.moved(chunk_id)
                session.forget(chunk_id)
                moved.append(chunk_id)
            mark_dormant(self.layout.state_dir, moved, dormant)
        self._audit_saved("archive", moved, reason=reason)
        return moved

    def purge_derived(self, *chunk_ids: str) -> None:
        """Remove permanently deleted chunks' text from every derived file, now: the search index (writers zero
        what they delete; here its full-text segments are merged so that no old one keeps the words, and its WAL
        is emptied), seed 000's JSON indexes, and the session-start briefs, CORE.md, episode entries and the
        audit log's kept versions that show them."""
        with store_lock(self.root, self.lock_timeout):
            conn, _ = search_index.connect_for_writing(self.root)
            try:
                conn.execute("PRAGMA secure_delete=ON")
                search_index.purge_traces(conn)
            finally:
                conn.close()
            self.refresh_json_indexes(force=True)  # the JSON lock inside the store lock, as reindex takes them
            for chunk_id in chunk_ids:  # (rewrites of logs: under the lock, as every other rewrite)
                _drop_mentions(self.layout, chunk_id)

    def restore_chunk(self, chunk_id: str, *, reason=None) -> Chunk:
        """Bring an archived chunk back (ChunkNotFound when there is none)."""
        src = self.layout.archive_path(chunk_id)
        with self._writing() as session:
            data = self.layout.read_file(src)
            if data is None:
                raise ChunkNotFound(f"no archived chunk {chunk_id} (see `rlm-mem list --archived`)")
            dest = self.layout.chunk_path(chunk_id)
            ensure_dir(dest.parent)
            self.layout.refuse_link(dest.parent)
            os.replace(src, dest)
            session.moved(chunk_id)
            session.index(data, dest)
        self._audit_saved("restore", [chunk_id], reason=reason)
        return Chunk.from_dict(data)

    def link_chunks(self, source_id: str, target_id: str, link_type: str, *, reason=None, remove: bool = False,
                    strength: float | None = None, context: str | None = None) -> Chunk:
        """Add (or remove) a link from source to target: any of MANUAL_LINK_TYPES (supports, contradicts, seed 003's
        typed relations, seed 002's causal links) or a lifecycle link. `strength` (0 to 1) and `context` (a sentence
        saying why) are seed 003's relation fields, kept in the source's metadata.relations."""
        return self.link_many([(source_id, link_type, target_id, strength, context)], reason=reason,
                              remove=remove)[0]

    def link_many(self, links, *, reason=None, remove: bool = False) -> list:
        """Several links in one write session: (source, type, target) or (source, type, target, strength,
        context) tuples. Each source chunk is read once and written once if a link of it changed; returns the
        sources in the order first named. A link already there keeps its strength and context unless new ones
        are given; asking again for what is there writes nothing and adds no audit line."""
        wanted = [_link_spec(*link) for link in links]
        made = []
        with self._writing() as session:
            read, touched = {}, set()
            for spec in wanted:
                src, link_type, dst, strength, context = spec
                if src not in read:
                    read[src] = self.layout.read_file(self.layout.chunk_path(src))
                    if read[src] is None:
                        raise ChunkNotFound(f"no chunk {src}")
                if not remove and not (self.layout.chunk_path(dst).is_file() or self.layout.is_archived(dst)):
                    raise ChunkNotFound(f"no chunk {dst} to link to")
                if _set_link(read[src], link_type, dst, strength, context, remove=remove):
                    touched.add(src)
                    made.append(spec)
            for src in touched:
                session.write(read[src])
        for src, link_type, dst, strength, context in made:
            details = {"type": link_type, "target": dst}
            details.update({k: v for k, v in (("strength", strength), ("context", context)) if v is not None})
            self._audit_saved("unlink" if remove else "link", [src], reason=reason, details=details)
        return [Chunk.from_dict(data) for data in read.values()]

    # ------------------------------------------------------------------ maintenance
    def reindex(self, progress=None) -> dict:
        """Rebuild every derived structure from the chunk files (and fold pending access counts first).

        Under the store lock, in one transaction of the search index: writers wait for it, and readers see the
        old index until the new one is complete (never an empty or half-built one). Batch by batch (memory does
        not grow with the store), the chunk files of a large store parsed by other processes while this one
        inserts (_parsed_batches); the secondary indexes made once the rows are in. `progress(done, total)` is
        called as files are read."""
        self.fold_access()
        self.layout.ensure()
        with store_lock(self.root, self.lock_timeout):
            conn, _ = search_index.connect_for_writing(self.root)
            try:
                conn.execute(f"PRAGMA cache_size={REINDEX_CACHE}")
                conn.execute("BEGIN IMMEDIATE")
                search_index.recreate(conn, bulk=True)  # a new epoch: the JSON indexes are rewritten below
                count, skipped = self._index_files(conn, progress)
                search_index.end_bulk(conn)
                search_index.next_generation(conn)
                search_index.set_meta(conn, "fingerprint", month_fingerprint(self.root))
                conn.execute("COMMIT")
                conn.execute("INSERT INTO fts(fts) VALUES('optimize')")
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                conn.close()
            self.refresh_json_indexes(force=True)
        return {"chunks": count, "skipped": skipped}

    def _index_files(self, conn, progress=None) -> tuple:
        """Every chunk file into the (empty) index, in batches: (indexed, skipped)."""
        total = self.layout.count_chunk_entries()
        count = skipped = 0
        for items, unreadable in _parsed_batches(self.layout, total):
            skipped += unreadable
            conn.execute("SAVEPOINT batch")
            try:
                search_index.insert_many(conn, items)
            except sqlite3.IntegrityError:  # one id in two files (a misplaced copy): the later one wins
                conn.execute("ROLLBACK TO batch")
                for item in items:
                    search_index.replace_item(conn, item)
            conn.execute("RELEASE batch")
            count += len(items)
            if progress is not None:
                progress(min(count + skipped, total), total)
        return count, skipped

    def refresh_json_indexes(self, *, force: bool = False, min_age: float = 0.0, lock_timeout: float = 60) -> bool:
        """Bring seed 000's JSON index files up to date with the search index: the background pass (and what
        reindex, `rlm-mem share refresh` and a permanent delete do). Cheap when they are current (one meta read and
        four stats). `min_age`: leave files that are behind alone if they were written less than this many seconds
        ago (the worker coalesces passes). Returns True when the files were rewritten."""
        conn = search_index.connect(self.root, readonly=True)
        if conn is None:
            return False
        lock = owner_lock(ensure_dir(self.index_dir) / JSON_LOCK, lock_timeout)
        try:
            if not try_acquire(lock):
                return False  # another pass runs now: it brings them current
            try:
                signature = index_signature(self.root)  # before the snapshot: a later write must differ from it
                conn.execute("BEGIN")  # one read snapshot for the check and the three files
                epoch, generation = search_index.generation(conn)
                if not force and json_indexes.is_current(self.index_dir, epoch, generation):
                    json_indexes.mark_checked(self.index_dir, signature)
                    return False
                if not force and min_age and json_indexes.age(self.index_dir) < min_age \
                        and json_indexes.only_behind(self.index_dir, epoch):
                    return False  # whole, behind by recent writes only: coalesced with the next ones
                json_indexes.write_from(conn, self.index_dir, epoch, generation, signature)
                return True
            finally:
                lock.release()
        except sqlite3.DatabaseError:
            return False  # a damaged index: the next writer rebuilds it, and a later pass writes the files
        finally:
            conn.close()

    def fold_access(self) -> int:
        """Write pending access counts in one batch. Returns how many chunks changed.

        Normally into the chunk files (seed 000 keeps the counts there). When the store lives in a git repository
        (a team shares it) or syncs through one (`rlm-mem sync`), the counts go to index/access_state.json
        instead: never shared, so reading memories never changes a tracked file.
        """
        log_file = access.log_path(self.root)
        if not log_file.exists() and not log_file.with_suffix(".folding").exists():
            return 0
        with self._writing() as session:
            pending = access.take_for_fold(self.root)
            if access.kept_apart(self.root):
                access.merge_into_state(self.root, pending)
                changed = len(pending)
            else:
                changed = sum(self._fold_one(session, chunk_id, pending) for chunk_id in pending)
            access.finish_fold(self.root)
        return changed

    def _fold_one(self, session, chunk_id: str, pending: dict) -> int:
        try:
            path = self.layout.chunk_path(chunk_id)
        except InvalidChunkId:
            return 0
        data = self.layout.read_file(path)
        if data is not None:
            session.write(access.apply_pending(data, pending))
            return 1
        archived = self.layout.read_file(self.layout.archive_path(chunk_id))  # archived since it was read
        if archived is not None:
            session.write_archived(access.apply_pending(archived, pending))
            return 1
        return 0

    def sync_derived(self) -> dict | None:
        """Bring the search index up to date when chunk files changed behind rlm-mem's back (a git pull, a crash,
        a hand edit), rebuilding it if it is damaged or missing. Costs one stat per month folder when nothing
        changed; returns what was re-indexed, or None. (The JSON index files: refresh_json_indexes.)"""
        if not search_index.is_stale(self.root):
            return None
        with self._writing() as session:
            result = session.synced
        if result is not None and session.replaced:
            result["rebuilt"] = session.replaced
        return result

    def stats(self) -> dict:
        by_type, by_kind, tokens, count = {}, {}, 0, 0
        for data in self.layout.iter_chunks(validate=False):
            count += 1
            tokens += data.get("tokens", 0)
            by_type[data["type"]] = by_type.get(data["type"], 0) + 1
            kind = data["metadata"].get("kind", "memory")
            by_kind[kind] = by_kind.get(kind, 0) + 1
        archived = sum(1 for _ in self.layout.iter_archive_paths())
        disk = sum(p.stat().st_size for p in self.root.rglob("*") if p.is_file()) if self.root.is_dir() else 0
        return {"root": str(self.root), "chunks": count, "archived": archived, "tokens": tokens,
                "by_type": dict(sorted(by_type.items())), "by_kind": dict(sorted(by_kind.items())),
                "pending_accesses": access.pending_lines(self.root), "bytes_on_disk": disk}


REINDEX_BATCH = 500  # chunk files per batch (one insert, one task for a parsing process)
REINDEX_CACHE = -24000  # KiB of SQLite page cache for a rebuild: it stays within reindex's memory target
PARALLEL_FROM = 5000  # from this many chunk files on, a rebuild parses them in other processes


def _parse_entries(root, entries) -> tuple:
    """(bulk items, files skipped) of some chunk files: read, checked, and made index rows (module level, so
    that a parsing process can run it)."""
    layout, items, skipped = StoreLayout(root), [], 0
    _read_ahead(path for path, _ in entries)
    for path, rel in entries:
        data, mtime = layout.read_listed(path)
        if data is None:
            skipped += 1
        else:
            items.append(search_index.item_of(data, rel, mtime))
    return items, skipped


def _read_ahead(paths) -> None:
    """Ask the disk for every file of a batch at once (posix_fadvise WILLNEED), before reading them one by one: on
    a cold store each read would otherwise wait for its file in turn (bench/run.py's reindex of 100k files)."""
    advise = getattr(os, "posix_fadvise", None)
    if advise is None:
        return
    for path in paths:
        try:
            fd = os.open(path, READ_FLAGS)
        except OSError:
            continue  # read_listed says why
        try:
            advise(fd, 0, 0, os.POSIX_FADV_WILLNEED)
        except OSError:
            pass
        finally:
            os.close(fd)


def _parsed_batches(layout, total: int):
    """(bulk items, files skipped) for every chunk file, in order, REINDEX_BATCH at a time. A large store's files
    are read and parsed by one process per CPU while this one inserts: reading, JSON, the schema check and the
    row (dates, the JSON index entry) are Python, which one process runs on one core at a time, and a rebuild of
    100,000 files must not take one core's whole minute (bench/run.py)."""
    entries = layout.iter_chunk_entries()
    windows = iter(lambda: list(itertools.islice(entries, REINDEX_BATCH)), [])
    workers = 0
    if total >= PARALLEL_FROM:  # a large rebuild: parsing processes that die with this one
        from brain.util.lifetime import die_with, usable_cpus  # large rebuilds only (it loads ctypes)

        workers = min(usable_cpus(), 4)
    if workers < 2:
        for window in windows:
            yield _parse_entries(layout.root, window)
        return
    # fork: the parsing processes start as copies of this one (nothing to import again, and never the caller's
    # __main__, which "spawn" would run again); the library runs no thread of its own here. They die with this
    # process: a parser left waiting on the queue of a killed rebuild would wait for ever.
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"), initializer=die_with,
                             initargs=(os.getpid(),)) as pool:
        running = collections.deque()
        for window in windows:
            running.append(pool.submit(_parse_entries, layout.root, window))
            if len(running) >= 2 * workers:  # a bounded number of batches in memory
                yield running.popleft().result()
        while running:
            yield running.popleft().result()


NARRATIVE = "narrative.json"  # in index/: chapters and wisdom (brain/narrative), which quote session records


def _drop_mentions(layout, chunk_id: str) -> None:
    """A permanently deleted chunk's text out of the files that show it: cached session-start briefs and the
    chapters and wisdom (removed: made anew when next asked for), CORE.md's line for it, its episode entry."""
    try:
        os.unlink(layout.index_dir / NARRATIVE)
    except FileNotFoundError:
        pass
    folder = layout.state_dir / "brief"
    for path in folder.glob("*.json") if folder.is_dir() else ():
        try:
            if chunk_id in path.read_text(encoding="utf-8", errors="replace"):
                path.unlink()
        except OSError:
            pass
    core = layout.root / "CORE.md"
    try:
        text = read_bytes(core).decode("utf-8", errors="replace")
    except OSError:
        text = ""
    if chunk_id in text:
        atomic_write_text(core, "".join(line for line in text.splitlines(keepends=True) if chunk_id not in line))
    forget_episode(layout.root, chunk_id)
    forget_kept_versions(layout.root, chunk_id)


def prunable(data) -> bool:
    """Whether gardening may archive a chunk (a dict): its deletion policy is auto_prune, said or by default."""
    return data is not None and data["metadata"].get("deletion_policy", "auto_prune") == "auto_prune"


def _link_spec(src, link_type, dst, strength=None, context=None) -> tuple:
    """One link checked before the lock is taken: known type, valid ids, strength 0-1, a context of one line."""
    if link_type not in LINK_TYPES + EXTRA_LINK_TYPES:
        raise ChunkValidationError(f"unknown link type; use one of {', '.join(MANUAL_LINK_TYPES)}")
    validate_chunk_id(src), validate_chunk_id(dst)
    if src == dst:
        raise ChunkValidationError("a chunk cannot link to itself")
    if strength is not None:
        if isinstance(strength, bool) or not isinstance(strength, (int, float)) or not 0.0 <= strength <= 1.0:
            raise ChunkValidationError(f"strength must be a number between 0 and 1, got {strength!r}")
        strength = float(strength)
    if context is not None:
        if not isinstance(context, str):
            raise ChunkValidationError("context must be text")
        context = " ".join(context.split())
        if len(context) > MAX_CONTEXT_CHARS:
            raise ChunkValidationError(f"context is {len(context)} characters; at most {MAX_CONTEXT_CHARS}")
        context = context or None
    return src, link_type, dst, strength, context


def _set_link(data: dict, link_type: str, target: str, strength, context, *, remove: bool) -> bool:
    """A link added to (or removed from) a chunk dict, with its note in metadata.relations (strength, context).
    Returns whether anything changed."""
    targets = data["links"].setdefault(link_type, [])
    md = data["metadata"]
    before = (list(targets), md.get("relations"))
    notes = [dict(n) for n in md.get("relations") or () if isinstance(n, dict)]
    mine = [n for n in notes if n.get("type") == link_type and n.get("target") == target]
    if remove:
        if target in targets:
            targets.remove(target)
        notes = [n for n in notes if n not in mine]
    else:
        if target not in targets:
            targets.append(target)
        if strength is not None or context is not None:
            note = mine[0] if mine else {"type": link_type, "target": target}
            note.update({k: v for k, v in (("strength", strength), ("context", context)) if v is not None})
            if not mine:
                notes.append(note)
    if notes:
        md["relations"] = notes
    else:
        md.pop("relations", None)
    return (targets, md.get("relations")) != before


def relation_note(chunk: dict, link_type: str, target: str) -> dict:
    """{"strength", "context"} recorded for one link a chunk holds ({} when none)."""
    for note in (chunk.get("metadata") or {}).get("relations") or ():
        if isinstance(note, dict) and note.get("type") == link_type and note.get("target") == target:
            return {k: note[k] for k in ("strength", "context") if k in note}
    return {}


_auto_link = auto_link  # the module-level function (ChunkStore.create_many's `auto_link` flag shadows the name)


def _apply_changes(data: dict, changes: dict, max_tokens: int) -> None:
    """revise_chunk's changes applied to a chunk dict in place (redacting new content)."""
    md = dict(data["metadata"])
    for name, value in changes.items():
        if name == "content":
            data["content"] = kept_content(value)
            data["tokens"] = estimate_tokens(data["content"])
            if data["tokens"] > max_tokens:
                raise ChunkValidationError(f"new content is {data['tokens']} tokens; a chunk holds at most {max_tokens}")
        elif name in ("chunk_type", "type"):
            if value not in CHUNK_TYPES:
                raise ChunkValidationError(f"unknown type; use one of {', '.join(CHUNK_TYPES)}")
            data["type"] = value
        elif name == "tags":
            data["tags"] = clean_tags(value)
        elif name == "tokens":
            data["tokens"] = value
        elif name == "links":
            data["links"] = dict(empty_links(), **value)
        elif name in METADATA_FIELDS and name != "created":
            if value is None:
                md.pop(name, None)
            else:
                md[name] = float(value) if name == "confidence" and isinstance(value, (int, float)) else value
        else:
            raise ChunkValidationError(f"cannot update field {redact(str(name))[:40]!r}")
    md["updated"] = utc_now()
    data["metadata"] = md


def _list_filters(chunk_type, tags, since, until) -> tuple:
    """A list's filters checked and normalized: (the tags wanted, since, until: a bare date is the whole day)."""
    if chunk_type is not None and chunk_type not in CHUNK_TYPES:
        raise ChunkValidationError(f"unknown type; use one of {', '.join(CHUNK_TYPES)}")
    since = normalize_timestamp(since) if since else None
    until = normalize_timestamp(until) if until else None
    if until and until.endswith("T00:00:00Z"):
        until = until[:10] + "T23:59:59Z"
    return set(clean_tags(tags)), since, until
