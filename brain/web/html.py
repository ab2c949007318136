"""HTML made safe by construction: every str is escaped; only what this module builds is markup.

Memory text comes from transcripts and imports, so it is untrusted. Pages are built from `el(...)` calls, whose
text children and attribute values are escaped unless they are `Markup` (which only this module makes), so a
stored `<script>` or `onerror=` reaches the browser as characters, never as a tag or an attribute. The page's
Content-Security-Policy (brain/web/server) allows no script at all, a second wall behind this one.
"""
from html import escape
from urllib.parse import urlencode

VOID = frozenset(("br", "hr", "input", "meta", "link"))


class Markup(str):
    """HTML already built by this module: inserted as it is."""


def text(value) -> Markup:
    """Any value as escaped text (None as nothing)."""
    return Markup("" if value is None else escape(str(value), quote=True))


def _child(child) -> str:
    if child is None or child is False:
        return ""
    if isinstance(child, Markup):
        return child
    if isinstance(child, (list, tuple)):
        return "".join(_child(c) for c in child)
    return text(child)


def el(tag: str, attrs: dict | None = None, *children) -> Markup:
    """`<tag attrs>children</tag>`: attribute values and text children escaped; None or False attributes left
    out, True ones written bare."""
    parts = [tag]
    for name, value in (attrs or {}).items():
        if value is None or value is False:
            continue
        name = name.rstrip("_")  # class_ -> class
        parts.append(name if value is True else f'{name}="{text(value)}"')
    opening = f"<{' '.join(parts)}>"
    if tag in VOID:
        return Markup(opening)
    return Markup(f"{opening}{_child(children)}</{tag}>")


def join(*children) -> Markup:
    return Markup(_child(children))


def href(base: str, path: str = "", **params) -> str:
    """A link under the page's base (`/<token>`), with the non-empty query parameters encoded."""
    query = urlencode({k: v for k, v in params.items() if v not in (None, "", False)})
    return f"{base}/{path}" + (f"?{query}" if query else "")


def page(title: str, base: str | None, body, *, notice: str | None = None) -> bytes:
    """A whole document: the navigation, an optional notice, the body. Without a base (a request that did not
    carry the token) there is no navigation and no stylesheet: the page links nowhere."""
    nav = base and el("nav", {},
             el("a", {"href": href(base), "class": "brand"}, "rlm-mem"),
             el("a", {"href": href(base)}, "Memories"),
             el("a", {"href": href(base, "sessions")}, "Sessions"),
             el("a", {"href": href(base, "chapters")}, "Chapters"),
             el("a", {"href": href(base, "now")}, "Next session"),
             el("form", {"method": "get", "action": href(base), "class": "search", "role": "search"},
                el("input", {"type": "search", "name": "q", "placeholder": "Search as recall would…",
                             "aria-label": "Search memory"}),
                el("button", {"type": "submit"}, "Search")))
    doc = join(Markup("<!DOCTYPE html>"),
               el("html", {"lang": "en"},
                  el("head", {},
                     el("meta", {"charset": "utf-8"}),
                     el("meta", {"name": "viewport", "content": "width=device-width, initial-scale=1"}),
                     el("title", {}, f"{title} · rlm-mem"),
                     base and el("link", {"rel": "stylesheet", "href": href(base, "static/page.css")})),
                  el("body", {},
                     base and el("header", {}, nav),
                     el("main", {},
                        el("p", {"class": "notice", "role": "status"}, notice) if notice else None,
                        body))))
    return doc.encode("utf-8")
