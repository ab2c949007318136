"""Bringing the memory root to a merge's result, through rlm-mem's own writers, in one locked write session.

Only what differs between the merged tree and the files on disk is touched, so a pull costs what it brought: each
memory that came or changed is written (redacted again on the way, as every write is) and indexed in the same
session, one that was archived or restored is moved, one deleted for good is removed with the links to it, its
episode entry and any kept losing version; a log gets the lines or entries it lacks appended (never rewritten:
a line appended meanwhile is never lost). This machine's access counts of a memory stay its own. A memory whose
local file is held back (not rlm-mem's writing), or which the merge could not read, is left alone and reported.
The session's commit records the month folders it changed, so nothing is re-indexed again afterwards.
"""
import os

from brain.store.audit import audit, forget_kept_versions
from brain.store.build import mark_dormant, tombstone_tokens, tombstones
from brain.store.episodes import forget_episode
from brain.sync.git import blob_id
from brain.sync.merge import without_links_to
from brain.sync.tracked import (ARCHIVED, AUDIT, BURIED, CHUNK, EPISODE, MAX_FILE, archive_path, chunk_bytes,
                                chunk_id_of, entries, good_entry, good_line, kind_of, live_path, local_file, read_chunk)
from brain.util.files import append_line, append_text, read_text


class Applied:
    """What an apply did: ids written, moved, deleted; log files extended; conflicts recorded; skipped paths."""

    def __init__(self):
        self.written, self.deleted, self.logs, self.conflicts = [], [], [], 0
        self.skipped: dict = {}
        self.live: dict = {}  # repository path -> blob id of each live memory file written

    @property
    def changed(self) -> int:
        return len(self.written) + len(self.deleted) + len(self.logs)


def _by_id(tree: dict) -> dict:
    """chunk id -> (location, blob id) of a tree's memories (a live file counts over an archived one)."""
    out = {}
    for path in sorted(tree, reverse=True):  # chunks/ before archive/
        kind = kind_of(path)
        if kind in (CHUNK, ARCHIVED):
            out.setdefault(chunk_id_of(path), (kind, tree[path]))
    return out


def apply(session, store, merged, local, blobs) -> Applied:
    """Make the files under `store` what `merged` says, given `local` (the scan the merge was made against) and
    `blobs(ids)` to read the repository's. Runs inside `session` (brain/store/write_session.writing)."""
    done = Applied()
    held = {chunk_id_of(p) for p in (*local.held, *merged.rejected) if kind_of(p) in (CHUNK, ARCHIVED)}
    buried = merged.tombstones | tombstones(store.layout.state_dir)  # (read under the lock: a delete meanwhile)
    want, have = _by_id(merged.tree), _by_id(local.tree)
    todo = [cid for cid, target in want.items() if have.get(cid) != target and cid not in held and cid not in buried]
    needed = [want[cid][1] for cid in todo if cid not in merged.chunks]
    needed += [oid for path, oid in merged.tree.items() if kind_of(path) in (AUDIT, EPISODE, BURIED)
               and local.tree.get(path) != oid and oid not in merged.new]
    content = dict(merged.new)
    content.update(blobs([oid for oid in needed if oid not in content]))
    for cid in todo:
        location, oid = want[cid]
        if cid in merged.chunks and merged.chunks[cid] is not None and merged.chunks[cid][0] == location:
            data = merged.chunks[cid][1]
        else:
            data, why = read_chunk(content.get(oid, b""), cid)
            if data is None:
                done.skipped[live_path(cid) if location == CHUNK else archive_path(cid)] = why
                continue
        oid = _put(session, store, cid, location, without_links_to(data, buried), cid in have)
        done.written.append(cid)
        if oid is not None:
            done.live[live_path(cid)] = oid
    gone = [cid for cid in have if cid in merged.tombstones and cid not in held]
    for cid in gone:
        _remove(session, store, cid)
        done.deleted.append(cid)
    new_tombstones = _extend_logs(store.root, merged, local, content, done)
    for cid in sorted(set(gone) | new_tombstones):
        if cid.startswith("chunk-"):
            forget_episode(store.root, cid)
            forget_kept_versions(store.root, cid)
    for cid, info in sorted(merged.lost.items()):
        audit(store.root, "sync", cid, actor="sync", details=info,
              reason="changed on two machines: the later change kept, the other's values here")
        done.conflicts += 1
    return done


def _local_counts(store, cid: str, here: bool) -> tuple:
    """This machine's access count and last access of a memory (0, None when it is new here)."""
    data = store.layout.read_chunk(cid, include_archived=True) if here else None
    md = (data or {}).get("metadata") or {}
    return md.get("access_count") or 0, md.get("last_accessed")


def _put(session, store, cid: str, location: str, data: dict, here: bool) -> str | None:
    """Write one memory where the merge puts it; for a live one, the blob id of its form in the repository (what
    was written, redacted on the way)."""
    data = dict(data, metadata=dict(data["metadata"]))
    data["metadata"]["access_count"], data["metadata"]["last_accessed"] = _local_counts(store, cid, here)
    live, archived = store.layout.chunk_path(cid), store.layout.archive_path(cid)
    if location == CHUNK:
        session.write(data)  # redacts `data` in place: the file holds exactly what chunk_bytes sees
        if archived.is_file() and not archived.is_symlink():
            os.unlink(archived)
        session.moved(cid)
        return blob_id(chunk_bytes(data))
    session.write_archived(data)
    if live.is_file() and not live.is_symlink():
        os.unlink(live)
    mark_dormant(store.layout.state_dir, [cid], False)  # archived elsewhere, for a reason that travels
    session.forget(cid)
    session.moved(cid)
    return None


def _remove(session, store, cid: str) -> None:
    """A memory deleted for good on another machine: its files, its index rows and every link to it go."""
    for ref in session.referrers(cid):
        session.strip_links_to(ref, cid)
    for path in (store.layout.chunk_path(cid), store.layout.archive_path(cid)):
        if path.is_file() and not path.is_symlink():
            os.unlink(path)
    session.moved(cid)
    session.forget(cid)


def _extend_logs(root, merged, local, content: dict, done: Applied) -> set:
    """Append to each log what the merged one holds and the local one lacks, each line or entry checked as a local
    one is (one a sync brought is no exception). Returns the tombstones added."""
    added = set()
    for path, oid in sorted(merged.tree.items()):
        kind = kind_of(path)
        if kind not in (AUDIT, EPISODE, BURIED) or local.tree.get(path) == oid or path in local.held:
            continue
        target = content.get(oid, b"").decode("utf-8", errors="replace")
        file = local_file(root, path)
        try:
            mine = read_text(file, MAX_FILE)
        except OSError as exc:  # too big (then held back from sync too), or not a file
            done.skipped[path] = f"cannot be read ({exc.strerror or exc})"
            continue
        lead = "\n" if mine and not mine.endswith("\n") else ""  # a torn last line stays a line of its own
        if kind == EPISODE:
            have = set(entries(mine))
            parts = entries(target)
            head = parts[0] if parts and parts[0].startswith("# ") else None
            missing = [b for b in parts if b != head and b not in have and good_entry(b)]
            text = (lead if mine else "") + "".join(f"\n{b}\n" for b in missing)
        elif kind == BURIED:
            missing = sorted(tombstone_tokens(target) - set(mine.split()))
            text = lead + "\n".join(missing) + "\n"
        else:
            have = set(mine.splitlines())
            missing = [line for line in dict.fromkeys(target.splitlines()) if line not in have and good_line(line)]
            text = lead + "\n".join(missing) + "\n"
        if not missing or (kind == EPISODE and not mine and head is None):
            continue
        if len(mine.encode("utf-8")) + len(text.encode("utf-8")) > MAX_FILE:
            done.skipped[path] = f"would grow past the {MAX_FILE:,} bytes a sync reads: what came is not appended"
            continue
        if kind == EPISODE and not mine:  # (episodes and audit logs are rewritten by a permanent delete)
            append_text(file, text, create_with=head + "\n", rewritten=True)
        elif kind == EPISODE:
            append_text(file, text, rewritten=True)
        else:
            append_line(file, text, rewritten=True)
        done.logs.append(path)
        if kind == BURIED:
            added |= set(missing)
    return added
