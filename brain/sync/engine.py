"""`rlm-mem sync`: a person's memory store kept the same on every machine through a git remote they own.

One sync, under state/.sync.lock (one at a time per store):
1. Commit what changed here (brain/sync/tracked.py's scan, under the store lock: no write is half done).
2. Ask the remote for its main branch (`git ls-remote`); fetch it when it moved. An empty remote gets ours; a
   remote whose main is not rlm-mem's (no rlm-mem-sync.json) is refused, and nothing is changed here.
3. When the remote has what we lack: merge by rlm-mem's rules (brain/sync/merge.py), bring the files here to the
   result in one write session (brain/sync/apply.py: only what differs; indexes updated in the same
   transaction), then commit the result with both parents (or move to the remote's commit when they are equal).
4. Push. A push refused because another machine pushed meanwhile starts again at 2 (a few rounds).
A failure says so in one line and leaves the memory as it was, but for what a completed step committed; the
last attempt is recorded in state/sync.json for the LiveHud and `rlm-mem doctor`. A sync killed at any point
leaves whole files and git's atomic refs: the next sync finds what is left to do by the same comparisons.
"""
import os
import shutil
import socket
import time

from brain.context.location import project_memory_dir
from brain.context.project import ProjectConfigError, find_git, read_config
from brain.store.build import tombstones
from brain.store.chunk_store import ChunkStore
from brain.store.validation import FILES_VERSION
from brain.store.write_session import writing
from brain.sync import status as sync_status
from brain.sync.apply import apply
from brain.sync.git import (BRANCH, REMOTE_REF, GitFailed, Repository, SyncError, blob_id, check_url, local_path,
                            network_timeout, tracks)
from brain.sync.merge import Merged, merge
from brain.sync.tracked import (ARCHIVED, BEHIND, CHUNK, EPISODE, MARKER, MARKER_BYTES, MAX_FILE, RACY_NS,
                                SYNC_VERSION, TOMBSTONE_PATH, UNREADABLE, Scan, carried, chunk_id_of, kind_of,
                                local_file, marker_versions, now_ns, read_canonical, read_chunk, save_cache, scan)
from brain.util.files import ensure_dir, owner_lock, remove_if_present, store_lock, try_acquire
from brain.util.timestamps import utc_now

HEAD = f"refs/heads/{BRANCH}"
ROUNDS = 4  # pushes refused because another machine pushed first, before giving up


class NotRlmMemRemote(SyncError):
    pass


class SyncBusy(SyncError):
    pass


class NewerRemote(SyncError):
    pass


class SyncResult:
    """What one sync did: files sent, memories received (written, deleted), log files extended, conflicts decided
    by the rules, files held back (path -> why), the commit both sides now have, and how long it took."""

    def __init__(self, remote: str):
        self.remote, self.sent, self.received, self.deleted, self.logs = remote, 0, 0, 0, 0
        self.conflicts, self.held, self.commit, self.seconds, self.set_up = 0, {}, None, 0.0, False
        self.scan = None  # the last scan whose files are all committed (saved as the next sync's stat cache)
        self.behind: dict = {}  # path -> blob id of a memory file here kept behind the repository's version
        self.kept: dict = {}  # the last commit's paths kept from the tree: path -> (why, blob id of the file here)

    def to_dict(self) -> dict:
        return {"remote": self.remote, "sent": self.sent, "received": self.received, "deleted": self.deleted,
                "logs": self.logs, "conflicts": self.conflicts, "held": self.held, "commit": self.commit,
                "seconds": round(self.seconds, 3), "set_up": self.set_up}

    def summary(self) -> str:
        parts = [f"sent {self.sent} file(s)", f"received {self.received} memory file(s)"]
        if self.deleted:
            parts.append(f"removed {self.deleted} memory(ies) deleted for good elsewhere")
        if self.conflicts:
            parts.append(f"{self.conflicts} memory(ies) changed on both sides (the later change kept; the other in "
                         "the audit log)")
        if self.held:
            shown = ", ".join(sorted(self.held)[:3]) + (" ..." if len(self.held) > 3 else "")
            parts.append(f"held back {len(self.held)} file(s) ({shown}; `rlm-mem sync --status` says why)")
        return f"synced with {self.remote}: " + ", ".join(parts)


def _refuse_shared_folder(root) -> None:
    """A project's memory kept in its repository (`.rlm-mem.json`'s memory_dir), or a folder that repository
    tracks, is the team's: git already carries it, and `rlm-mem sync` keeps the person's own. A memory folder that
    merely lies inside a work tree (a home folder kept in git for its dotfiles) is the person's."""
    real = os.path.realpath(root)
    found = find_git(real)
    if found is None:
        return
    try:
        shared = project_memory_dir(found[0], read_config(found[0]))
    except ProjectConfigError:
        shared = None
    if (shared and os.path.commonpath([shared, real]) == shared) or tracks(found[0], real):
        raise SyncError(f"the memory folder {root} is a project's memory shared through its git repository "
                        f"({found[0]}: `rlm-mem share`); `rlm-mem sync` keeps your own memory, in a repository of "
                        "its own")


def _own_remote(root, url: str) -> str:
    """The remote as git is to keep it: a path on this machine made absolute from where the person stands, and
    never the memory folder itself or anything in it (its own sync repository)."""
    path = local_path(url)
    if path is None:
        return url
    real, mine = os.path.realpath(path), os.path.realpath(root)
    if os.path.commonpath([real, mine]) == mine:
        raise SyncError(f"the remote {path} is inside the memory folder {root} (its own sync repository, or one "
                        "of its folders): give a repository elsewhere")
    return url if "://" in url else path


def sync(root, *, remote: str | None = None, background: bool = False, lock_timeout: float = 120) -> SyncResult:
    """Sync the store at `root` with its remote (`remote` sets it up, or changes it). SyncError says why not."""
    started = time.monotonic()
    root = os.fspath(root)
    _refuse_shared_folder(root)
    network_timeout()  # a bad RLM_MEM_SYNC_TIMEOUT says so before anything is done
    url = _own_remote(root, check_url(remote)) if remote is not None else None
    repo = Repository(sync_status.repo_path(root), background=background, carried=carried, max_blob=MAX_FILE)
    if url is None and (not repo.exists() or not repo.remote_url()):
        raise SyncError("sync is not set up for this memory: run `rlm-mem sync --remote URL` once (a private "
                        "repository of yours, or a bare one on your own server)")
    ensure_dir(os.path.join(root, "state"))
    lock = owner_lock(os.path.join(root, "state", sync_status.LOCK_FILE), 0 if background else lock_timeout)
    if not try_acquire(lock):
        raise SyncBusy("another sync of this memory is running; it carries these changes too")
    try:
        created = not repo.exists()
        if created:
            repo.init()
        repo.remove_leftovers()
        previous, before = sync_status.read_status(root), repo.remote_url()
        if url is not None:
            repo.set_remote(url)
        url = repo.remote_url()
        known = bool(previous.get("synced")) and previous.get("remote") == url
        status = {"remote": url, "attempted": utc_now(), "attempted_at": time.time(),
                  "synced": previous.get("synced") if previous.get("remote") == url else None,
                  "behind": _behind(previous) if previous.get("remote") == url else {}}
        result = SyncResult(url)
        result.behind = dict(status["behind"])
        result.set_up = created or url != previous.get("remote")
        try:
            try:
                _run(ChunkStore(root), repo, result, known=known)
            finally:
                if result.scan is not None:
                    save_cache(root, result.scan)
        except NotRlmMemRemote as exc:
            if result.set_up:  # a first try at this remote: nothing of it stays
                repo.set_remote(before) if before else repo.unset_remote()
                if created:
                    shutil.rmtree(repo.path, ignore_errors=True)
                    remove_if_present(os.path.join(root, "state", sync_status.FILES_CACHE))
                raise
            _record_failure(root, status, result, exc)
            raise
        except GitFailed as exc:
            failure = SyncError(f"{exc}; what is new here waits for the next sync")
            _record_failure(root, status, result, failure)
            raise failure from None
        except Exception as exc:  # a busy or unwritable store, offline...: recorded for the LiveHud and doctor
            _record_failure(root, status, result, exc)
            raise
        repo.housekeeping()
        result.seconds = time.monotonic() - started
        status.update(error=None, synced=utc_now(), synced_at=time.time(), commit=result.commit,
                      held=sorted(result.held)[:20], behind={p: blob for p, (_, blob) in result.kept.items() if blob})
        sync_status.write_status(root, status)
        return result
    finally:
        lock.release()


def _behind(status: dict) -> dict:
    """The memory files here that the last sync left behind the repository's version (path -> their blob id)."""
    value = status.get("behind")
    if not isinstance(value, dict):
        return {}
    return {p: b for p, b in value.items()
            if isinstance(p, str) and isinstance(b, str) and kind_of(p) in (CHUNK, ARCHIVED)}


def _record_failure(root, status: dict, result: SyncResult, error: Exception) -> None:
    status.update(error=str(error) or type(error).__name__, held=sorted(result.held)[:20])
    try:
        sync_status.write_status(root, status)
    except OSError:
        pass  # an unwritable store: the error itself is what the person sees


def _run(store, repo, result: SyncResult, *, known: bool) -> None:
    with store_lock(store.root, store.lock_timeout):
        ours, _ = _commit_local(store, repo, result)
    for _ in range(ROUNDS):
        remote_head, has_refs = repo.remote_head()
        theirs, merged = None, False
        if remote_head is None:
            if has_refs and not known:
                raise NotRlmMemRemote(f"{repo.remote_url()} is not empty and has no `{BRANCH}` branch of rlm-mem's; "
                                      "give an empty repository of your own (nothing was changed here)")
        else:
            if repo.resolve(REMOTE_REF) != remote_head:
                repo.fetch()
            theirs = repo.resolve(REMOTE_REF)
            theirs_tree = repo.listing(theirs)
            _check_marker(repo, theirs_tree)
            if not repo.is_ancestor(theirs, ours):
                ours, merged = _merge_in(store, repo, ours, theirs, theirs_tree, result), True
        if not merged:  # (a merge brings the store to its result, lost files included)
            _bring_back(store, repo, ours, result)
        if ours == theirs or repo.push(ours):
            result.commit = ours
            before, after = repo.listing(theirs), repo.listing(ours)
            result.sent += sum(1 for p in set(before) | set(after) if before.get(p) != after.get(p) and p != MARKER)
            break
    else:
        raise SyncError(f"the remote kept changing while this sync ran ({ROUNDS} rounds); run `rlm-mem sync` again")
    store.sync_derived()  # what a killed sync wrote and did not index


def _check_marker(repo, tree: dict) -> None:
    """The remote is rlm-mem's, and written by no newer rlm-mem than this one (whose files this one could not
    read: merging them would rewrite what it cannot read)."""
    oid = tree.get(MARKER)
    if oid == blob_id(MARKER_BYTES):
        return
    said = marker_versions(repo.blobs([oid]).get(oid, b"")) if oid else None
    if said is None:
        raise NotRlmMemRemote(f"{repo.remote_url()} holds something other than rlm-mem memory (its `{BRANCH}` "
                              f"branch has no {MARKER}); give an empty repository of your own (nothing was changed "
                              "here)")
    if said[0] > SYNC_VERSION or said[1] > FILES_VERSION:
        raise NewerRemote(f"{repo.remote_url()} was last synced by a newer rlm-mem (sync layout {said[0]}, memory "
                          f"files {said[1]}; this one reads up to {SYNC_VERSION} and {FILES_VERSION}): update "
                          "rlm-mem on this machine, then sync again (nothing was changed here)")


def compose(root, tree: dict, local, blobs, behind: dict) -> tuple:
    """(the tree to commit: `tree` with the files here as they are; the paths kept as `tree` has them: path -> (why,
    blob id of the file here)). A memory missing here stays in it (a file lost is brought back by the next merge)
    unless it was deleted for good or moved (archived, restored); a log missing here stays too. A file held back
    keeps the version `tree` has, and so does a memory whose version in `tree` this rlm-mem cannot read (one a newer
    rlm-mem wrote, or a damaged one: what cannot be read is never replaced, and the file here waits), or whose file
    here is still the one a sync left `behind` that version (unchanged since: not a change of this machine's; the
    store is brought up to it)."""
    out = dict(tree)
    out.update(local.tree)
    out[MARKER] = blob_id(MARKER_BYTES)  # this release's versions (a remote's were checked: never higher)
    here = {chunk_id_of(p) for p in local.tree if kind_of(p) in (CHUNK, ARCHIVED)}
    buried = tombstones(os.path.join(root, "state"))
    for path in list(out):
        if path in local.tree or path in local.held or kind_of(path) not in (CHUNK, ARCHIVED):
            continue
        cid = chunk_id_of(path)
        if cid in buried or cid in here:
            del out[path]
    replaced = [p for p, oid in tree.items() if kind_of(p) in (CHUNK, ARCHIVED) and out.get(p) != oid]
    content = blobs([tree[p] for p in replaced]) if replaced else {}
    kept = {}
    for path in replaced:
        readable = read_chunk(content.get(tree[path], b""), chunk_id_of(path))[0] is not None
        stale = path in behind and behind[path] == local.tree.get(path)
        if stale or not readable:
            out[path] = tree[path]
            kept[path] = (BEHIND if readable else UNREADABLE, local.tree.get(path))
    return out, kept


def _changes(repo, root, first: dict, target: dict, local, new: dict) -> dict:
    """path -> bytes, blob id or None (removed) turning the tree `first` into `target`."""
    changes = {p: None for p in first if p not in target}
    reuse = {}
    for path, oid in target.items():
        if first.get(path) == oid:
            continue
        data = local.fresh.get(path) if local.tree.get(path) == oid else None
        data = new.get(oid) if data is None else data
        if data is None and path == MARKER:
            data = MARKER_BYTES
        if data is not None:
            changes[path] = data
        else:
            reuse[path] = oid
    present = repo.present(reuse.values())
    for path, oid in reuse.items():
        if oid in present:
            changes[path] = oid
            continue
        here = local.where.get(path) or local_file(root, path)
        data, _ = read_canonical(here, kind_of(path), path)  # the stat cache's: read again
        if data is not None:
            changes[path] = data
        elif path in first:
            changes.pop(path, None)  # unreadable now: the parent's version stays
    return changes


def _applied(tree: dict, changes: dict) -> dict:
    """The tree `changes` (path -> bytes, blob id or None) make of `tree`."""
    out = dict(tree)
    for path, value in changes.items():
        if value is None:
            out.pop(path, None)
        else:
            out[path] = blob_id(value) if isinstance(value, bytes) else value
    return out


def _commit(store, repo, result, *, parents: list, tree: dict | None = None, new: dict | None = None,
            message: str, local: Scan | None = None) -> tuple:
    """Commit `tree` (default: the first parent's) with the files here (`local`, or a scan now): (commit, scan). No
    commit when nothing changed and there is one parent."""
    first = repo.listing(parents[0]) if parents else {}
    local = scan(store.root, result.scan) if local is None else local
    result.held.update(local.held)
    target, result.kept = compose(store.root, first if tree is None else tree, local, repo.blobs, result.behind)
    result.held.update({p: why for p, (why, _) in result.kept.items() if why == UNREADABLE})
    changes = _changes(repo, store.root, first, target, local, new or {})
    changes.update((path, None) for path in repo.foreign(parents[0] if parents else None))  # never carried on
    head = parents[0] if parents else None
    if changes or len(parents) != 1:
        head = repo.commit(parents=parents, changes=changes, message=message, when=time.time())
        repo.remember_listing(head, _applied(first, changes))
    result.scan = local  # its blob ids are all committed now: the next scan's cache
    return head, local


def _commit_local(store, repo, result) -> tuple:
    """Commit what changed here since the last commit (the caller holds the store lock): (head, scan)."""
    head = repo.resolve(HEAD)
    return _commit(store, repo, result, parents=[head] if head else [],
                   message=f"rlm-mem: memory of {socket.gethostname()}")


def _merge_in(store, repo, ours: str, theirs: str, theirs_tree: dict, result: SyncResult) -> str:
    """Merge the remote's commit into ours, here and in the repository; returns the new head."""
    with writing(store.layout, lock_timeout=store.lock_timeout, bulk=True) as session:
        ours, local = _commit_local(store, repo, result)  # written since step 1 (the lock was free meanwhile)
        base = repo.merge_base(ours, theirs)
        merged = merge(repo.listing(base), repo.listing(ours), theirs_tree, repo.blobs)
        applied = apply(session, store, merged, local, repo.blobs)
    result.received += len(applied.written)
    result.deleted += len(applied.deleted)
    result.logs += len(applied.logs)
    result.conflicts += applied.conflicts
    result.held.update(merged.rejected)
    result.held.update(applied.skipped)
    result.held.update({path: f"its version in the remote is {size:,} bytes, more than the {MAX_FILE:,} a sync reads: "
                        "not merged (this machine's stays)" for path, oid in theirs_tree.items()
                        if (size := repo.too_big.get(oid))})
    with store_lock(store.root, store.lock_timeout):
        local = scan(store.root, _seeded(store, result.scan, applied.live, session.mtimes))
        target, kept = compose(store.root, merged.tree, local, repo.blobs, result.behind)
        if target == theirs_tree and not repo.foreign(theirs):  # nothing here the remote lacks: take its commit
            repo.set_ref(HEAD, theirs)
            result.scan, result.kept = local, kept
            result.held.update({p: why for p, (why, _) in kept.items() if why == UNREADABLE})
            head = theirs
        else:
            parents = [theirs] if repo.is_ancestor(ours, theirs) else [ours, theirs]
            head, _ = _commit(store, repo, result, parents=parents, tree=merged.tree, new=merged.new,
                              message=f"rlm-mem: merge on {socket.gethostname()}", local=local)
    if applied.deleted:
        store.purge_derived(*applied.deleted)
    return head


def _bring_back(store, repo, head: str, result: SyncResult) -> None:
    """Files the commit holds and the store lacks without a tombstone (a memory file lost, one `doctor --repair`
    set aside, a log removed) are written back from it, and a memory file left behind its version there is brought
    up to it; a merge does the same, this is for a sync without one."""
    committed = repo.listing(head)
    local = result.scan
    lost = local is not None and any(p not in local.tree and p not in local.held and kind_of(p) is not None
                                     and p != TOMBSTONE_PATH for p in committed)
    if not lost and not any(why == BEHIND for why, _ in result.kept.values()):
        return
    target = Merged()
    target.tree, target.tombstones = committed, tombstones(store.layout.state_dir)
    with writing(store.layout, lock_timeout=store.lock_timeout, bulk=True) as session:
        applied = apply(session, store, target, scan(store.root, local), repo.blobs)
    result.received += len(applied.written)


def _seeded(store, previous, written: dict, mtimes: dict):
    """The stat cache for the scan after an apply: the memory files it wrote are known without reading them again
    (a first pull writes thousands) when they are still the files written (their mtime unchanged: another writer
    since would have replaced them). Entries cached before that are close to their scan's time drop out, to be
    read again: the cache's time moves on to now."""
    out = Scan(now_ns())
    out.files = {p: e for p, e in previous.files.items() if e[1] < previous.taken - RACY_NS}
    for path, oid in written.items():
        local = local_file(store.root, path)
        try:
            st = os.stat(local)
        except OSError:
            continue
        if mtimes.get(local) == st.st_mtime_ns:
            out.files[path] = [st.st_size, st.st_mtime_ns, oid, 0]
    return out


def sync_state(root) -> dict:
    """Where sync stands, without the network: set up or not, the remote, the last attempt and its error,
    commits not pushed, files changed here since the last commit, files held back."""
    root = os.fspath(root)
    status = sync_status.read_status(root)
    repo = Repository(sync_status.repo_path(root), carried=carried, max_blob=MAX_FILE)
    if not repo.exists() or not repo.remote_url():
        return {"configured": False}
    head, pushed = repo.resolve(HEAD), repo.resolve(REMOTE_REF)
    unpushed = repo.count(f"{pushed}..{head}") if head and pushed else (1 if head else 0)
    local = scan(root)
    committed = repo.listing(head)
    now, kept = compose(root, committed, local, repo.blobs, _behind(status))
    changed = sum(1 for p in set(now) | set(committed) if now.get(p) != committed.get(p))
    return {"configured": True, "remote": repo.remote_url(), "synced": status.get("synced"),
            "attempted": status.get("attempted"), "error": status.get("error"), "unpushed_commits": unpushed,
            "changed_files": changed,
            "held": {**local.held, **{p: why for p, (why, _) in kept.items() if why == UNREADABLE}}}


def health(root) -> tuple:
    """What `rlm-mem doctor` says about sync: (problems as (code, message, path), notes). Sync behind (its last
    attempt failed) is a problem, as is a file held back from it; changes waiting for the next sync are a note."""
    try:
        state = sync_state(root)
    except SyncError as exc:  # git missing: say so, the memory itself is fine
        return [("sync_behind", f"sync is set up but cannot be checked: {exc}", None)], []
    if not state.get("configured"):
        return [], []
    problems, notes = [], []
    if state.get("error"):
        problems.append(("sync_behind", f"sync is behind: the last sync ({state.get('attempted')}) failed: "
                         f"{state['error']} (last synced {state.get('synced') or 'never'}; `rlm-mem sync` tries "
                         "again)", None))
    for path, why in sorted(state.get("held", {}).items()):
        problems.append(("sync_held", f"is held back from sync: {why}{_advice(path, why)}", path))
    waiting = state["changed_files"] + state["unpushed_commits"]
    if waiting:
        notes.append(f"sync: {state['changed_files']} file(s) changed here and {state['unpushed_commits']} "
                     f"commit(s) wait for the next sync with {state['remote']}")
    return problems, notes


def _advice(path: str, why: str) -> str:
    """What a person can do about a file held back from sync."""
    if why == UNREADABLE:
        return ""  # (it says: update rlm-mem here)
    if kind_of(path) in (CHUNK, ARCHIVED):
        return f" (rewrite it with `rlm-mem update {chunk_id_of(path)}`, or delete it)"
    if kind_of(path) == EPISODE:
        return " (remove the entry that holds it, or move the file out of the memory folder)"
    return (" (move it out of the memory folder: sync writes back the version it last carried, and the log goes on "
            "from there)")


def stop_sync(root) -> bool:
    """Stop syncing this store: its sync repository and records go; the memory stays as it is."""
    root = os.fspath(root)
    path = sync_status.repo_path(root)
    existed = os.path.isdir(path)
    lock = owner_lock(os.path.join(root, "state", sync_status.LOCK_FILE), 30)
    if not try_acquire(lock):
        raise SyncBusy("a sync of this memory is running; try again when it is done")
    try:
        shutil.rmtree(path, ignore_errors=True)
        for name in (sync_status.STATUS_FILE, sync_status.FILES_CACHE):
            remove_if_present(os.path.join(root, "state", name))
    finally:
        lock.release()
    return existed


__all__ = ["sync", "sync_state", "health", "stop_sync", "SyncError", "SyncResult", "GitFailed"]
