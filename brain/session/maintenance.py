"""What follows a capture or a gardening run, wherever it was started (the background worker, a person's
`rlm-mem ingest` or `rlm-mem garden --apply`): fold pending access counts, and refresh the session-start briefs
they changed, so the next session start finds them ready (gardening refreshes CORE.md itself)."""
from brain.index import access
from brain.session.brief import refresh_briefs


def after_capture(store, reports) -> None:
    """Housekeeping after capture; capture already succeeded, so a failure here is not one."""
    try:
        if access.pending_lines(store.root) > access.FOLD_THRESHOLD:
            store.fold_access()
        if any(r.created for r in reports):
            refresh_briefs(store.root)
    except Exception:  # noqa: BLE001 - the next session start recomputes what this could not
        pass


def after_garden(store, plan: dict) -> None:
    """After a gardening run that changed something: the briefs."""
    if plan.get("resolve") or plan.get("consolidate") or plan.get("archive"):
        refresh_briefs(store.root)
