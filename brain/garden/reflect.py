"""Reflection (seed 003's REFLECTION.md): what the memory is about and how it is used.

Themes (tags that occur together), tags that span projects, the most used memories, recent insights (learnings,
consolidated masters, patterns), gardening history and how many memories are active, fading or dormant. Built from
the search index (plus pending access counts and the audit log), written as REFLECTION.md in the memory root.
Verbatim turns are left out: they are the conversation, not what was learned from it.
"""
import json
import sqlite3
from collections import Counter
from datetime import datetime, timezone
from itertools import combinations
from pathlib import Path

from brain.garden.garden import read_state
from brain.index import access, search_index
from brain.recall.depth import summary_line
from brain.store.audit import read_audit
from brain.store.salience import salience, state_of
from brain.util.files import atomic_write_json, atomic_write_text

REFLECTION_NAME = "REFLECTION.md"
THEMES = 8
CROSS_PROJECT = 10
MOST_USED = 10
INSIGHTS = 10
_TAGS_PER_MEMORY = 12  # pairs grow with the square of the tags; a memory with 50 tags is not 1,225 themes


def _summary(row: dict, limit: int) -> str:
    return summary_line({"content": row["content"], "metadata": {}}, limit)


def _rows(root) -> list:
    conn = search_index.connect(Path(root), readonly=True)
    if conn is None:
        return []
    try:
        conn.row_factory = sqlite3.Row
        rows = [dict(r) for r in conn.execute(
            "SELECT id, created, type, kind, project, confidence, importance, pinned, status, access_count, "
            "last_accessed, tags, content FROM chunks WHERE kind != 'turn'")]
    finally:
        conn.close()
    pending = access.pending_access(root)
    for row in rows:
        row["tags"] = (row["tags"] or "").split()
        count, last = pending.get(row["id"], (0, None))
        row["access_count"] = int(row["access_count"] or 0) + count
        if last and (not row["last_accessed"] or last > row["last_accessed"]):
            row["last_accessed"] = last
    return rows


def _themes(rows: list) -> list:
    pairs, examples = Counter(), {}
    for row in sorted(rows, key=lambda r: r["created"], reverse=True):
        tags = sorted({t for t in row["tags"] if t != row["kind"]})[:_TAGS_PER_MEMORY]
        for pair in combinations(tags, 2):
            pairs[pair] += 1
            found = examples.setdefault(pair, [])
            if len(found) < 3:
                found.append(_summary(row, 50))
    return [{"tags": list(p), "count": n, "examples": examples[p]}
            for p, n in sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0]))[:THEMES] if n >= 2]


def _cross_project(rows: list) -> list:
    by_tag = {}
    for row in rows:
        if row["project"]:
            for tag in set(row["tags"]):
                by_tag.setdefault(tag, Counter())[row["project"]] += 1
    spanning = [(tag, projects) for tag, projects in by_tag.items() if len(projects) >= 2]
    spanning.sort(key=lambda tp: (-len(tp[1]), -sum(tp[1].values()), tp[0]))
    return [{"tag": tag, "projects": dict(projects.most_common())} for tag, projects in spanning[:CROSS_PROJECT]]


def _gardening(root) -> dict:
    runs = [e.get("details") or {} for e in read_audit(root, action="garden")]
    applied = [d for d in runs if d.get("run")]
    return {"consolidations": len(read_audit(root, action="consolidate")), "runs": len(applied),
            "archived": sum(len(d.get("archived") or []) for d in applied),
            "undone": sum(1 for d in runs if d.get("undo")), "last_run": read_state(root).get("last_run")}


def reflect(root, *, now: datetime | None = None) -> dict:
    """The reflection report as a dict (see the module docstring)."""
    now = now or datetime.now(timezone.utc)
    root = Path(root)
    rows = _rows(root)
    states = Counter(state_of(salience(r, now)) for r in rows if not r["pinned"])
    used = sorted((r for r in rows if r["access_count"] > 0), key=lambda r: (-r["access_count"], r["id"]))
    insights = sorted((r for r in rows if r["kind"] in ("learning", "consolidated") or r["type"] == "pattern"),
                      key=lambda r: (r["created"], r["id"]), reverse=True)
    previous = _read_count(root)
    return {
        "generated": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "reflections": previous + 1,
        "memories": len(rows),
        "by_kind": dict(sorted(Counter(r["kind"] for r in rows).items())),
        "states": {"pinned": sum(1 for r in rows if r["pinned"]),
                   **{s: states.get(s, 0) for s in ("active", "fading", "dormant")}},
        "themes": _themes(rows),
        "cross_project": _cross_project(rows),
        "most_used": [{"id": r["id"], "summary": _summary(r, 70), "accesses": r["access_count"]}
                      for r in used[:MOST_USED]],
        "insights": [{"id": r["id"], "created": r["created"], "kind": r["kind"],
                      "preview": _summary(r, 80)} for r in insights[:INSIGHTS]],
        "gardening": _gardening(root),
    }


def _read_count(root: Path) -> int:
    try:
        return int(json.loads((root / "state" / "reflect.json").read_text(encoding="utf-8"))["reflections"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0


def render(report: dict) -> str:
    day = report["generated"][:10]
    s = report["states"]
    out = ["# Reflection Summary (auto-generated)",
           f"> Last updated: {day} | Total reflections: {report['reflections']} | Memories: {report['memories']} "
           f"(active {s['active']}, fading {s['fading']}, dormant {s['dormant']}, pinned {s['pinned']})", ""]
    out += ["## Themes", "Tags that occur together most often:", ""]
    out += [f"- **{' + '.join(t['tags'])}**: {t['count']} memories ("
            + ", ".join(f'"{e}"' for e in t["examples"]) + ")" for t in report["themes"]] or ["- none yet"]
    out += ["", "## Cross-Project Patterns", "Tags that span several projects:", ""]
    out += [f"- **{c['tag']}**: " + ", ".join(f"{p} ({n})" for p, n in c["projects"].items())
            for c in report["cross_project"]] or ["- none yet"]
    out += ["", "## Most Used", ""]
    out += [f"{i}. {m['summary']} · {m['id']} — {m['accesses']} uses"
            for i, m in enumerate(report["most_used"], 1)] or ["- nothing recalled yet"]
    out += ["", "## Recent Insights", ""]
    out += [f"- {m['created'][:10]} · {m['preview']} · {m['id']}" for m in report["insights"]] or ["- none yet"]
    g = report["gardening"]
    out += ["", "## Gardening", "",
            f"- Runs: {g['runs']} (last: {(g['last_run'] or 'never')[:16].replace('T', ' ')}), undone: {g['undone']}",
            f"- Consolidations (masters made): {g['consolidations']}",
            f"- Archived as dormant: {g['archived']}"]
    return "\n".join(out) + "\n"


def write_reflection(root, report: dict) -> Path:
    """REFLECTION.md in the memory root (and the reflection count in state/reflect.json)."""

    root = Path(root)
    path = root / REFLECTION_NAME
    atomic_write_text(path, render(report))
    atomic_write_json(root / "state" / "reflect.json", {"reflections": report["reflections"],
                                                         "last": report["generated"]})
    return path
