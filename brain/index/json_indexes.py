"""The three JSON indexes of seed 000: metadata_index.json, tag_index.json, link_graph.json.

They are derived from the chunk files (`chunks/`, active chunks only) and can be rebuilt byte-for-byte by
`rlm-mem reindex`: no timestamps inside, keys sorted. Soft-deleted chunks leave the indexes; links that other chunks
hold to them stay (an archived chunk can be restored).

They are not written on the write path (at 100,000 chunks they hold ~40 MB, which every write used to load and
rewrite). Writers update the search index, which keeps each chunk's metadata entry, its tags and its links; the
files are then written from one read snapshot of it, streamed (memory does not grow with the store), by a pass
the background worker runs (`ChunkStore.refresh_json_indexes`). index/json_indexes.state records which index
(epoch) and which generation of it the files show, and their sizes and mtimes: the files are current when these
equal the search index's and the files on disk. The freshness contract is in ARCHITECTURE.md.
"""
import json
import os
import time
from json.encoder import encode_basestring
from pathlib import Path

from brain.index.fingerprint import JSON_STATE_NAME
from brain.util.files import atomic_write_text, derived_stream, read_json

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


def _compact(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def entry_text(chunk: dict, path: str) -> str:
    """The chunk's metadata_index.json entry as it appears in the file (kept in the search index)."""
    return _compact(metadata_entry(chunk, path))


# ---------------------------------------------------------------- written from the search index
STATE_NAME = JSON_STATE_NAME


def state_path(index_dir) -> str:
    return os.path.join(os.fspath(index_dir), STATE_NAME)


def _stat(path) -> list | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def read_state(index_dir) -> dict:
    """What the last pass wrote: {"epoch", "generation", "files": {name: [size, mtime_ns]}, "index": the search
    index's signature when it looked} ({} when none)."""
    try:
        state = read_json(state_path(index_dir))
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def intact(index_dir, state: dict | None = None) -> bool:
    """Whether the three files are as the last pass wrote them (sizes and mtimes)."""
    files = (read_state(index_dir) if state is None else state).get("files") or {}
    return all(files.get(name) is not None and files.get(name) == _stat(os.path.join(os.fspath(index_dir), name))
               for name in FILES)


def is_current(index_dir, epoch, generation: int) -> bool:
    """Whether the three files show generation `generation` of index `epoch`, untouched since they were written."""
    state = read_state(index_dir)
    return state.get("epoch") == epoch and state.get("generation") == generation and intact(index_dir, state)


def only_behind(index_dir, epoch) -> bool:
    """Whether the files are whole and of this index, merely missing its latest writes (a pass may wait)."""
    state = read_state(index_dir)
    return state.get("epoch") == epoch and intact(index_dir, state)


def age(index_dir) -> float:
    """Seconds since the files were last written or found current (infinite when never)."""
    try:
        return max(0.0, (time.time_ns() - os.stat(state_path(index_dir)).st_mtime_ns) / 1e9)
    except OSError:
        return float("inf")


def _save_state(index_dir, state: dict) -> None:
    atomic_write_text(state_path(index_dir), _compact(state), fsync=False)  # a hint: losing it costs one pass


def mark_checked(index_dir, signature: list) -> None:
    """The files were found current when the search index had this signature (fingerprint.index_signature)."""
    state = read_state(index_dir)
    if state.get("index") != signature:
        _save_state(index_dir, dict(state, index=signature))


def write_from(conn, index_dir, epoch, generation: int, signature: list) -> None:
    """Write the three files from `conn`, inside the read transaction the caller opened (one snapshot: the three
    agree with each other and with `generation`), then the state file (with `signature`, taken before the
    snapshot). Streamed row by row: the bytes are those `JsonIndexes.dumps` gives for the same chunks."""
    index_dir = os.fspath(index_dir)
    count = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    entries = conn.execute("SELECT id, jmeta FROM chunks ORDER BY id")
    _write_object(os.path.join(index_dir, "metadata_index.json"), f'{{"version":{VERSION},"count":{count},"chunks":',
                  ((cid, entry) for cid, entry in entries))
    tags = conn.execute("SELECT tag, id FROM tags ORDER BY tag, id")
    _write_object(os.path.join(index_dir, "tag_index.json"), f'{{"version":{VERSION},"tags":',
                  ((tag, _compact(ids)) for tag, ids in _grouped(tags)))
    links = conn.execute("SELECT src, type, dst FROM links ORDER BY src, type, dst")
    _write_object(os.path.join(index_dir, "link_graph.json"), f'{{"version":{VERSION},"links":',
                  ((src, "{" + ",".join(f"{encode_basestring(t)}:{_compact(d)}" for t, d in _grouped(pairs)) + "}")
                   for src, pairs in _grouped((src, (t, d)) for src, t, d in links)))
    files = {name: _stat(os.path.join(index_dir, name)) for name in FILES}
    _save_state(index_dir, {"epoch": epoch, "generation": generation, "files": files, "index": signature})


def _grouped(pairs):
    """(key, [values]) for runs of pairs with the same key (the query sorts by key)."""
    current, values = None, []
    for key, value in pairs:
        if key != current and values:
            yield current, values
            values = []
        current = key
        values.append(value)
    if values:
        yield current, values


def _write_object(path: str, head: str, members) -> None:
    """`head` + {"key":value,...} + "}" and a newline, atomically; `members` gives (key, value already as JSON)."""
    with derived_stream(path) as fh:
        fh.write(head.encode("utf-8") + b"{")
        first = True
        for key, value in members:
            fh.write(("" if first else ",").encode() + f"{encode_basestring(key)}:{value}".encode("utf-8"))
            first = False
        fh.write(b"}}\n")


class JsonIndexes:
    """The three files' content built in memory from chunk dicts, the way seed 000 defines them: what doctor
    compares the files with (write_from must give the same bytes)."""

    def __init__(self, index_dir: Path):
        self.dir = Path(index_dir)
        self.metadata: dict = {}
        self.tags: dict = {}
        self.links: dict = {}

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

    def dumps(self) -> dict:
        meta = {"version": VERSION, "count": len(self.metadata), "chunks": dict(sorted(self.metadata.items()))}
        tags = {"version": VERSION, "tags": {t: sorted(ids) for t, ids in sorted(self.tags.items())}}
        links = {"version": VERSION, "links": dict(sorted(self.links.items()))}
        return {name: _compact(value) + "\n" for name, value in
                (("metadata_index.json", meta), ("tag_index.json", tags), ("link_graph.json", links))}
