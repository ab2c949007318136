"""Turns records into chunks: split, stable ids, batches through the store's bulk path, links resolved at the end.

Idempotence: every chunk's key is (format, record identity, digest of the content, part), so its id is stable;
a chunk whose key and content are already stored is counted as present and not written again. Records without a
time get today's date in their id, so besides the exact id the importer also looks for the key's hash under any
date (the id's tail) and compares content.

Records that carry a whole chunk (rlm-mem's own exports) keep their id, links and metadata. ChunkStore's public
writers always derive the id, so that path writes through the store's own locked write session instead.
"""
import json
import os
import re

from brain.interop.records import LinkRequest, Record, digest
from brain.safety.redact import redact, redact_value
from brain.store.audit import audit
from brain.store.build import build_chunk
from brain.store.chunk_store import relation_note
from brain.store.chunk import new_chunk_id
from brain.store.lifecycle import supersede
from brain.store.validation import schema_errors
from brain.store.write_session import writing
from brain.util.errors import ChunkNotFound, ChunkValidationError, InvalidChunkId
from brain.util.timestamps import normalize_timestamp, utc_now
from brain.util.tokens import estimate_tokens

BATCH_SIZE = 1000
_TAIL = re.compile(r"\Achunk-\d{4}-\d{2}-\d{2}-([0-9a-f]{8})\.json\Z")


class Importer:
    def __init__(self, store, report, fmt: str, *, batch_size: int = BATCH_SIZE, progress=None):
        self.store = store
        self.report = report
        self.fmt = fmt
        self.batch_size = max(1, int(batch_size))
        self.progress = progress
        self.pending = []  # (spec, record, chunk id)
        self.restores = []  # (chunk dict, record)
        self.refs = {}  # ref name -> chunk id (first part)
        self.requests = []  # LinkRequest
        self.seen = set()  # chunk ids handled in this run
        self._tails = None
        self.done_bytes = 0
        self.total_bytes = 0
        store.batch_job = True  # one import, many batches: one warm index connection, closed by finish()

    # ------------------------------------------------------------------ intake
    def add(self, item) -> None:
        if isinstance(item, LinkRequest):
            self.requests.append(item)
            return
        if item.chunk is not None:
            self._add_restore(item, item.chunk)
        elif item.keep_id:
            self._add_kept(item)
        else:
            self._add_record(item)
        if len(self.pending) + len(self.restores) >= self.batch_size:
            self.flush()

    def _add_record(self, rec: Record) -> None:
        pieces = self.store.engine.chunk(rec.content)
        if not pieces:
            self.report.error(rec.file, "empty content", rec.line)
            return
        try:
            created = normalize_timestamp(rec.created) if rec.created else utc_now()
        except ValueError:
            self.report.error(rec.file, "created is not a time rlm-mem can read", rec.line)
            return
        base = f"{self.fmt}:{rec.ident}:{digest(rec.content)}"
        previous = None
        for index, piece in enumerate(pieces, 1):
            key = base if len(pieces) == 1 else f"{base}#{index}"
            chunk_id = new_chunk_id(created, key)
            existing = self._stored_with(chunk_id, piece)
            if existing or chunk_id in self.seen:
                self.report.skipped_existing += 1
                chunk_id = existing or chunk_id
            else:
                self.seen.add(chunk_id)
                md = dict(rec.metadata)
                md.setdefault("provenance", {"kind": "import", "file": rec.file, "format": self.fmt,
                                             "ref": redact(rec.ident)[:1000]})  # redacted, then cut
                if len(pieces) > 1:
                    md["part"] = {"index": index, "count": len(pieces)}
                links = {k: list(v) for k, v in rec.links.items()}
                if previous:
                    links.setdefault("follows", []).append(previous)
                spec = dict(content=piece, chunk_type=rec.chunk_type, conversation_id=rec.conversation_id,
                            tags=rec.tags, confidence=rec.confidence, source=rec.source, created=created,
                            links=links, metadata=md, key=key)
                self.pending.append((spec, rec, chunk_id))
            if index == 1 and rec.ref_name:
                self.refs.setdefault(rec.ref_name, chunk_id)
            previous = chunk_id

    def _add_kept(self, rec: Record) -> None:
        """A partial record that names its own chunk id: build the rest as the store would, keep the id."""
        spec = dict(content=rec.content, chunk_type=rec.chunk_type, conversation_id=rec.conversation_id,
                    tags=rec.tags, confidence=rec.confidence, source=rec.source, created=rec.created,
                    links=rec.links, metadata=rec.metadata)
        if self.store.engine.chunk(rec.content)[1:]:
            self.report.error(rec.file, f"{rec.keep_id}: content is longer than one chunk (800 tokens)", rec.line)
            return
        try:
            data = build_chunk(**spec)
        except (ChunkValidationError, InvalidChunkId) as exc:
            self.report.error(rec.file, str(exc), rec.line)
            return
        data["id"] = rec.keep_id
        self._add_restore(rec, data)

    def _add_restore(self, rec: Record, data: dict) -> None:
        before = data["content"]
        data = redact_value(json.loads(json.dumps(data)))  # a copy, every field redacted, whatever the source claims
        if data["content"] != before:
            data["tokens"] = estimate_tokens(data["content"])
        if data["id"] in self.seen:
            self.report.skipped_existing += 1
            return
        self.seen.add(data["id"])
        self.restores.append((data, rec))
        if rec.ref_name:
            self.refs.setdefault(rec.ref_name, data["id"])

    # ------------------------------------------------------------------ what is stored already
    def _stored_with(self, chunk_id: str, piece: str):
        """Id of a stored chunk (live or archived) with this key and these words, or None."""
        tail = chunk_id[-8:]
        tails = self._tail_index()
        if tail not in tails:
            return None

        want = redact(piece.strip())
        for candidate in sorted(tails[tail], key=lambda c: c != chunk_id):
            for path in (self.store.layout.chunk_path(candidate), self.store.layout.archive_path(candidate)):
                data = self.store.layout.read_file(path, validate=False)
                if data is not None and data.get("content") == want:
                    return candidate
        return None

    def _tail_index(self) -> dict:
        """Hash tail -> ids, from file names only (one directory listing per month)."""
        if self._tails is None:
            tails = {}
            folders = [self.store.archive_dir]
            if self.store.chunks_dir.is_dir():
                folders += [e.path for e in os.scandir(self.store.chunks_dir) if e.is_dir(follow_symlinks=False)]
            for folder in folders:
                try:
                    entries = list(os.scandir(folder))
                except OSError:
                    continue
                for entry in entries:
                    m = _TAIL.match(entry.name)
                    if m:
                        tails.setdefault(m.group(1), []).append(entry.name[:-5])
            self._tails = tails
        return self._tails

    # ------------------------------------------------------------------ writing
    def flush(self) -> None:
        if self.pending:
            self._flush_specs()
        if self.restores:
            self._flush_restores()
        if self.progress and self.total_bytes:
            self.progress(min(self.done_bytes, self.total_bytes), self.total_bytes)

    def _flush_specs(self) -> None:
        batch, self.pending = self.pending, []
        failures, late, added = {}, [], []

        def on_error(i, exc):
            if i >= 0:
                failures[i] = exc
            else:  # failed the schema after it was built: matched to its spec below, by order
                late.append(exc)

        chunks = self.store.create_many([spec for spec, _, _ in batch], auto_link=True, action="import",
                                        reason=f"import ({self.fmt})", on_error=on_error, bulk=True, added=added)
        returned = {c.id for c in chunks}
        for i, (spec, rec, chunk_id) in enumerate(batch):
            if i in failures:
                self.report.error(rec.file, str(failures[i]), rec.line)
            elif chunk_id not in returned and late:
                self.report.error(rec.file, str(late.pop(0)), rec.line)
        new_ids = [c.id for c in added]
        self.report.created += len(new_ids)
        self.report.skipped_existing += len(chunks) - len(new_ids)  # stored by someone else meanwhile
        self.report.ids.extend(new_ids)
        if self._tails is not None:
            for chunk_id in new_ids:
                self._tails.setdefault(chunk_id[-8:], []).append(chunk_id)

    def _flush_restores(self) -> None:
        batch, self.restores = self.restores, []
        added = []
        # ChunkStore's public writers derive ids; a restore keeps the record's own, so it uses the store's
        # locked write session directly (same lock, same index updates, committed when the block ends).
        with writing(self.store.layout, lock_timeout=self.store.lock_timeout, bulk=True,
                     keep=self.store.batch_job) as ctx:
            for data, rec in batch:
                stored = ctx.existing(data["id"])
                if stored is not None or self.store.layout.exists(data["id"]):
                    if stored is not None and stored["content"] == data["content"]:
                        self.report.skipped_existing += 1
                    else:
                        self.report.error(rec.file, f"{data['id']} is already stored with other content; "
                                                    "kept the stored one", rec.line)
                    continue
                errors = schema_errors("chunk", data)
                if errors:
                    self.report.error(rec.file, "invalid chunk: " + "; ".join(errors[:3]), rec.line)
                    continue
                ctx.add(data)  # whole chunks from an export keep their own history
                added.append(data["id"])
        for chunk_id in added:
            audit(self.store.root, "import", chunk_id, actor=self.store.actor, reason=f"import ({self.fmt})")
        self.report.created += len(added)
        self.report.ids.extend(added)

    # ------------------------------------------------------------------ links, once every record is stored
    def finish(self) -> None:
        try:
            self.flush()
        finally:
            self.store.end_batch_job()
        if not self.requests:
            return

        done = set()
        for req in self.requests:
            src, dst = self.refs.get(req.src), self.refs.get(req.dst)
            if not src or not dst or src == dst:
                self.report.unresolved_links += 1
                continue
            if (src, req.link_type, dst) in done and req.strength is None and req.context is None \
                    and not req.original:
                continue  # said twice (outgoing on one side, incoming on the other), nothing more the second time
            done.add((src, req.link_type, dst))
            try:
                if req.link_type == "supersede":
                    old = self.store.get_chunk(dst, track=False)
                    if old is not None and src not in old.links.get("superseded_by", []):
                        supersede(self.store, dst, src, reason=f"import ({self.fmt}): {req.file}")
                        self.report.links += 1
                    continue
                holder = self.store.get_chunk(src, track=False)
                if holder is None:
                    continue
                note = {k: v for k, v in (("strength", req.strength), ("context", req.context)) if v is not None}
                if dst not in holder.links.get(req.link_type, []):
                    self.report.links += 1
                if dst not in holder.links.get(req.link_type, []) or \
                        any(relation_note(holder.to_dict(), req.link_type, dst).get(k) != v for k, v in note.items()):
                    self.store.link_chunks(src, dst, req.link_type, reason=f"import ({self.fmt})", **note)
                if req.original:
                    self._remember_relation(src, req.original)
            except (ChunkNotFound, ChunkValidationError, InvalidChunkId) as exc:
                self.report.error(req.file, f"link {req.src} → {req.dst}: {exc}")

    def _remember_relation(self, chunk_id: str, original: dict) -> None:
        """Keep what the source said of a relation beyond its link (an edge file's id and description, a relation
        type rlm-mem does not know) in the holder's metadata.extra.relations."""
        chunk = self.store.get_chunk(chunk_id, track=False)
        extra = dict(chunk.metadata.get("extra") or {})
        relations = [dict(r) for r in extra.get("relations") or () if isinstance(r, dict)]
        for rel in relations:
            if rel.get("target") == original.get("target") and rel.get("type") == original.get("type"):
                missing = {k: v for k, v in original.items() if k not in rel}
                if not missing:
                    return  # recorded already (from the memory's own frontmatter or an earlier import)
                rel.update(missing)
                break
        else:
            relations.append(original)
        extra["relations"] = relations
        self.store.revise_chunk(chunk_id, extra=extra, reason=f"import ({self.fmt}): relation")

