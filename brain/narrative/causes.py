"""`why`: the causal chain around a memory, walked both ways over seed 002's causal links (caused_by, led_to,
blocked_by), seed 003's solves and causes, and supersedes (a decision and what it replaced).

Every link is read as cause -> effect whichever memory holds it: "B caused_by A", "A led_to B", "B solves A"
(the problem led to its fix), "B blocked_by A", "A causes B", "B supersedes A" all say A came first and B
followed from it. From the memory asked about, `causes` walks back to what led to it and `effects` forward to
what followed, each as a tree a few links deep. Reads index/search.db (the links table is indexed both ways).
"""
from brain.index.search_index import connect
from brain.recall.depth import summary_line
from brain.store import sensitivity
from brain.store.chunk import WHY_LINKS
from brain.store.layout import StoreLayout
from brain.cpython.fast import sqlite3

# link type -> True when its holder (src) is the effect and its target (dst) the cause
EFFECT_HOLDS = {"caused_by": True, "solves": True, "blocked_by": True, "supersedes": True,
                "led_to": False, "causes": False, "superseded_by": False}
MAX_DEPTH = 6
MAX_NODES = 60


def _edges(conn, chunk_id: str) -> list:
    """(neighbour, link type, neighbour is the cause?, holder) for the causal links touching `chunk_id`, one per
    neighbour: capture writes a link and its inverse (fix solves error, error led_to fix), and the link the effect
    holds says more (solves, caused_by, blocked_by) than led_to."""
    marks = ",".join("?" * len(WHY_LINKS))
    found = []
    for src, kind, dst in conn.execute(f"SELECT src, type, dst FROM links WHERE src=? AND type IN ({marks})",
                                       (chunk_id, *WHY_LINKS)):
        found.append((dst, kind, EFFECT_HOLDS[kind], src))
    for src, kind, dst in conn.execute(f"SELECT src, type, dst FROM links WHERE dst=? AND type IN ({marks})",
                                       (chunk_id, *WHY_LINKS)):
        found.append((src, kind, not EFFECT_HOLDS[kind], src))
    best = {}
    for edge in sorted(found, key=lambda e: (e[1] in ("led_to", "superseded_by"), e[1])):
        best.setdefault(edge[0], edge)
    return sorted(best.values())


def _node(conn, layout, chunk_id: str, cache: dict, limit: str | None) -> dict:
    """What the answer says of one memory; the summary of one more private than `limit` is left out."""
    if chunk_id not in cache:
        row = conn.execute("SELECT id, created, type, kind, status, content, sensitivity FROM chunks WHERE id=?",
                           (chunk_id,)).fetchone()
        if row is None:  # archived (not indexed): its file still says what it was
            data = layout.read_file(layout.archive_path(chunk_id))
            md = data["metadata"] if data else {}
            row = (chunk_id, md["created"], data["type"], md.get("kind", "memory"), "archived", data["content"],
                   md.get("sensitivity", "low")) if data else (chunk_id, "", "", "", "missing", "", "low")
        cid, created, chunk_type, kind, status, content, level = row
        hidden = limit is not None and sensitivity.above(level, limit)
        cache[chunk_id] = {"id": cid, "created": created, "type": chunk_type, "kind": kind, "status": status,
                           "summary": f"(marked {level} sensitivity)" if hidden
                           else summary_line({"content": content or "", "metadata": {}}, 110)}
    return cache[chunk_id]


def _walk(conn, layout, start: str, upstream: bool, cache: dict, seen: set, depth: int, limit) -> list:
    """The tree of causes (upstream) or effects from `start`, each node once in the whole answer."""
    if depth >= MAX_DEPTH:
        return []
    out = []
    for other, kind, is_cause, holder in _edges(conn, start):
        if is_cause != upstream or other in seen or len(seen) >= MAX_NODES:
            continue
        seen.add(other)
        node = dict(_node(conn, layout, other, cache, limit), link=kind, held_by=holder)
        node["then"] = _walk(conn, layout, other, upstream, cache, seen, depth + 1, limit)
        out.append(node)
    return out


def why(root, chunk_id: str, *, max_sensitivity: str | None = sensitivity.DEFAULT_LIMIT) -> dict:
    """{"memory": node, "causes": [tree], "effects": [tree]} (each node: id, created, type, kind, status,
    summary, and for the trees the link that joins it, which memory holds that link, and what lies beyond it).
    A memory more private than `max_sensitivity` (None: no limit) is named without its words."""
    conn = connect(root, readonly=True)
    layout = StoreLayout(root)
    if conn is None:
        return {"memory": {"id": chunk_id}, "causes": [], "effects": []}
    try:
        cache, seen = {}, {chunk_id}
        memory = _node(conn, layout, chunk_id, cache, max_sensitivity)
        causes = _walk(conn, layout, chunk_id, True, cache, seen, 0, max_sensitivity)
        effects = _walk(conn, layout, chunk_id, False, cache, seen, 0, max_sensitivity)
    except sqlite3.DatabaseError:
        return {"memory": {"id": chunk_id}, "causes": [], "effects": []}
    finally:
        conn.close()
    return {"memory": memory, "causes": causes, "effects": effects}


def chain_lines(answer: dict) -> list:
    """`why`'s answer as indented lines: the memory, then "because of" (causes) and "led to" (effects)."""
    lines = [_line(answer["memory"])]
    for title, key, arrow in (("because of:", "causes", "←"), ("led to:", "effects", "→")):
        if answer[key]:
            lines.append(title)
            lines += _tree_lines(answer[key], arrow, 1)
    if len(lines) == 1:
        lines.append("no causal links: nothing recorded led to it or followed from it")
    return lines


def _line(node: dict) -> str:
    status = f" [{node['status']}]" if node.get("status") not in (None, "active") else ""
    kind = node.get("kind") if node.get("kind") not in (None, "memory") else node.get("type")
    return f"{node['id']} · {(node.get('created') or '')[:10]} · {kind}{status} · {node.get('summary', '')}"


def _tree_lines(nodes: list, arrow: str, depth: int) -> list:
    out = []
    for node in nodes:
        out.append(f"{'  ' * depth}{arrow} ({node['link']}) {_line(node)}")
        out += _tree_lines(node["then"], arrow, depth + 1)
    return out
