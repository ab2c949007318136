"""What follows a capture or a gardening run, wherever it was started (the background worker, a person's
`rlm-mem ingest` or `rlm-mem garden --apply`): fold pending access counts, refresh the session-start briefs they
changed (so the next session start finds them ready; gardening refreshes CORE.md itself) and, after a capture,
bring chapters and wisdom up to date (brain/narrative: incremental, off every hook's path). The background worker
then runs the coalesced pass that brings derived data up to date: a search index that is damaged or missing is
rebuilt, and seed 000's JSON index files are rewritten when they are behind, at most once every
JSON_PASS_INTERVAL seconds unless they are damaged (at 100,000 memories they hold ~40 MB: a session that writes
after every turn must not rewrite them after every turn: index/fingerprint.JSON_PASS_INTERVAL)."""
import os

from brain.context.location import own_root
from brain.index import access
from brain.index.fingerprint import JSON_PASS_INTERVAL
from brain.narrative.chapters import refresh as refresh_narrative
from brain.session.brief import refresh_briefs
from brain.sync import status as sync_status
from brain.sync.engine import sync


def bring_derived_current(store) -> None:
    """The background pass. Derived data only: a failure here loses nothing (the next pass, a writer, `rlm-mem
    share refresh` or `rlm-mem reindex` does it)."""
    try:
        store.sync_derived()
    except Exception:  # noqa: BLE001 - a busy or unwritable store: the index stays as it is until then
        pass
    try:
        store.refresh_json_indexes(min_age=JSON_PASS_INTERVAL)
        refresh_briefs(store.root, stale_only=True)  # a write made outside a capture: the next start finds it ready
    except Exception:  # noqa: BLE001 - see above
        pass


def after_capture(store, reports, *, background: bool = False) -> None:
    """Housekeeping after capture; capture already succeeded, so a failure here is not one. The detached worker
    (`background`) then brings derived data up to date, and syncs when sync is set up and due (a session ended,
    or the last sync is a few minutes old); a person's `rlm-mem ingest` leaves both to it."""
    try:
        if access.pending_lines(store.root) > access.FOLD_THRESHOLD:
            store.fold_access()
        if any(r.created or getattr(r, "auto_memory", 0) for r in reports):
            refresh_briefs(store.root)
    except Exception:  # noqa: BLE001 - the next session start recomputes what this could not
        pass
    try:
        if any(r.created or r.session_record for r in reports):
            refresh_narrative(store.root)  # chapters and wisdom: a session record or a learning may have come
    except Exception:  # noqa: BLE001 - derived: `rlm-mem chapters` or the next capture brings them current
        pass
    if background:
        bring_derived_current(store)
        sync_if_due(store.root, final=any(r.session_record for r in reports))


def sync_if_due(root, *, final: bool = False) -> None:
    """The background sync: this store's and the person's own (a project keeping its memory in its repository
    sends the person's user-scope memories there). A failure is recorded for the LiveHud and `rlm-mem doctor`
    (state/sync.json) and costs nothing else; the next worker tries again."""
    for folder in dict.fromkeys((os.fspath(root), own_root()[0])):
        if not sync_status.due(folder, final=final):
            continue
        try:
            sync(folder, background=True)
            refresh_briefs(folder, stale_only=True)  # what came in is in the next session's brief at once
        except Exception:  # noqa: BLE001 - offline, another sync running, a refused push: recorded, retried later
            pass


def after_garden(store, plan: dict) -> None:
    """After a gardening run that changed something: the briefs (the JSON files follow with the worker's next
    pass: the next session start sees them behind and starts it)."""
    if plan.get("resolve") or plan.get("consolidate") or plan.get("archive"):
        refresh_briefs(store.root)
