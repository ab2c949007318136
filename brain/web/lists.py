"""The list pages: memories by day (filtered, paged), a search ranked by recall, sessions, one session."""
from brain.recall.recall import recall
from brain.store import sensitivity
from brain.store.chunk import CHUNK_TYPES
from brain.store.lifecycle import SCOPES
from brain.web import queries
from brain.web.html import el, href
from brain.web.parts import PageError, View, by_day, memory_item, next_link, session_href, summary

SEARCH_BUDGETS = (1600, 6000, 20000)  # the prompt hook's ceiling, then two wider looks


def home(view: View, params: dict) -> tuple:
    """(title, body): a search when the address carries q=, else the memory list."""
    if params.get("q", "").strip():
        return search(view, params)
    try:
        filters = queries.Filters(params)
        before = queries.parse_before(params.get("before", ""))
    except ValueError as exc:
        raise PageError(400, str(exc)) from None
    rows, next_key = queries.memory_page(view.root, filters, before)
    totals = queries.totals(view.root)
    heading = el("h1", {}, "Memories", el("small", {}, f" {totals['chunks']:,} indexed · {totals['pinned']:,} pinned"))
    body = [heading, _filter_form(view, filters, totals["projects"])]
    if rows:
        body += by_day(view, rows)
    else:
        body.append(el("p", {"class": "empty"}, "No memory matches." if totals["chunks"] else
                       "No memories yet: they appear here as Claude Code sessions are captured or `rlm-mem remember` "
                       "stores them."))
    body.append(next_link(href(view.base, **filters.as_params(), before=next_key) if next_key else None))
    return "Memories", body


def _select(name: str, label: str, options, current: str):
    return el("label", {}, label, " ",
              el("select", {"name": name},
                 [el("option", {"value": value, "selected": value == current}, text) for value, text in options]))


def _filter_form(view: View, filters, projects):
    kinds = [("", "memories (no turns)"), (queries.ALL_KINDS, "everything")] + [
        (k, k) for k in ("memory", "decision", "correction", "preference", "request", "session", "turn",
                         "consolidated")]
    if filters.kind and filters.kind not in dict(kinds):
        kinds.append((filters.kind, filters.kind))
    statuses = [("", "any")] + [(s, s) for s in queries.STATUSES + (queries.ARCHIVED,)]
    return el("form", {"method": "get", "action": href(view.base), "class": "filters"},
              _select("kind", "Kind", kinds, filters.kind),
              _select("type", "Type", [("", "any")] + [(t, t) for t in CHUNK_TYPES], filters.type),
              _select("scope", "Scope", [("", "any")] + [(s, s) for s in SCOPES], filters.scope),
              _select("status", "Status", statuses, filters.status),
              _select("project", "Project", [("", "any")] + [(p, p) for p in projects], filters.project),
              el("label", {}, el("input", {"type": "checkbox", "name": "pinned", "value": "1",
                                           "checked": filters.pinned}), " pinned only"),
              el("button", {"type": "submit"}, "Show"))


def search(view: View, params: dict) -> tuple:
    """What recall would bring back for the words in q=, best first, as the prompt hook ranks them."""
    query = params["q"].strip()
    try:
        budget = int(params.get("budget") or SEARCH_BUDGETS[0])
    except ValueError:
        raise PageError(400, "budget must be a number of tokens") from None
    if not 1 <= budget <= 100_000:
        raise PageError(400, "budget must be between 1 and 100,000 tokens")
    limit = sensitivity.limit_from_env()
    result = recall(view.root, query, project=view.project.id, budget_tokens=budget, limit=200,
                    max_sensitivity=limit, track=False)  # looking is not a use: the page never changes ranking
    rows = queries.rows_by_id(view.root, [item.id for item in result.items])
    items = [memory_item(view, dict(rows.get(item.id) or {}, id=item.id, created=item.created, type=item.type,
                                    kind=item.kind, status=item.status, content=item.text),
                         lead=el("span", {"class": "score", "title": ", ".join(item.why)}, f"{item.score:.3g}"))
             for item in result.items]
    wider = [el("a", {"href": href(view.base, q=query, budget=b)}, f"{b:,} tokens") for b in SEARCH_BUDGETS
             if b != budget]
    body = [el("h1", {}, "Search ", el("q", {}, query)),
            el("p", {"class": "explain"},
               f"Ranked by rlm-mem's recall, as the prompt hook would for this project ({view.project.name}), within "
               f"{budget:,} tokens, memories up to {limit} sensitivity: {len(result.items)} of "
               f"{result.candidates:,} candidates. Wider: ", wider[0], " · ", wider[1]),
            el("ol", {"class": "hits"}, items) if items else
            el("p", {"class": "empty"}, "No memory is relevant enough to this question.")]
    return f"Search: {query}", body


def sessions(view: View, params: dict) -> tuple:
    offset = _offset(params)
    found, more = queries.sessions_page(view.root, offset)
    rows = [el("tr", {},
               el("td", {}, el("a", {"href": session_href(view, s["id"])}, s["id"])),
               el("td", {}, s["first"][:16].replace("T", " ")),
               el("td", {}, s["project"] or ""),
               el("td", {}, ", ".join(f"{n} {kind}" for kind, n in sorted(s["kinds"].items()))),
               el("td", {}, summary(s, 140) if s["content"] else ""))
            for s in found]
    body = [el("h1", {}, "Sessions"),
            el("p", {"class": "explain"}, "What each session captured, newest first."),
            el("table", {"class": "sessions"},
               el("thead", {}, el("tr", {}, [el("th", {}, h) for h in ("session", "started", "project", "captured",
                                                                        "record")])),
               el("tbody", {}, rows)) if rows else el("p", {"class": "empty"}, "No sessions captured yet."),
            next_link(href(view.base, "sessions", offset=offset + queries.PAGE_SIZE) if more else None)]
    return "Sessions", body


def session(view: View, params: dict) -> tuple:
    conversation = params.get("id", "").strip()
    if not conversation or len(conversation) > 300:
        raise PageError(400, "give the session as id=... (see the Sessions page)")
    offset = _offset(params)
    captured, _ = queries.session_rows(view.root, conversation, turns=False, size=500)
    turns, more = queries.session_rows(view.root, conversation, turns=True, offset=offset)
    if not captured and not turns and not offset:
        raise PageError(404, "no such session in this memory")
    body = [el("h1", {}, "Session ", el("code", {}, conversation)),
            el("h2", {}, f"Captured ({len(captured)})"),
            el("ul", {"class": "memories"}, [memory_item(view, r, show_session=False) for r in captured])
            if captured else el("p", {"class": "empty"}, "Nothing but turns."),
            el("h2", {}, "Turns"),
            el("ul", {"class": "memories turns"}, [memory_item(view, r, show_session=False) for r in turns])
            if turns else el("p", {"class": "empty"}, "No turns."),
            next_link(href(view.base, "session", id=conversation, offset=offset + queries.PAGE_SIZE)
                      if more else None, "Later turns →")]
    return f"Session {conversation}", body


def _offset(params: dict) -> int:
    try:
        offset = int(params.get("offset") or 0)
    except ValueError:
        raise PageError(400, "offset must be a whole number") from None
    if not 0 <= offset <= 10_000_000:
        raise PageError(400, "offset is out of range")
    return offset
