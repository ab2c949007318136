"""The three JSON indexes of seed 000: metadata_index.json, tag_index.json, link_graph.json.

They are derived from the chunk files (`chunks/`, active chunks only) and can be rebuilt byte-for-byte by
`rlm-mem reindex`: no timestamps inside, keys sorted. Soft-deleted chunks leave the indexes; links that other chunks
hold to them stay (an archived chunk can be restored).
"""
import json
from pathlib import Path

from brain.util.files import read_json, write_derived_text

VERSION = 1
FILES = ("metadata_index.json", "tag_index.json", "link_graph.json")


def metadata_entry(chunk: dict, path: str) -> dict:
    md = chunk["metadata"]
    entry = {
        "path": path,
        "type": chunk["type"],
        "created": md["created"],
        "conversation_id": md.get("conversation_id"),
        "tokens": chunk["tokens"],
        "confidence": md.get("confidence"),
        "source": md.get("source"),
        "tags": list(chunk.get("tags") or []),
    }
    for key in ("project", "kind", "status", "pinned", "sensitivity"):
        if key in md:
            entry[key] = md[key]
    return entry


def link_entry(chunk: dict) -> dict:
    return {k: sorted(v) for k, v in sorted(chunk.get("links", {}).items()) if v}


class JsonIndexes:
    """In-memory view of the three index files; load, mutate, save (under the store lock)."""

    def __init__(self, index_dir: Path):
        self.dir = Path(index_dir)
        self.metadata: dict = {}
        self.tags: dict = {}
        self.links: dict = {}

    def load(self) -> "JsonIndexes":
        self.metadata = self._read("metadata_index.json", "chunks")
        self.tags = {t: set(ids) for t, ids in self._read("tag_index.json", "tags").items()}
        self.links = self._read("link_graph.json", "links")
        return self

    def _read(self, name, key) -> dict:
        try:
            value = read_json(self.dir / name)
            return dict(value.get(key) or {}) if isinstance(value, dict) else {}
        except (OSError, ValueError):
            return {}

    def add(self, chunk: dict, path: str) -> None:
        cid = chunk["id"]
        if cid in self.metadata:
            self.remove(cid)
        self.metadata[cid] = metadata_entry(chunk, path)
        for tag in chunk.get("tags") or ():
            self.tags.setdefault(tag, set()).add(cid)
        links = link_entry(chunk)
        if links:
            self.links[cid] = links

    def remove(self, cid: str) -> None:
        entry = self.metadata.pop(cid, None)
        for tag in (entry or {}).get("tags", ()):
            ids = self.tags.get(tag)
            if ids is not None:
                ids.discard(cid)
                if not ids:
                    del self.tags[tag]
        self.links.pop(cid, None)

    def referrers(self, target: str) -> list:
        """Active chunks whose links point at `target`."""
        return sorted(src for src, types in self.links.items() if any(target in ts for ts in types.values()))

    def dumps(self) -> dict:
        meta = {"version": VERSION, "count": len(self.metadata), "chunks": dict(sorted(self.metadata.items()))}
        tags = {"version": VERSION, "tags": {t: sorted(ids) for t, ids in sorted(self.tags.items())}}
        links = {"version": VERSION, "links": dict(sorted(self.links.items()))}
        return {
            "metadata_index.json": json.dumps(meta, ensure_ascii=False, separators=(",", ":")) + "\n",
            "tag_index.json": json.dumps(tags, ensure_ascii=False, separators=(",", ":")) + "\n",
            "link_graph.json": json.dumps(links, ensure_ascii=False, separators=(",", ":")) + "\n",
        }

    def save(self) -> None:
        for name, text in self.dumps().items():
            write_derived_text(self.dir / name, text)
