"""What every page is made of: the view a request is served in, a memory's badges and its line in a list, lists
grouped by day, the link to the next page."""
from collections import namedtuple

from brain.recall.depth import summary_line
from brain.store import sensitivity
from brain.web.html import el, href, join

# root: the memory root; base: "/<token>", the prefix of every address; read_only: tending is off;
# project: the ProjectInfo `serve` started in; store: a ChunkStore whose actor is "web" (audit lines say so).
View = namedtuple("View", "root base read_only project store")


class PageError(Exception):
    """A plain error page: the status and what to tell the person."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def memory_href(view: View, chunk_id: str, **params) -> str:
    return href(view.base, f"memory/{chunk_id}", **params)


def session_href(view: View, conversation_id: str) -> str:
    return href(view.base, "session", id=conversation_id)


def hidden(row) -> bool:
    """Memories marked high or hyper are listed without their text (the CLI hides them unless --sensitive)."""
    return sensitivity.above(row.get("sensitivity"))


def badges(row) -> list:
    """Type, kind, scope, status, pin and sensitivity, each shown only when it says something."""
    out = [el("span", {"class": "badge type"}, row["type"])]
    if row.get("kind") not in (None, "memory", row["type"]):
        out.append(el("span", {"class": "badge kind"}, row["kind"]))
    if row.get("scope") not in (None, "project"):
        out.append(el("span", {"class": "badge scope"}, row["scope"]))
    if row.get("status") not in (None, "active"):
        out.append(el("span", {"class": f"badge status {row['status']}"}, row["status"]))
    if row.get("pinned"):
        out.append(el("span", {"class": "badge pinned"}, "pinned"))
    if hidden(row):
        out.append(el("span", {"class": "badge sensitive"}, row["sensitivity"]))
    return out


def summary(row, limit: int = 160) -> str:
    if hidden(row):
        return f"(marked {row['sensitivity']} sensitivity: open it to show the text)"
    return summary_line({"content": row.get("content") or "", "metadata": {}}, limit)


def memory_item(view: View, row, *, show_session: bool = True, lead=None):
    """One memory as a line of a list: (lead,) time, id, badges, project, summary, its session."""
    return el("li", {"class": "memory", "data-id": row["id"]}, lead,
              el("span", {"class": "time"}, (row.get("created") or "")[11:16]),
              el("a", {"href": memory_href(view, row["id"]), "class": "id"}, row["id"][-8:]),
              badges(row),
              el("span", {"class": "project"}, row["project"]) if row.get("project") else None,
              el("span", {"class": "summary"}, summary(row)),
              el("a", {"href": session_href(view, row["conversation_id"]), "class": "session"}, "session")
              if show_session and row.get("conversation_id") else None)


def by_day(view: View, rows) -> list:
    """Rows under a heading for each day (rows come in order, so each day is one run)."""
    out, day, items = [], None, []
    for row in rows:
        if row["created"][:10] != day:
            if items:
                out.append(_day(day, items))
            day, items = row["created"][:10], []
        items.append(memory_item(view, row))
    if items:
        out.append(_day(day, items))
    return out


def _day(day: str, items: list):
    return el("section", {"class": "day"}, el("h3", {}, day), el("ul", {"class": "memories"}, items))


def next_link(url: str | None, label: str = "Older →"):
    return el("p", {"class": "pager"}, el("a", {"href": url, "rel": "next"}, label)) if url else None


def facts(pairs) -> list:
    """A definition list of (label, value) pairs, leaving out empty values."""
    return join(el("dl", {"class": "facts"},
                   [join(el("dt", {}, label), el("dd", {}, value)) for label, value in pairs
                    if value not in (None, "", [], False)]))
