"""ChunkStore: seed 000's JSON chunk storage with indexes, links, archive and audit.

Chunk files under chunks/YYYY-MM/ are the source of truth. Everything under index/ (the three JSON indexes of the
seed, the SQLite search index, pending access counts) is derived and rebuilt by `reindex`. Every write is atomic
(temp + fsync + os.replace); every read-modify-write runs under one store lock with a timeout.
"""
import json
import logging
import os
import stat
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path

from brain.index import access, search_index
from brain.index.json_indexes import JsonIndexes
from brain.store.audit import audit
from brain.store.chunk import (
    CHUNK_TYPES,
    LINK_TYPES,
    MANUAL_LINK_TYPES,
    SOURCES,
    Chunk,
    empty_links,
    month_of,
    new_chunk_id,
    validate_chunk_id,
)
from brain.store.chunking import ChunkingEngine
from brain.store.classify import detect_type
from brain.util.errors import ChunkNotFound, ChunkValidationError, InvalidChunkId, StoreUnwritable
from brain.util.files import append_line, atomic_write_bytes, ensure_dir, store_lock
from brain.util.timestamps import normalize_timestamp, utc_now
from brain.util.tokens import estimate_tokens

log = logging.getLogger("rlm_mem")

FOLLOWS_WINDOW = timedelta(minutes=5)
MAX_RELATED = 5
# A tag on more chunks than this is a category ("turn", "python"), not evidence that two chunks are related.
RELATED_TAG_LIMIT = 200
MAX_TAGS = 50
MAX_TAG_LENGTH = 64
MAX_CONTENT_CHARS = 2_000_000
TOMBSTONES = "deleted-keys.txt"  # in state/: key hashes of captured chunks deleted with --permanent  # longer input is refused; anything below is chunked, never refused

METADATA_FIELDS = ("confidence", "conversation_id", "source", "created", "updated", "project", "project_name",
                   "kind", "role", "pinned", "status", "sensitivity", "category", "importance", "title",
                   "original_type", "superseded_at", "files", "part", "provenance", "extra")


def _parse_time(text: str) -> datetime:
    return datetime.strptime(text[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)


def clean_tags(tags) -> list:
    """Lowercased, trimmed, de-duplicated tags; bounded in number and length with a clear error."""
    if tags is None:
        return []
    if isinstance(tags, str):
        tags = tags.split(",")
    out = []
    for tag in tags:
        if not isinstance(tag, str):
            raise ChunkValidationError(f"tags must be strings, got {tag!r}")
        tag = " ".join(tag.strip().lower().split())
        if not tag:
            continue
        if len(tag) > MAX_TAG_LENGTH:
            raise ChunkValidationError(f"tag {tag[:20]!r}... is longer than {MAX_TAG_LENGTH} characters")
        if tag not in out:
            out.append(tag)
    if len(out) > MAX_TAGS:
        raise ChunkValidationError(f"{len(out)} tags given; at most {MAX_TAGS} are allowed")
    return out


def _redact(text: str) -> str:
    from brain.safety.redact import redact  # every write path goes through here: secrets never reach the memory folder

    return redact(text)


class ChunkStore:
    """The store rooted at `root` (the folder holding chunks/, index/, archive/)."""

    def __init__(self, root="brain/memory", *, actor: str | None = None, lock_timeout: float | None = None):
        self.root = Path(root).expanduser()
        self.actor = actor
        self.lock_timeout = lock_timeout
        self.chunks_dir = self.root / "chunks"
        self.index_dir = self.root / "index"
        self.archive_dir = self.root / "archive"
        self.engine = ChunkingEngine()

    # ------------------------------------------------------------------ paths
    def chunk_path(self, chunk_id: str) -> Path:
        validate_chunk_id(chunk_id)
        return self.chunks_dir / month_of(chunk_id) / f"{chunk_id}.json"

    def archive_path(self, chunk_id: str) -> Path:
        validate_chunk_id(chunk_id)
        return self.archive_dir / f"{chunk_id}.json"

    def relpath(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def _ensure_layout(self) -> None:
        try:
            for folder in (self.chunks_dir, self.index_dir, self.archive_dir):
                ensure_dir(folder)
        except OSError as exc:
            raise StoreUnwritable(f"cannot create the memory folder {self.root}: {exc.strerror or exc}") from exc
        for folder in (self.chunks_dir, self.index_dir, self.archive_dir):
            self._refuse_link(folder)

    def inside(self, path: Path) -> bool:
        """No folder between the root and `path` is a symbolic link: the store never follows one out of itself."""
        return not any(p.is_symlink() for p in Path(path).parents if self.root in p.parents)

    def _refuse_link(self, path: Path) -> None:
        if Path(path).is_symlink() or not self.inside(path):
            raise StoreUnwritable(f"{path} is (or is inside) a symbolic link; rlm-mem does not write through links "
                                  "(see `rlm-mem doctor`)")

    def _lock(self):
        self._ensure_layout()
        return store_lock(self.root, self.lock_timeout)

    @contextmanager
    def _writing(self, *, bulk: bool = False):
        """One locked write session; derived indexes are committed when the block ends without error."""
        with self._lock():
            ctx = _WriteContext(self, bulk=bulk)
            try:
                yield ctx
            except BaseException:
                ctx.abort()
                raise
            ctx.commit()

    # ------------------------------------------------------------------ reading
    def read_file(self, path: Path, *, validate: bool = True) -> dict | None:
        """A chunk file as a dict, or None (logged) when it is missing, a symlink, corrupt or invalid."""
        if not self.inside(path):
            log.warning("skipping %s: it is reached through a symbolic link", path)
            return None
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("skipping %s: %s", path, exc.strerror or exc)
            return None
        try:
            with os.fdopen(fd, "rb") as fh:
                if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                    log.warning("skipping %s: not a regular file", path)
                    return None
                data = json.loads(fh.read().decode("utf-8"))
        except (OSError, ValueError) as exc:
            log.warning("skipping corrupt chunk file %s: %s", path, exc)
            return None
        if validate:
            from brain.store.validation import schema_errors

            errors = schema_errors("chunk", data)
            if errors:
                log.warning("skipping invalid chunk file %s: %s", path, "; ".join(errors[:3]))
                return None
        if not isinstance(data, dict) or data.get("id") != path.stem:
            log.warning("skipping %s: its id does not match its file name", path)
            return None
        return data

    def get_chunk(self, chunk_id: str, *, track: bool = True, include_archived: bool = False) -> Chunk | None:
        """The chunk, or None when absent or unreadable. Counts as an access unless track=False."""
        data = self.read_file(self.chunk_path(chunk_id))
        if data is None and include_archived:
            data = self.read_file(self.archive_path(chunk_id))
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
        """A full id from a full id or its 8-hex tail (recalled context shows the tail under the day)."""
        if isinstance(ref, str) and len(ref) == 8 and all(c in "0123456789abcdef" for c in ref):
            found = sorted({p.stem for p in (*self.chunks_dir.glob(f"*/chunk-*-{ref}.json"),
                                              *self.archive_dir.glob(f"chunk-*-{ref}.json"))})
            if len(found) == 1:
                return found[0]
            if found:
                raise InvalidChunkId(f"{ref} matches several chunks ({', '.join(found)}); give the full id")
            raise ChunkNotFound(f"no chunk ends in {ref}")
        return validate_chunk_id(ref)

    def is_archived(self, chunk_id: str) -> bool:
        return self.archive_path(chunk_id).is_file()

    def iter_chunk_paths(self):
        if not self.chunks_dir.is_dir():
            return
        for month in sorted(self.chunks_dir.iterdir()):
            if month.is_dir() and not month.is_symlink():
                yield from sorted(p for p in month.glob("chunk-*.json"))

    def iter_archive_paths(self):
        if self.archive_dir.is_dir():
            yield from sorted(self.archive_dir.glob("chunk-*.json"))

    def iter_chunks(self, *, archived: bool = False, validate: bool = True):
        paths = self.iter_archive_paths() if archived else self.iter_chunk_paths()
        for path in paths:
            data = self.read_file(path, validate=validate)
            if data is not None:
                yield data

    def list_chunks(self, conversation_id=None, tags=None, chunk_type=None, since=None, until=None, *,
                    project=None, kind=None, status=None, archived: bool = False, limit: int | None = None) -> list:
        """Chunks matching every filter given (tags: all of them), oldest first."""
        if chunk_type is not None and chunk_type not in CHUNK_TYPES:
            raise ChunkValidationError(f"unknown type {chunk_type!r}; use one of {', '.join(CHUNK_TYPES)}")
        want_tags = set(clean_tags(tags))
        since = normalize_timestamp(since) if since else None
        until = normalize_timestamp(until) if until else None
        if until and until.endswith("T00:00:00Z"):
            until = until[:10] + "T23:59:59Z"  # a bare date means the whole day
        pending = access.pending_access(self.root)
        out = []
        for data in self.iter_chunks(archived=archived):
            md = data["metadata"]
            if conversation_id is not None and md.get("conversation_id") != conversation_id:
                continue
            if chunk_type is not None and data["type"] != chunk_type:
                continue
            if want_tags and not want_tags.issubset(data.get("tags") or ()):
                continue
            if since and md["created"] < since:
                continue
            if until and md["created"] > until:
                continue
            if project is not None and md.get("project") != project:
                continue
            if kind is not None and md.get("kind", "memory") != kind:
                continue
            if status is not None and md.get("status", "active") != status:
                continue
            out.append(Chunk.from_dict(access.apply_pending(data, pending)))
        out.sort(key=lambda c: (c.created, c.id))
        return out[:limit] if limit else out

    # ------------------------------------------------------------------ building chunks
    def _build(self, content, *, chunk_type=None, conversation_id=None, tokens=None, tags=None, confidence=0.8,
               source="interaction", created=None, links=None, metadata=None, key=None) -> dict:
        if not isinstance(content, str) or not content.strip():
            raise ChunkValidationError("content is empty; give the text to remember")
        content = _redact(content.strip())
        if chunk_type is None:
            chunk_type = detect_type(content)
        if chunk_type not in CHUNK_TYPES:
            raise ChunkValidationError(f"unknown type {chunk_type!r}; use one of {', '.join(CHUNK_TYPES)}")
        if source not in SOURCES:
            raise ChunkValidationError(f"unknown source {source!r}; use one of {', '.join(SOURCES)}")
        try:
            confidence = float(confidence)
        except (TypeError, ValueError):
            raise ChunkValidationError(f"confidence must be a number between 0 and 1, got {confidence!r}") from None
        if not 0.0 <= confidence <= 1.0:
            raise ChunkValidationError(f"confidence must be between 0 and 1, got {confidence}")
        try:
            created = normalize_timestamp(created) if created else utc_now()
        except ValueError:
            raise ChunkValidationError(f"created must be an ISO 8601 time, got {created!r}") from None
        md = {
            "created": created,
            "conversation_id": conversation_id,
            "source": source,
            "confidence": confidence,
            "access_count": 0,
            "last_accessed": None,
        }
        for name, value in (metadata or {}).items():
            if name not in METADATA_FIELDS or name in ("created", "conversation_id", "source", "confidence"):
                raise ChunkValidationError(f"unknown or reserved metadata field {name!r}")
            if value is not None:
                md[name] = value
        if "title" in md:
            md["title"] = _redact(md["title"])
        if key:  # remember which key made this id: a second key landing on the same 8 hex digits is a collision
            md["provenance"] = dict(md.get("provenance") or {}, hash=key_hash(key))
        chunk_links = empty_links()
        for link_type, targets in (links or {}).items():
            chunk_links.setdefault(link_type, [])
            for target in targets:
                if target not in chunk_links[link_type]:
                    chunk_links[link_type].append(target)
        return {
            "id": new_chunk_id(created, key),
            "content": content,
            "tokens": int(tokens) if tokens is not None else estimate_tokens(content),
            "type": chunk_type,
            "metadata": md,
            "links": chunk_links,
            "tags": clean_tags(tags),
        }

    def _auto_link(self, chunk: dict, ctx: "_WriteContext") -> None:
        """context_of (same conversation), follows (same conversation, within 5 min before), related_to (tags)."""
        links, md = chunk["links"], chunk["metadata"]
        conv = md.get("conversation_id")
        if conv:
            if conv not in links["context_of"]:
                links["context_of"].append(conv)
            if not links["follows"]:
                prev = ctx.previous_in_conversation(conv, md["created"], chunk["id"])
                if prev and prev not in links["follows"]:
                    links["follows"].append(prev)
        if not links["related_to"]:
            for other in ctx.related_by_tags(chunk["tags"], chunk["id"], links["follows"]):
                links["related_to"].append(other)

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
        `bulk`: write files without a per-file fsync and sync once before committing (default: more than 8 specs).
        `added`: a list that receives the chunks actually created (not those that already existed).
        Returns one chunk per valid spec: the new one, or the stored one for a key seen before.
        """
        from brain.store.validation import schema_errors

        built = []
        for i, spec in enumerate(specs):
            try:
                chunk = self._build(**spec)
                errors = schema_errors("chunk", chunk)  # now, not under the lock: a bad spec must not follow
                if errors:                              # good ones to disk and then abort the batch
                    raise ChunkValidationError("invalid chunk: " + "; ".join(errors[:5]))
                built.append((chunk, spec.get("key")))
            except (ChunkValidationError, InvalidChunkId) as exc:
                if on_error is None:
                    raise
                on_error(i, exc)

        with self._writing(bulk=len(built) > 8 if bulk is None else bulk) as ctx:
            created, previous = [], None
            deleted = self._tombstones() if any(key for _, key in built) else set()
            for chunk, key in built:
                if key and chunk["metadata"]["provenance"]["hash"] in deleted:
                    continue  # deleted for good by a person: a later capture of the same entry stays deleted
                if key:
                    existing, attempt = ctx.existing(chunk["id"]), 1
                    while existing is not None and not _same_key(existing, chunk):  # another key, same id
                        attempt += 1
                        chunk["id"] = new_chunk_id(chunk["metadata"]["created"], f"{key}#alt{attempt}")
                        existing = ctx.existing(chunk["id"])
                    if existing is not None:  # stored before (live or archived): idempotent, never a copy
                        created.append(Chunk.from_dict(existing))
                        previous = chunk["id"]
                        continue
                while not key and ctx.id_taken(chunk["id"]):  # random ids can collide: draw again
                    chunk["id"] = new_chunk_id(chunk["metadata"]["created"])
                if chain and previous and previous not in chunk["links"]["follows"]:
                    chunk["links"]["follows"].append(previous)
                if auto_link:
                    self._auto_link(chunk, ctx)  # adds only ids the store made itself: validated above
                ctx.add(chunk)
                created.append(Chunk.from_dict(chunk))
                previous = chunk["id"]
        for chunk in ctx.added:
            audit(self.root, action, chunk["id"], actor=self.actor, reason=reason)
        if added is not None:
            added.extend(Chunk.from_dict(c) for c in ctx.added)
        return created

    def _tombstones(self) -> set:
        try:
            return set((self.root / "state" / TOMBSTONES).read_text(encoding="utf-8").split())
        except OSError:
            return set()

    def update_chunk(self, chunk_id: str, *, reason=None, **changes) -> Chunk:
        """Change content, type, tags or metadata fields (e.g. confidence=0.98). Returns the updated chunk."""
        validate_chunk_id(chunk_id)
        with self._writing() as ctx:
            data = self.read_file(self.chunk_path(chunk_id))
            if data is None:
                raise ChunkNotFound(f"no chunk {chunk_id} (see `rlm-mem list`; archived chunks need `restore`)")
            md = dict(data["metadata"])
            for name, value in changes.items():
                if name == "content":
                    if not isinstance(value, str) or not value.strip():
                        raise ChunkValidationError("content is empty")
                    data["content"] = _redact(value.strip())
                    data["tokens"] = estimate_tokens(data["content"])
                    if data["tokens"] > self.engine.max_tokens:
                        raise ChunkValidationError(
                            f"new content is {data['tokens']} tokens; a chunk holds at most {self.engine.max_tokens}")
                elif name in ("chunk_type", "type"):
                    if value not in CHUNK_TYPES:
                        raise ChunkValidationError(f"unknown type {value!r}; use one of {', '.join(CHUNK_TYPES)}")
                    data["type"] = value
                elif name == "tags":
                    data["tags"] = clean_tags(value)
                elif name == "tokens":
                    data["tokens"] = value
                elif name == "links":
                    data["links"] = dict(empty_links(), **value)
                elif name in METADATA_FIELDS and name not in ("created",):
                    if value is None:
                        md.pop(name, None)
                    else:
                        md[name] = float(value) if name == "confidence" and isinstance(value, (int, float)) else value
                else:
                    raise ChunkValidationError(f"cannot update field {name!r}")
            md["updated"] = utc_now()
            data["metadata"] = md
            from brain.store.validation import check

            check("chunk", data)
            ctx.write(data)
        audit(self.root, "update", chunk_id, actor=self.actor, reason=reason,
              details={"fields": sorted(changes)})
        return Chunk.from_dict(data)

    def delete_chunk(self, chunk_id: str, permanent: bool = False, *, reason=None) -> bool:
        """Soft delete moves the chunk to archive/; permanent removes it and every link to it. False if absent."""
        validate_chunk_id(chunk_id)
        with self._writing() as ctx:
            live, archived = self.chunk_path(chunk_id), self.archive_path(chunk_id)
            if live.is_file() and not live.is_symlink() and self.inside(live):
                source = live
            elif permanent and archived.is_file() and not archived.is_symlink():
                source = archived
            else:
                return False
            if permanent:
                keyed = (self.read_file(source, validate=False) or {}).get("metadata", {}).get("provenance") or {}
                os.unlink(source)
                ctx.forget(chunk_id)
                if str(keyed.get("hash", "")).startswith("key:"):  # captured: capturing it again must not revive it
                    append_line(self.root / "state" / TOMBSTONES, keyed["hash"])
                for ref in ctx.referrers(chunk_id):
                    ctx.strip_links_to(ref, chunk_id)
            else:
                ensure_dir(self.archive_dir)
                os.replace(source, archived)
                ctx.forget(chunk_id)
        audit(self.root, "delete" if permanent else "archive", chunk_id, actor=self.actor, reason=reason)
        return True

    def restore_chunk(self, chunk_id: str, *, reason=None) -> Chunk:
        validate_chunk_id(chunk_id)
        with self._writing() as ctx:
            src = self.archive_path(chunk_id)
            data = self.read_file(src)
            if data is None:
                raise ChunkNotFound(f"no archived chunk {chunk_id} (see `rlm-mem list --archived`)")
            dest = self.chunk_path(chunk_id)
            ensure_dir(dest.parent)
            self._refuse_link(dest.parent)
            os.replace(src, dest)
            ctx.index(data, dest)
        audit(self.root, "restore", chunk_id, actor=self.actor, reason=reason)
        return Chunk.from_dict(data)

    def link_chunks(self, source_id: str, target_id: str, link_type: str, *, reason=None,
                    remove: bool = False) -> Chunk:
        """Add (or remove) a link from source to target. supports/contradicts are the manual types."""
        if link_type not in LINK_TYPES + ("supersedes", "superseded_by", "derived_from", "consolidated_into"):
            raise ChunkValidationError(f"unknown link type {link_type!r}; use {' or '.join(MANUAL_LINK_TYPES)}")
        validate_chunk_id(source_id)
        validate_chunk_id(target_id)
        if source_id == target_id:
            raise ChunkValidationError("a chunk cannot link to itself")
        with self._writing() as ctx:
            data = self.read_file(self.chunk_path(source_id))
            if data is None:
                raise ChunkNotFound(f"no chunk {source_id}")
            if not remove and not (self.chunk_path(target_id).is_file() or self.archive_path(target_id).is_file()):
                raise ChunkNotFound(f"no chunk {target_id} to link to")
            targets = data["links"].setdefault(link_type, [])
            if remove:
                if target_id in targets:
                    targets.remove(target_id)
            elif target_id not in targets:
                targets.append(target_id)
            ctx.write(data)
        audit(self.root, "unlink" if remove else "link", source_id, actor=self.actor, reason=reason,
              details={"type": link_type, "target": target_id})
        return Chunk.from_dict(data)

    # ------------------------------------------------------------------ maintenance
    def reindex(self, progress=None) -> dict:
        """Rebuild every derived structure from the chunk files (and fold pending access counts first).

        `progress(done, total)` is called as files are read (the CLI draws a bar on a terminal)."""
        self.fold_access()
        with self._lock():
            for suffix in ("", "-wal", "-shm"):  # start from nothing: a damaged index must not survive a rebuild
                try:
                    os.unlink(str(search_index.db_path(self.root)) + suffix)
                except FileNotFoundError:
                    pass
            indexes = JsonIndexes(self.index_dir)
            conn = search_index.connect(self.root)
            count = skipped = 0
            try:
                conn.execute("BEGIN IMMEDIATE")
                paths = list(self.iter_chunk_paths())
                for done, path in enumerate(paths, 1):
                    if progress is not None and (done % 500 == 0 or done == len(paths)):
                        progress(done, len(paths))
                    data = self.read_file(path)
                    if data is None:
                        skipped += 1
                        continue
                    rel = self.relpath(path)
                    indexes.add(data, rel)
                    search_index.upsert(conn, data, rel, _mtime(path))
                    count += 1
                search_index.set_meta(conn, "fingerprint", self.fingerprint())
                conn.execute("COMMIT")
                conn.execute("INSERT INTO fts(fts) VALUES('optimize')")
            finally:
                conn.close()
            indexes.save()
        return {"chunks": count, "skipped": skipped}

    def fold_access(self) -> int:
        """Write pending access counts in one batch. Returns how many chunks changed.

        Normally into the chunk files (seed 000 keeps the counts there). When the store lives in a git repository
        (a team shares it), the counts go to index/access_state.json instead: git-ignored, so reading memories
        never changes a tracked file and never causes a merge conflict.
        """
        log_file = access.log_path(self.root)
        if not log_file.exists() and not log_file.with_suffix(".folding").exists():
            return 0
        with self._writing() as ctx:
            pending = access.take_for_fold(self.root)
            if access.in_git_repository(self.root):
                access.merge_into_state(self.root, pending)
                changed = len(pending)
            else:
                changed = 0
                for chunk_id in pending:
                    try:
                        path = self.chunk_path(chunk_id)
                    except InvalidChunkId:
                        continue
                    data = self.read_file(path)
                    if data is not None:
                        ctx.write(access.apply_pending(data, pending), index_json=False)
                        changed += 1
                        continue
                    archived = self.read_file(self.archive_path(chunk_id))  # archived since it was read
                    if archived is not None:
                        text = json.dumps(access.apply_pending(archived, pending), indent=2, ensure_ascii=False)
                        atomic_write_bytes(self.archive_path(chunk_id), (text + "\n").encode("utf-8"))
                        changed += 1
            access.finish_fold(self.root)
        return changed

    def fingerprint(self) -> dict:
        """Cheap staleness check for the derived index: each month folder's mtime (one stat per month)."""
        return search_index.month_fingerprint(self.root)

    def sync_derived(self) -> dict | None:
        """Bring derived indexes up to date when chunk files changed behind rlm-mem's back (a git pull, a crash,
        a hand edit). Costs one stat per month folder when nothing changed; returns what was re-indexed, or None."""
        if not search_index.is_stale(self.root):
            return None
        with self._writing() as ctx:
            result = ctx.synced
        return result

    def stats(self) -> dict:
        by_type, by_kind, tokens, count = {}, {}, 0, 0
        for data in self.iter_chunks(validate=False):
            count += 1
            tokens += data.get("tokens", 0)
            by_type[data["type"]] = by_type.get(data["type"], 0) + 1
            kind = data["metadata"].get("kind", "memory")
            by_kind[kind] = by_kind.get(kind, 0) + 1
        archived = sum(1 for _ in self.iter_archive_paths())
        disk = sum(p.stat().st_size for p in self.root.rglob("*") if p.is_file()) if self.root.is_dir() else 0
        return {"root": str(self.root), "chunks": count, "archived": archived, "tokens": tokens,
                "by_type": dict(sorted(by_type.items())), "by_kind": dict(sorted(by_kind.items())),
                "pending_accesses": access.pending_lines(self.root), "bytes_on_disk": disk}


def key_hash(key: str) -> str:
    return "key:" + search_index.sha1(key.encode("utf-8")).hexdigest()[:16]


def _same_key(existing: dict, chunk: dict) -> bool:
    """Whether a stored chunk was made from the same key (older chunks without the hash: same content)."""
    theirs = (existing.get("metadata", {}).get("provenance") or {}).get("hash")
    if theirs and str(theirs).startswith("key:"):
        return theirs == chunk["metadata"]["provenance"]["hash"]
    return existing.get("content") == chunk["content"]


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


class _WriteContext:
    """One locked write session: chunk files written now; JSON indexes and search index committed once."""

    def __init__(self, store: ChunkStore, *, bulk: bool = False):
        self.store = store
        self.bulk = bulk  # defer durability to one os.sync() in commit()
        self.indexes = JsonIndexes(store.index_dir).load()
        self.conn = search_index.connect(store.root)
        self.conn.execute("BEGIN IMMEDIATE")
        search_index.migrate_if_older(self.conn)  # then _sync finds no fingerprint and re-indexes every file
        self.added: list = []
        self._conversations = None
        self._json_dirty = False
        self.synced = self._sync()

    def _sync(self):
        """Re-index the month folders whose mtime differs from the one recorded at the last commit."""
        stored = search_index.get_meta(self.conn, "fingerprint", None)
        current = self.store.fingerprint()
        if stored == current:
            return None
        stored = stored or {}
        months = {m for m in set(stored) | set(current) if stored.get(m) != current.get(m)}
        indexed = search_index.indexed_ids(self.conn)
        seen, added, removed = set(), 0, 0
        for month in months:
            folder = self.store.chunks_dir / month
            for path in sorted(folder.glob("chunk-*.json")) if folder.is_dir() else ():
                seen.add(path.stem)
                if indexed.get(path.stem) == _mtime(path) and path.stem in self.indexes.metadata:
                    continue
                data = self.store.read_file(path)
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
        path = self.store.chunk_path(chunk_id)
        if path.is_file():
            return self.store.read_file(path)
        if self.store.archive_path(chunk_id).is_file():
            return self.store.read_file(self.store.archive_path(chunk_id))
        return None

    def id_taken(self, chunk_id: str) -> bool:
        return self.store.chunk_path(chunk_id).exists() or self.store.archive_path(chunk_id).exists()

    def _conversation_map(self) -> dict:
        if self._conversations is None:
            conv = {}
            for cid, entry in self.indexes.metadata.items():
                if entry.get("conversation_id"):
                    conv.setdefault(entry["conversation_id"], []).append((entry["created"], cid))
            self._conversations = conv
        return self._conversations

    def previous_in_conversation(self, conv: str, created: str, chunk_id: str):
        best = None
        for when, cid in self._conversation_map().get(conv, ()):
            if cid != chunk_id and when <= created and (best is None or (when, cid) > best):
                best = (when, cid)
        if best and _parse_time(created) - _parse_time(best[0]) <= FOLLOWS_WINDOW:
            return best[1]
        return None

    def related_by_tags(self, tags, chunk_id: str, exclude) -> list:
        shared = {}
        for tag in tags:
            ids = self.indexes.tags.get(tag, ())
            if len(ids) > RELATED_TAG_LIMIT:
                continue
            for other in ids:
                if other != chunk_id and other not in exclude:
                    shared[other] = shared.get(other, 0) + 1
        meta = self.indexes.metadata
        ranked = sorted(shared, key=lambda o: (shared[o], meta.get(o, {}).get("created", ""), o), reverse=True)
        return ranked[:MAX_RELATED]

    def referrers(self, target: str) -> list:
        refs = set(self.indexes.referrers(target))
        for path in self.store.iter_archive_paths():  # archived chunks can hold links too
            data = self.store.read_file(path, validate=False)
            if data and any(target in v for v in data.get("links", {}).values()):
                refs.add(data["id"])
        return sorted(refs)

    # mutations -----------------------------------------------------------
    def write(self, data: dict, *, index_json: bool = True) -> Path:
        path = self.store.chunk_path(data["id"])
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        if path.parent.is_symlink():
            self.store._refuse_link(path.parent)
        try:
            atomic_write_bytes(path, text.encode("utf-8"), fsync=not self.bulk)
        except OSError as exc:
            raise StoreUnwritable(f"cannot write {path}: {exc.strerror or exc}") from exc
        self.index(data, path, index_json=index_json)
        return path

    def index(self, data: dict, path: Path, *, index_json: bool = True) -> None:
        rel = self.store.relpath(path)
        if index_json:
            self.indexes.add(data, rel)
            self._json_dirty = True
        search_index.upsert(self.conn, data, rel, _mtime(path))

    def add(self, data: dict) -> None:
        self.write(data)
        self.added.append(data)
        if data["metadata"].get("conversation_id"):
            self._conversation_map().setdefault(data["metadata"]["conversation_id"], []).append(
                (data["metadata"]["created"], data["id"]))

    def forget(self, chunk_id: str) -> None:
        self.indexes.remove(chunk_id)
        self._json_dirty = True
        search_index.remove(self.conn, chunk_id)

    def strip_links_to(self, ref: str, target: str) -> None:
        live = self.store.chunk_path(ref)
        path = live if live.is_file() else self.store.archive_path(ref)
        data = self.store.read_file(path, validate=False)
        if data is None:
            return
        data["links"] = {k: [t for t in v if t != target] for k, v in data["links"].items()}
        if path == live:
            self.write(data)
        else:
            atomic_write_bytes(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))

    def abort(self) -> None:
        """Roll back the index transaction; chunk files already written stay (sync_derived picks them up)."""
        try:
            self.conn.execute("ROLLBACK")
        except Exception:
            pass
        self.conn.close()

    def commit(self) -> None:
        if self.bulk and self.added:
            os.sync()  # every file (and directory entry) of this batch is durable before anything reports it saved
        try:
            if self._json_dirty:  # before COMMIT: dying in between leaves a stale fingerprint, so the next writer
                self.indexes.save()  # re-syncs; after it, the JSON indexes would stay stale until a reindex
            search_index.set_meta(self.conn, "fingerprint", self.store.fingerprint())
            self.conn.execute("COMMIT")
        finally:
            self.conn.close()
