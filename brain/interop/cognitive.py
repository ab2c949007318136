"""Seed 003's cognitive memory: markdown files with YAML frontmatter under graph/<type>/, edges in graph/edges/.

A memory's own type (solution, fix, workflow, ...) maps onto rlm-mem's five types and is kept in
metadata.original_type; its relations (SOLVES, BUILDS_ON, ...) become links, the original relation kept in
metadata.extra.relations. Derived files (CORE.md, REFLECTION.md, _index.json, _state.json) and episodes are skipped.
"""
from pathlib import Path

from brain.interop.records import (
    LinkRequest,
    Record,
    SourceError,
    as_tags,
    jsonable,
    md_files,
    number,
    read_text,
    split_frontmatter,
    timestamp,
    with_title,
)
from brain.safety.redact import redact

FORMAT = "cognitive"
TYPES = {
    "solution": "fact", "fix": "fact", "configuration": "fact", "error": "fact", "decision": "decision",
    "problem": "note", "general": "note", "workflow": "pattern", "procedure": "pattern", "code_pattern": "pattern",
    "insight": "pattern",
}
KINDS = {"decision": "decision", "insight": "learning"}
# A relation that argues for its target supports it; FOLLOWS is an order; the rest only say "these belong together".
RELATIONS = {"SOLVES": "supports", "BUILDS_ON": "supports", "REQUIRES": "related_to", "CAUSES": "related_to",
             "ALTERNATIVE_TO": "related_to", "RELATED_TO": "related_to", "FOLLOWS": "follows"}
SKIP = ("CORE.md", "REFLECTION.md", "episodes")
_KNOWN = {"id", "type", "title", "tags", "importance", "confidence", "created", "updated", "relations"}
_LISTS = (("steps", "Steps"), ("preconditions", "Preconditions"), ("postconditions", "Postconditions"))


def looks_like(meta: dict) -> bool:
    return is_edge(meta) or ("type" in meta and "title" in meta and ("importance" in meta or "relations" in meta))


def is_edge(meta: dict) -> bool:
    return "from_id" in meta and "to_id" in meta


def sources(path: Path) -> list:
    return md_files(path, skip=SKIP) if path.is_dir() else [path]


def link_type(relation: str) -> str:
    return RELATIONS.get(str(relation).upper(), "related_to")


def read(src: Path, context=None):
    meta, body = split_frontmatter(read_text(src))
    if is_edge(meta):
        yield _edge(src, meta, body)
        return
    if not meta.get("type") or not meta.get("title"):
        raise SourceError("no cognitive-memory frontmatter (needs at least type and title)")
    original = str(meta["type"]).strip().lower()
    ident = str(meta.get("id") or src.name)
    sections = [with_title(str(meta["title"]), body)]
    for name, heading in _LISTS:
        items = meta.get(name)
        if isinstance(items, list) and items:
            sections.append(heading + ":\n" + "\n".join(f"{i}. {item}" for i, item in enumerate(items, 1)))
    relations = [r for r in meta.get("relations") or () if isinstance(r, dict) and r.get("target") and r.get("type")]
    extra = {"cognitive_id": ident, "file": src.name}
    extra.update({k: v for k, v in meta.items() if k not in _KNOWN and jsonable(v)})
    if relations:
        extra["relations"] = [dict(r, link=link_type(r["type"])) for r in relations]
    metadata = {"original_type": original[:100], "title": str(meta["title"])[:300], "extra": extra,
                "kind": KINDS.get(original), "importance": number(meta.get("importance")),
                "updated": timestamp(meta.get("updated"))}
    if "vault" in src.parts:
        metadata["pinned"] = True  # seed 003 keeps pinned memories in vault/
    yield Record(content="\n\n".join(s for s in sections if s), ident=ident, file=str(src),
                 chunk_type=TYPES.get(original, "note"), tags=as_tags(meta.get("tags")),
                 created=timestamp(meta.get("created")), confidence=number(meta.get("confidence"), 0.8),
                 metadata={k: v for k, v in metadata.items() if v is not None}, ref_name=ident)
    for rel in relations:
        target = str(rel["target"])
        incoming = str(rel.get("direction", "outgoing")).lower() == "incoming"
        src_ref, dst_ref = (target, ident) if incoming else (ident, target)
        yield LinkRequest(src=src_ref, link_type=link_type(rel["type"]), dst=dst_ref, file=str(src))


def _edge(src: Path, meta: dict, body: str) -> LinkRequest:
    relation = str(meta.get("type") or "RELATED_TO")
    original = {"target": str(meta["to_id"]), "type": relation, "direction": "outgoing",
                "link": link_type(relation)}
    for name in ("strength", "id"):
        if meta.get(name) is not None:
            original["edge_id" if name == "id" else name] = meta[name]
    if body.strip():
        original["description"] = redact(body.strip())[:2000]  # redacted, then cut
    return LinkRequest(src=str(meta["from_id"]), link_type=link_type(relation), dst=str(meta["to_id"]),
                       file=str(src), original=original)
