"""A memory's links as a small graph: the memory in the middle, its neighbours on a circle, one arrow per link.

Drawn on the server as inline SVG (no script, no layout library): a first-degree neighbourhood is small enough
for a circle to be readable. Links stored in both directions (supersedes / superseded_by, derived_from /
consolidated_into) are drawn once, the way the first of each pair reads.
"""
import math

from brain.web.html import Markup, el
from brain.web.parts import summary

INVERSE = {"superseded_by": "supersedes", "consolidated_into": "derived_from"}
MAX_NEIGHBOURS = 16
WIDTH, HEIGHT, RADIUS = 720, 440, 160


def edges(chunk_id: str, outgoing, incoming) -> list:
    """(source, type, target) once each: `outgoing` (type, target) pairs from the chunk file, `incoming` (source,
    type) pairs from the index; inverse types turned around."""
    found = []
    pairs = [(chunk_id, t, other) for t, other in outgoing] + [(other, t, chunk_id) for other, t in incoming]
    for src, kind, dst in pairs:
        edge = (dst, INVERSE[kind], src) if kind in INVERSE else (src, kind, dst)
        if edge not in found and edge[0] != edge[2]:
            found.append(edge)
    return found


def neighbours(chunk_id: str, links: list) -> list:
    """The other ends of `links`, in the order first met."""
    out = []
    for src, _, dst in links:
        other = dst if src == chunk_id else src
        if other not in out:
            out.append(other)
    return out


def draw(chunk_id: str, links: list, rows: dict, link_to) -> Markup:
    """The SVG. `rows`: id -> {"content", "status", ...} for the memories shown (a missing one is drawn as
    "not found"); `link_to(id)`: the address of a memory's page."""
    others = neighbours(chunk_id, links)[:MAX_NEIGHBOURS]
    centre = (WIDTH / 2, HEIGHT / 2)
    place = {chunk_id: centre}
    for i, other in enumerate(others):
        angle = -math.pi / 2 + 2 * math.pi * i / max(len(others), 1)
        place[other] = (centre[0] + RADIUS * 1.6 * math.cos(angle), centre[1] + RADIUS * math.sin(angle))
    lines = []
    for src, kind, dst in links:
        if src not in place or dst not in place:
            continue
        (x1, y1), (x2, y2) = place[src], place[dst]
        length = math.hypot(x2 - x1, y2 - y1) or 1
        shorten = 30 / length  # stop the arrow at the node's edge
        x2, y2 = x2 - (x2 - x1) * shorten, y2 - (y2 - y1) * shorten
        lines.append(el("g", {"class": f"edge {kind}"},
                        el("line", {"x1": f"{x1:.0f}", "y1": f"{y1:.0f}", "x2": f"{x2:.0f}", "y2": f"{y2:.0f}",
                                    "marker-end": "url(#arrow)"}),
                        el("text", {"x": f"{(x1 + x2) / 2:.0f}", "y": f"{(y1 + y2) / 2 - 4:.0f}"}, kind)))
    nodes = [_node(cid, place[cid], rows.get(cid), link_to, cid == chunk_id) for cid in [chunk_id] + others]
    marker = el("defs", {}, el("marker", {"id": "arrow", "viewBox": "0 0 10 10", "refX": "9", "refY": "5",
                                          "markerWidth": "7", "markerHeight": "7", "orient": "auto-start-reverse"},
                               el("path", {"d": "M 0 0 L 10 5 L 0 10 z"})))
    return el("svg", {"class": "graph", "viewBox": f"0 0 {WIDTH} {HEIGHT}", "role": "img",
                      "aria-label": f"links of {chunk_id}", "xmlns": "http://www.w3.org/2000/svg"},
              marker, lines, nodes)


def _node(cid: str, xy, row, link_to, is_centre: bool) -> Markup:
    x, y = xy
    label_y = y - 34 if y < HEIGHT / 2 - 1 else y + 42  # labels away from the centre, clear of the arrows
    status = row.get("status", "active") if row else "missing"
    label = summary(row, 26) if row else "not found"
    shape = el("g", {"class": f"node {status}{' centre' if is_centre else ''}"},
               el("title", {}, cid),
               el("circle", {"cx": f"{x:.0f}", "cy": f"{y:.0f}", "r": "26"}),
               el("text", {"x": f"{x:.0f}", "y": f"{y + 4:.0f}", "class": "tail"}, cid[-8:]),
               el("text", {"x": f"{x:.0f}", "y": f"{label_y:.0f}", "class": "label"}, label))
    return shape if is_centre else el("a", {"href": link_to(cid)}, shape)
