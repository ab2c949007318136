"""Tending from the page: each form's action carried out through the same library calls as the CLI (pin/unpin,
forget/restore, update, scope, supersede, contest/retract/reinstate), so the store's checks, locks and audit lines
are the ones the CLI gets.
The store's actor is "web": the audit log says the change came from the page, the person's own (every sensitivity
level, as the CLI's commands)."""
from brain.session.actions import forget, replace
from brain.store.lifecycle import contest, reinstate, retract, set_pinned, set_scope
from brain.util.errors import ChunkNotFound, ChunkValidationError
from brain.util.text import one_line

ACTIONS = ("pin", "unpin", "forget", "restore", "edit", "scope", "supersede", "contest", "retract", "reinstate")
STATUS_ACTIONS = {"contest": contest, "retract": retract, "reinstate": reinstate}
MAX_REASON = 500


def apply(store, chunk_id: str, form: dict) -> str:
    """Carry out `form["action"]` on `chunk_id`; returns the action done. ChunkValidationError (a plain 400) for a
    form that asks for nothing or something unknown, the library's own errors otherwise."""
    action = form.get("action", "")
    if action not in ACTIONS:
        raise ChunkValidationError(f"unknown action; the page offers {', '.join(ACTIONS)}")
    reason = one_line(form.get("reason", ""))[:MAX_REASON] or None
    if action in ("pin", "unpin"):
        set_pinned(store, chunk_id, action == "pin")
    elif action in STATUS_ACTIONS:
        STATUS_ACTIONS[action](store, chunk_id, reason=reason)
    elif action == "forget":
        forget(store, chunk_id, reason=reason or "forgotten on the page", max_sensitivity=None)
    elif action == "restore":
        store.restore_chunk(chunk_id, reason=reason)
    elif action == "scope":
        set_scope(store, chunk_id, form.get("scope", ""), reason)
    elif action == "supersede":
        replace(store, form.get("old", "").strip(), chunk_id, reason, max_sensitivity=None)
    else:
        _edit(store, chunk_id, form, reason)
    return action


def _edit(store, chunk_id: str, form: dict, reason) -> None:
    current = store.get_chunk(chunk_id, track=False)
    if current is None:
        raise ChunkNotFound(f"no memory {chunk_id} to edit (archived memories are restored first)")
    changes = {}
    content = form.get("content", "").replace("\r\n", "\n").strip()  # browsers send CRLF line ends
    if content and content != current.content:
        changes["content"] = content
    elif not content:
        raise ChunkValidationError("the content is empty; use Forget to remove a memory")
    if form.get("type") and form["type"] != current.type:
        changes["chunk_type"] = form["type"]
    if not changes:
        raise ChunkValidationError("nothing changed")
    store.revise_chunk(chunk_id, reason=reason or "edited on the page", **changes)
