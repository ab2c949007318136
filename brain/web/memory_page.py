"""One memory: its text, its structure (a session record's five layers, a procedure's steps), what is known about
it, its links drawn as a graph (with each relation's strength and context), its causal chain both ways, its
provenance, its history from the audit log, and (unless read-only) the forms that tend it.

The chunk file is read, not the index: it is the source of truth, and an archived memory has no index row.
"""
import json

from brain.recall.depth import structure_lines
from brain.store.audit import read_audit
from brain.store.chunk_store import relation_note
from brain.store.chunk import CHUNK_TYPES
from brain.store.lifecycle import SCOPES
from brain.util.errors import RlmMemError
from brain.web import graph, queries
from brain.web.html import el, join
from brain.web.narrative_page import causal_chain
from brain.web.parts import PageError, View, badges, facts, hidden, memory_href, session_href, summary

DONE = {"pin": "Pinned.", "unpin": "Unpinned.", "forget": "Forgotten: moved to the archive (Restore brings it back).",
        "restore": "Restored.", "edit": "Saved.", "scope": "Scope changed.",
        "supersede": "Marked as replacing the other memory.",
        "contest": "Marked contested: still recalled, always shown as contested.",
        "retract": "Retracted: never recalled or injected until reinstated.",
        "reinstate": "Reinstated: active again."}
STATUS_NOTES = {"contested": "Contested: still recalled and shown at session start, always marked contested.",
                "retracted": "Retracted: kept for the record, never recalled or injected until reinstated."}


def find(view: View, ref: str) -> tuple:
    """(chunk dict, archived?) for a full id or its 8-hex tail; a plain 404 otherwise."""
    try:
        chunk_id = view.store.resolve_id(ref)
    except RlmMemError as exc:
        raise PageError(404, str(exc)) from None
    data = view.store.layout.read_chunk(chunk_id)
    if data is not None:
        return data, False
    data = view.store.layout.read_file(view.store.layout.archive_path(chunk_id))
    if data is None:
        raise PageError(404, f"no memory {chunk_id} (it may have been deleted for good)")
    return data, True


def memory(view: View, ref: str, params: dict) -> tuple:
    data, archived = find(view, ref)
    chunk_id, md = data["id"], data["metadata"]
    row = queries.row_of_file(data, archived=archived)
    reveal = params.get("reveal") == "1"
    if hidden(row) and not reveal:
        content = el("p", {"class": "masked"}, f"Marked {md['sensitivity']} sensitivity. ",
                     el("a", {"href": memory_href(view, chunk_id, reveal="1")}, "Show the text"))
    else:
        content = el("pre", {"class": "content"}, data["content"])
    side = [el("section", {"class": "about"}, el("h2", {}, "About"), _about(view, data, archived)),
            el("section", {"class": "provenance"}, el("h2", {}, "Provenance"),
               facts(sorted((md.get("provenance") or {}).items())) if md.get("provenance") else
               el("p", {"class": "empty"}, "No provenance recorded (stored before rlm-mem kept it)."))]
    if not view.read_only:
        side.append(_tending(view, data, archived, editable=reveal or not hidden(row)))
    status = md.get("status", "active")
    body = [el("h1", {}, el("code", {}, chunk_id)),
            el("p", {"class": "badges"}, badges(row)),
            el("p", {"class": f"status-note {status}"}, STATUS_NOTES[status]) if status in STATUS_NOTES else None,
            el("div", {"class": "columns"},
               el("div", {}, content, _structure(data), _links_section(view, data, row),
                  causal_chain(view, chunk_id), _history(view, chunk_id)),
               el("aside", {}, side))]
    return f"Memory {chunk_id[-8:]}", body


def _about(view: View, data: dict, archived: bool):
    md = data["metadata"]
    conversation = md.get("conversation_id")
    part = md.get("part") or {}
    return facts([
        ("type", data["type"]), ("kind", md.get("kind", "memory")), ("scope", md.get("scope") or "project"),
        ("project", " · ".join(x for x in (md.get("project"), md.get("project_name")) if x)),
        ("status", "archived" if archived else md.get("status", "active")),
        ("pinned", "yes" if md.get("pinned") else "no"),
        ("created", md.get("created")), ("updated", md.get("updated")), ("superseded at", md.get("superseded_at")),
        ("change note", (md.get("extra") or {}).get("change_note") if isinstance(md.get("extra"), dict) else None),
        ("session", el("a", {"href": session_href(view, conversation)}, conversation) if conversation else None),
        ("role", md.get("role")), ("source", md.get("source")), ("confidence", md.get("confidence")),
        ("importance", md.get("importance")), ("sensitivity", md.get("sensitivity", "low")),
        ("deletion policy", md.get("deletion_policy", "auto_prune")),
        ("category", md.get("category")), ("used", f"{md.get('access_count', 0)} times"
                                                    + (f", last {md['last_accessed']}" if md.get("last_accessed") else "")),
        ("tags", ", ".join(data.get("tags") or ())), ("files", ", ".join(md.get("files") or ())),
        ("part", f"{part['index']} of {part['count']}" if part else None), ("tokens", data.get("tokens")),
        ("title", md.get("title"))])


def _links_section(view: View, data: dict, row: dict):
    chunk_id = data["id"]
    outgoing = [(t, other) for t, targets in (data.get("links") or {}).items() for other in targets or ()]
    links = graph.edges(chunk_id, outgoing, queries.links_to(view.root, chunk_id))
    if not links:
        return el("section", {"class": "links"}, el("h2", {}, "Links"), el("p", {"class": "empty"}, "No links."))
    others = graph.neighbours(chunk_id, links)
    rows = dict(queries.rows_by_id(view.root, others), **{chunk_id: row})
    for other in others:
        if other not in rows:  # archived (or gone): only its file can say
            try:
                file = view.store.layout.read_file(view.store.layout.archive_path(other))
            except RlmMemError:
                file = None
            if file is not None:
                rows[other] = queries.row_of_file(file, archived=True)
    table = el("table", {"class": "links"},
               el("thead", {}, el("tr", {}, [el("th", {}, h) for h in ("from", "link", "to", "other memory")])),
               el("tbody", {}, [_link_row(view, data, link, rows) for link in links]))
    return el("section", {"class": "links"}, el("h2", {}, f"Links ({len(links)})"),
              graph.draw(chunk_id, links, rows, lambda cid: memory_href(view, cid)), table)


def _link_row(view: View, data: dict, link: tuple, rows: dict):
    chunk_id = data["id"]
    src, kind, dst = link
    other = dst if src == chunk_id else src
    other_row = rows.get(other)
    note = relation_note(data, kind, dst) if src == chunk_id else {}
    said = ", ".join(x for x in (f"strength {note['strength']:g}" if "strength" in note else "",
                                 note.get("context") or "") if x)

    def end(cid):
        return el("code", {}, "this") if cid == chunk_id else el("a", {"href": memory_href(view, cid)}, cid)

    return el("tr", {"class": f"link {kind}"}, el("td", {}, end(src)),
              el("td", {}, kind, el("small", {"class": "note"}, f" ({said})") if said else None), el("td", {}, end(dst)),
              el("td", {}, join(badges(other_row), " ", summary(other_row, 100)) if other_row else "not found"))


def _structure(data: dict):
    """A session record's five layers (seed 002) and a procedure's steps (seed 003), when the memory has them."""
    lines = structure_lines(data["metadata"])
    if not lines:
        return None
    return el("section", {"class": "structure"}, el("h2", {}, "Structure"),
              el("pre", {"class": "content"}, "\n".join(lines)))


def _history(view: View, chunk_id: str):
    entries = read_audit(view.root, chunk_id)
    rows = [el("tr", {},
               el("td", {}, e.get("time")), el("td", {}, e.get("action")), el("td", {}, e.get("actor")),
               el("td", {}, e.get("reason") or ""),
               el("td", {}, json.dumps(e["details"], ensure_ascii=False) if e.get("details") else ""))
            for e in reversed(entries)]
    return el("section", {"class": "history"}, el("h2", {}, "History"),
              el("table", {}, el("thead", {}, el("tr", {}, [el("th", {}, h) for h in
                                                            ("time", "action", "by", "why", "details")])),
                 el("tbody", {}, rows)) if rows else
              el("p", {"class": "empty"}, "No audit entries for this memory."))


def _form(view: View, chunk_id: str, action: str, *fields, label: str, css: str = ""):
    return el("form", {"method": "post", "action": memory_href(view, chunk_id), "class": f"tend {css}".strip()},
              el("input", {"type": "hidden", "name": "action", "value": action}), fields,
              el("button", {"type": "submit", "name": "do", "value": action}, label))


def _tending(view: View, data: dict, archived: bool, *, editable: bool):
    chunk_id, md = data["id"], data["metadata"]
    if archived:
        forms = [_form(view, chunk_id, "restore", label="Restore")]
    else:
        reason = el("input", {"type": "text", "name": "reason", "placeholder": "why (kept in the audit log)"})
        forms = [
            _form(view, chunk_id, "unpin" if md.get("pinned") else "pin",
                  label="Unpin" if md.get("pinned") else "Pin"),
            _form(view, chunk_id, "forget", reason, label="Forget"),
            _form(view, chunk_id, "reinstate", reason, label="Reinstate") if md.get("status") in STATUS_NOTES else
            _form(view, chunk_id, "contest", reason, label="Contest"),
            _form(view, chunk_id, "retract", reason, label="Retract") if md.get("status") != "retracted" else None,
            _form(view, chunk_id, "scope",
                  el("select", {"name": "scope", "aria-label": "scope"},
                     [el("option", {"value": s, "selected": s == (md.get("scope") or "project")}, s) for s in SCOPES]),
                  label="Change scope"),
            _form(view, chunk_id, "supersede",
                  el("input", {"type": "text", "name": "old", "required": True, "aria-label": "replaced memory",
                               "placeholder": "id (or 8-hex tail) of the memory this one replaces"}),
                  reason, label="Replaces it")]
        if editable:  # the edit box holds the text: not for a sensitive memory the person has not chosen to show
            forms.append(_form(
                view, chunk_id, "edit",
                el("textarea", {"name": "content", "rows": "8", "aria-label": "content"}, data["content"]),
                el("select", {"name": "type", "aria-label": "type"},
                   [el("option", {"value": t, "selected": t == data["type"]}, t) for t in CHUNK_TYPES]),
                reason, label="Save", css="edit"))
    return el("section", {"class": "tending"}, el("h2", {}, "Tend"), forms)
