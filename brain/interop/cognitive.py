"""Seed 003's cognitive memory: markdown files with YAML frontmatter under graph/<type>/, edges in graph/edges/.

A memory's own type (solution, fix, workflow, ...) maps onto rlm-mem's five types and is kept in
metadata.original_type; a procedure's steps and conditions stay structured (metadata.procedure). Its relations
(SOLVES, CAUSES, BUILDS_ON, ALTERNATIVE_TO, REQUIRES, FOLLOWS, RELATED_TO) become links of the same type, with
their strength and context sentence (metadata.relations); a relation type rlm-mem does not know becomes related_to,
kept as stated in metadata.extra.relations, as is an edge file's id and description. Derived files (CORE.md,
REFLECTION.md, _index.json, _state.json) and episodes are skipped.
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
from brain.store.lifecycle import PROCEDURE_PARTS, procedure_text

FORMAT = "cognitive"
TYPES = {
    "solution": "fact", "fix": "fact", "configuration": "fact", "error": "fact", "decision": "decision",
    "problem": "note", "general": "note", "workflow": "pattern", "procedure": "pattern", "code_pattern": "pattern",
    "insight": "pattern",
}
KINDS = {"decision": "decision", "insight": "learning"}
RELATIONS = {"SOLVES": "solves", "CAUSES": "causes", "BUILDS_ON": "builds_on", "ALTERNATIVE_TO": "alternative_to",
             "REQUIRES": "requires", "FOLLOWS": "follows", "RELATED_TO": "related_to"}
SKIP = ("CORE.md", "REFLECTION.md", "episodes")
_KNOWN = {"id", "type", "title", "tags", "importance", "confidence", "created", "updated", "relations"}
_PROCEDURE = tuple(name for name, _ in PROCEDURE_PARTS)


def looks_like(meta: dict) -> bool:
    return is_edge(meta) or ("type" in meta and "title" in meta and ("importance" in meta or "relations" in meta))


def is_edge(meta: dict) -> bool:
    return "from_id" in meta and "to_id" in meta


def sources(path: Path) -> list:
    return md_files(path, skip=SKIP) if path.is_dir() else [path]


def link_type(relation: str) -> str:
    return RELATIONS.get(str(relation).upper(), "related_to")


def _text_list(value) -> list:
    return [str(item) for item in value] if isinstance(value, list) else []


def read(src: Path, context=None):
    meta, body = split_frontmatter(read_text(src))
    if is_edge(meta):
        yield _edge(src, meta, body)
        return
    if not meta.get("type") or not meta.get("title"):
        raise SourceError("no cognitive-memory frontmatter (needs at least type and title)")
    original = str(meta["type"]).strip().lower()
    ident = str(meta.get("id") or src.name)
    procedure = {name: _text_list(meta.get(name)) for name in _PROCEDURE if _text_list(meta.get(name))}
    content = with_title(str(meta["title"]), body)
    content = procedure_text(content, procedure) if procedure else content
    relations = [r for r in meta.get("relations") or () if isinstance(r, dict) and r.get("target") and r.get("type")]
    extra = {"cognitive_id": ident, "file": src.name}
    extra.update({k: v for k, v in meta.items() if k not in _KNOWN and k not in procedure and jsonable(v)})
    unknown = [dict(r) for r in relations if str(r["type"]).upper() not in RELATIONS]
    if unknown:
        extra["relations"] = unknown
    metadata = {"original_type": original[:100], "title": str(meta["title"])[:300], "extra": extra,
                "kind": KINDS.get(original), "importance": number(meta.get("importance")),
                "updated": timestamp(meta.get("updated")), "procedure": procedure or None}
    if "vault" in src.parts:
        metadata["pinned"] = True  # seed 003 keeps pinned memories in vault/
    yield Record(content=content, ident=ident, file=str(src),
                 chunk_type=TYPES.get(original, "note"), tags=as_tags(meta.get("tags")),
                 created=timestamp(meta.get("created")), confidence=number(meta.get("confidence"), 0.8),
                 metadata={k: v for k, v in metadata.items() if v is not None}, ref_name=ident)
    for rel in relations:
        target = str(rel["target"])
        incoming = str(rel.get("direction", "outgoing")).lower() == "incoming"
        src_ref, dst_ref = (target, ident) if incoming else (ident, target)
        yield LinkRequest(src=src_ref, link_type=link_type(rel["type"]), dst=dst_ref, file=str(src),
                          strength=number(rel.get("strength")), context=_context(rel.get("context")))


def _context(value) -> str | None:
    text = " ".join(str(value).split()) if value is not None else ""
    return text[:1000] or None


def _edge(src: Path, meta: dict, body: str) -> LinkRequest:
    """An edge file: the link, its strength, and (in metadata.extra.relations) its id and description."""
    relation = str(meta.get("type") or "RELATED_TO")
    original = {"target": str(meta["to_id"]), "type": relation, "direction": "outgoing"}
    if meta.get("id") is not None:
        original["edge_id"] = meta["id"]
    if body.strip():
        original["description"] = redact(body.strip())[:2000]  # redacted, then cut
    return LinkRequest(src=str(meta["from_id"]), link_type=link_type(relation), dst=str(meta["to_id"]),
                       file=str(src), original=original if len(original) > 3 or relation.upper() not in RELATIONS
                       else None,
                       strength=number(meta.get("strength")))
