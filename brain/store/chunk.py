"""The chunk record of seed 000 and its identifiers.

An id is `chunk-YYYY-MM-DD-<8 hex>`. It is validated against a whitelist pattern before any path is built from it,
so nothing outside the store can be reached through an id. Captured memories get ids derived from a stable key
(session, transcript entry, part), which makes capture idempotent: the same thing captured twice has the same id.
"""
import hashlib
import re
import secrets
from dataclasses import dataclass, field
from datetime import date

from brain.util.errors import InvalidChunkId

CHUNK_TYPES = ("fact", "preference", "pattern", "note", "decision")
SOURCES = ("interaction", "import", "derived")
LINK_TYPES = ("context_of", "follows", "related_to", "supports", "contradicts")
# Seed 003's typed relations (SOLVES, CAUSES, ... in lower case) and seed 002's causal links.
TYPED_RELATIONS = ("solves", "causes", "builds_on", "alternative_to", "requires")
CAUSAL_LINKS = ("caused_by", "led_to", "blocked_by")
# Added by rlm-mem beyond the seed (all optional; see schemas/chunk.schema.json).
LIFECYCLE_LINKS = ("supersedes", "superseded_by", "derived_from", "consolidated_into")
EXTRA_LINK_TYPES = LIFECYCLE_LINKS + TYPED_RELATIONS + CAUSAL_LINKS
# What a person (or an import) may link by hand; the lifecycle links have their own commands (supersede, garden).
MANUAL_LINK_TYPES = ("supports", "contradicts", *TYPED_RELATIONS, "follows", "related_to", *CAUSAL_LINKS)
# `rlm-mem why` walks these, both ways: what caused a memory and what it led to.
WHY_LINKS = ("caused_by", "led_to", "solves", "blocked_by", "causes", "supersedes", "superseded_by")
DELETION_POLICIES = ("auto_prune", "manual_only", "never")  # seed 004; a memory without one is auto_prune

_ID_RE = re.compile(r"\Achunk-([0-9]{4})-([0-9]{2})-([0-9]{2})-([0-9a-f]{8})\Z")  # ASCII: \d takes "２０２６"


def validate_chunk_id(chunk_id) -> str:
    """Return the id if it is well formed (pattern and a real date), else raise InvalidChunkId."""
    if not isinstance(chunk_id, str):
        raise InvalidChunkId("invalid chunk id: expected chunk-YYYY-MM-DD-<8 hex digits>")
    m = _ID_RE.match(chunk_id)
    if m:
        try:
            date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
            return chunk_id
        except ValueError:
            pass
    raise InvalidChunkId("invalid chunk id: expected chunk-YYYY-MM-DD-<8 hex digits>")


def is_chunk_id(value) -> bool:
    try:
        validate_chunk_id(value)
        return True
    except InvalidChunkId:
        return False


def new_chunk_id(created: str, key: str | None = None) -> str:
    """An id dated by `created` (ISO 8601). With `key`, the hex part is derived from it (stable); else random."""
    day = created[:10]
    tail = hashlib.sha256(key.encode("utf-8")).hexdigest()[:8] if key else secrets.token_hex(4)
    return validate_chunk_id(f"chunk-{day}-{tail}")


def month_of(chunk_id: str) -> str:
    return chunk_id[6:13]


def empty_links() -> dict:
    return {name: [] for name in LINK_TYPES}


@dataclass
class Chunk:
    """One memory, exactly the JSON of seed 000 (plus the optional fields the schema allows)."""

    id: str
    content: str
    tokens: int
    type: str
    metadata: dict
    links: dict = field(default_factory=empty_links)
    tags: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "content": self.content,
            "tokens": self.tokens,
            "type": self.type,
            "metadata": self.metadata,
            "links": self.links,
            "tags": self.tags,
        }

    @classmethod
    def from_dict(cls, data: dict) -> "Chunk":
        links = empty_links()
        links.update(data.get("links") or {})
        return cls(
            id=data["id"],
            content=data["content"],
            tokens=data["tokens"],
            type=data["type"],
            metadata=dict(data["metadata"]),
            links=links,
            tags=list(data.get("tags") or []),
        )

    # Convenience views used across the library.
    @property
    def created(self) -> str:
        return self.metadata.get("created", "")

    @property
    def conversation_id(self):
        return self.metadata.get("conversation_id")

    @property
    def project(self):
        return self.metadata.get("project")

    @property
    def pinned(self) -> bool:
        return bool(self.metadata.get("pinned"))

    @property
    def status(self) -> str:
        return self.metadata.get("status", "active")

    @property
    def kind(self) -> str:
        return self.metadata.get("kind", "memory")

    def all_links(self):
        """(link_type, target) pairs, every type."""
        for link_type, targets in self.links.items():
            for target in targets or ():
                yield link_type, target
