"""The merge rules: two machines' versions of the memory (and their common ancestor) to one, without conflict.

By construction, per kind of file (brain/sync/tracked.py):
- A memory is one file, so memories added on two machines never meet. A memory is merged as a whole (its live or
  archived file): what only one side changed since the ancestor is taken from that side, field by field (content,
  type, tags, links, pin, status, scope...); tags and each kind of link merge as sets (what either side added is
  kept, what either side removed goes). A field both sides changed differently takes the value of the side
  updated last (`metadata.updated`, then the larger blob id, so both machines decide alike) and the other value
  is kept in the audit log (action `sync`, details.lost). Where it lives (chunks/ or archive/) merges the same
  way: a forget or a restore on one machine travels.
- A permanent delete wins: an id in either side's tombstones is gone from the result, whatever the other side did.
  A memory missing on one side without a tombstone (a file lost, set aside by `doctor --repair`) is kept.
  A link to a memory deleted for good goes from every memory the merge takes or makes.
- The audit log, the episode log and the tombstones merge by union (lines; episode entries), minus what speaks of
  memories deleted for good (an episode entry, a kept losing version); what only one side has passes the checks a
  local file's lines pass (brain/sync/tracked.py).
"""
import re

from brain.store.audit import kept_version_of
from brain.store.build import tombstone_tokens
from brain.store.validation import schema_errors
from brain.sync.git import blob_id
from brain.sync.tracked import (ARCHIVED, AUDIT, BURIED, CHUNK, EPISODE, TOMBSTONE_PATH, archive_path, chunk_bytes,
                                UNREADABLE, chunk_id_of, entries, episode_text, good_entry, good_line, kind_of,
                                live_path, log_text, read_chunk, tombstone_text)

_ABSENT = object()
_MEMORY_ID = re.compile(r"\[(chunk-\d{4}-\d{2}-\d{2}-[0-9a-f]{8})\]")


class Merged:
    """The result: `tree` (path -> blob id), `new` (blob id -> bytes not yet in the repository), `chunks` (id ->
    (location, chunk dict) for memories the merge made or took, None when deleted), `lost` (id -> the losing
    values, for the audit log), `tombstones` (the union), `rejected` (path -> why a side's file was not used)."""

    def __init__(self):
        self.tree, self.new, self.chunks, self.lost, self.rejected = {}, {}, {}, {}, {}
        self.tombstones: set = set()

    def put(self, path: str, data: bytes) -> str:
        oid = blob_id(data)
        self.new.setdefault(oid, data)
        self.tree[path] = oid
        return oid


def tombstone_set(raw: bytes | None) -> set:
    return tombstone_tokens(raw.decode("utf-8", errors="replace")) if raw else set()


def merge(base: dict, ours: dict, theirs: dict, blobs) -> Merged:
    """Merge three trees (path -> blob id; `base` {} when there is no common ancestor). `blobs(ids)` reads blob
    contents (id -> bytes) from the repository. Costs what differs between the two sides (and a pass over the
    paths): a pull of 10 memories into 10,000 reads about 10 memories."""
    out = Merged()
    differing = {p for p in set(ours) | set(theirs) if ours.get(p) != theirs.get(p)}
    ids, other = set(), []
    for path in differing:
        kind = kind_of(path)
        if kind in (CHUNK, ARCHIVED):
            ids.add(chunk_id_of(path))
        else:
            other.append((path, kind))
    wanted = {t.get(p) for t in (base, ours, theirs) for p, kind in other if kind in (AUDIT, EPISODE, BURIED)}
    wanted |= {ours.get(TOMBSTONE_PATH), theirs.get(TOMBSTONE_PATH)}
    wanted |= {t.get(p) for cid in ids for t in (base, ours, theirs) for p in (live_path(cid), archive_path(cid))}
    content = blobs([oid for oid in wanted if oid])
    out.tombstones = tombstone_set(content.get(ours.get(TOMBSTONE_PATH))) | \
        tombstone_set(content.get(theirs.get(TOMBSTONE_PATH)))
    out.tree = {p: oid for p, oid in ours.items() if p not in differing}  # the same on both sides
    for path, kind in other:
        _merge_file(out, path, kind, base.get(path), ours.get(path), theirs.get(path), content)
    for cid in out.tombstones:
        if cid.startswith("chunk-") and any(p in out.tree for p in (live_path(cid), archive_path(cid))):
            out.tree.pop(live_path(cid), None)
            out.tree.pop(archive_path(cid), None)
            out.chunks[cid] = None
    for cid in ids:
        if cid in out.tombstones:
            out.chunks[cid] = None
            continue
        (ancestor, _), (mine, mine_bad), (other, other_bad) = (_side(t, cid, content) for t in (base, ours, theirs))
        if mine_bad or other_bad:
            _unmerged(out, cid, base, ours, theirs)
            out.rejected.update(dict.fromkeys({**mine_bad, **other_bad}, UNREADABLE))
            continue
        _merge_memory(out, cid, [ancestor, mine, other])  # (an ancestor that cannot be read counts as none)
    return out


# ---------------------------------------------------------------- memories
def _side(tree: dict, cid: str, content: dict) -> tuple:
    """(the memory in one tree as (location, blob id, chunk dict), or None; path -> why for each of its files that
    cannot be read as a memory: one a newer rlm-mem wrote, or a damaged one)."""
    found, bad = None, {}
    for location, path in ((CHUNK, live_path(cid)), (ARCHIVED, archive_path(cid))):
        oid = tree.get(path)
        if oid is None:
            continue
        data, why = read_chunk(content.get(oid, b""), cid)
        if data is None:
            bad[path] = why
        elif found is None:
            found = location, oid, data
    return found, bad


def _unmerged(out: Merged, cid: str, base: dict, ours: dict, theirs: dict) -> None:
    """A memory one side holds in a form this rlm-mem cannot read is not merged: each of its files keeps the blob
    of the side that changed it (theirs when both did), and nothing of it is written here (brain/sync/apply.py);
    the commit keeps it too (engine.compose)."""
    for path in (live_path(cid), archive_path(cid)):
        oid = _pick(base.get(path), ours.get(path), theirs.get(path), theirs.get(path))
        if oid is not None:
            out.tree[path] = oid


def _merge_memory(out: Merged, cid: str, sides) -> None:
    base, ours, theirs = sides
    same = (lambda a, b: (a and (a[0], a[1])) == (b and (b[0], b[1])))
    if ours is None or theirs is None or same(ours, theirs) or same(ours, base) or same(theirs, base):
        if same(ours, base) and theirs is not None:
            chosen = theirs
        elif same(theirs, base) and ours is not None:
            chosen = ours
        else:
            chosen = ours or theirs  # one side lost it without a tombstone: the other's copy is kept
        if chosen is None:
            return
        location, oid, data = chosen
        path = live_path(cid) if location == CHUNK else archive_path(cid)
        kept = without_links_to(data, out.tombstones)
        if kept is not data:  # a link to a memory deleted for good (on the other side, meanwhile) goes
            out.put(path, chunk_bytes(kept))
            out.chunks[cid] = (location, kept)
            return
        out.tree[path] = oid
        if chosen is theirs:
            out.chunks[cid] = (location, data)
        return
    winner, loser = (ours, theirs) if _newer(ours, theirs) else (theirs, ours)
    data, lost = merge_fields(base and base[2], ours[2], theirs[2], winner is ours)
    location = _pick(base and base[0], ours[0], theirs[0], winner[0])
    if schema_errors("chunk", data):  # a combination the schema refuses: the newer memory whole
        data, lost = winner[2], {"whole": loser[2]}
    data = without_links_to(data, out.tombstones)
    out.put(live_path(cid) if location == CHUNK else archive_path(cid), chunk_bytes(data))
    out.chunks[cid] = (location, data)
    if lost:
        out.lost[cid] = {"lost": lost, "kept_updated": _updated(winner[2]), "lost_updated": _updated(loser[2])}


def without_links_to(data: dict, tombstones: set) -> dict:
    """`data` without its links to memories deleted for good (a copy; `data` itself when it has none)."""
    links = data.get("links") or {}
    if not tombstones or not any(t in tombstones for targets in links.values() for t in targets):
        return data
    return dict(data, links={kind: [t for t in targets if t not in tombstones] for kind, targets in links.items()})


def _updated(data: dict) -> str:
    md = data["metadata"]
    return md.get("updated") or md.get("created") or ""


def _newer(first, second) -> bool:
    """Whether `first` wins over `second`: updated later, or at the same second the larger blob id."""
    return (_updated(first[2]), first[1]) > (_updated(second[2]), second[1])


def _pick(base, ours, theirs, winner):
    """Three-way choice of one value: the side that changed it, or the winner's when both did."""
    if ours == theirs or theirs == base:
        return ours
    if ours == base:
        return theirs
    return winner


def _set_merge(base, ours, theirs) -> list:
    """Lists as sets: kept by both, or added by either; removed by either goes. Ours' order, then theirs'."""
    base, ours, theirs = base or [], ours or [], theirs or []
    kept = [x for x in ours if x in theirs or x not in base]
    return kept + [x for x in theirs if x not in ours and x not in base and x not in kept]


def _fields(data: dict | None) -> dict:
    """A chunk as named fields: ("content",) for content and tokens, ("links", type), ("metadata", name), ...
    (access counts left out: they are each machine's own)."""
    if data is None:
        return {}
    out = {"content": (data.get("content"), data.get("tokens"))}
    for name, value in data.items():
        if name in ("content", "tokens", "links", "metadata", "id"):
            continue
        out[name] = value
    for kind, targets in (data.get("links") or {}).items():
        out[("links", kind)] = targets
    for name, value in (data.get("metadata") or {}).items():
        if name not in ("access_count", "last_accessed"):
            out[("metadata", name)] = value
    return out


def merge_fields(base: dict | None, ours: dict, theirs: dict, ours_wins: bool) -> tuple:
    """(merged chunk dict, lost: field -> the losing side's value) of one memory changed on both sides."""
    b, o, t = _fields(base), _fields(ours), _fields(theirs)
    merged, lost = {}, {}
    for field in list(o) + [f for f in t if f not in o]:
        bv, ov, tv = b.get(field, _ABSENT), o.get(field, _ABSENT), t.get(field, _ABSENT)
        if ov == tv or tv == bv:
            value = ov
        elif ov == bv:
            value = tv
        elif field == "tags" or (isinstance(field, tuple) and field[0] == "links"):
            value = _set_merge(None if bv is _ABSENT else bv, None if ov is _ABSENT else ov,
                               None if tv is _ABSENT else tv)
        elif field == ("metadata", "updated"):
            value = max(v for v in (ov, tv) if v is not _ABSENT)
        else:
            value, other = (ov, tv) if ours_wins else (tv, ov)
            name = field if isinstance(field, str) else ".".join(field)
            lost[name] = None if other is _ABSENT else other[0] if field == "content" else other
        if value is not _ABSENT:
            merged[field] = value
    winner = ours if ours_wins else theirs
    data = {"id": winner["id"]}
    data["content"], data["tokens"] = merged.pop("content", (winner["content"], winner["tokens"]))
    for name, value in merged.items():
        if isinstance(name, str):
            data[name] = value
    data["links"] = {f[1]: v for f, v in merged.items() if isinstance(f, tuple) and f[0] == "links"}
    md = {f[1]: v for f, v in merged.items() if isinstance(f, tuple) and f[0] == "metadata"}
    md["access_count"], md["last_accessed"] = 0, None
    data["metadata"] = md
    order = list(winner)  # the winner's key order, so that an unchanged memory keeps its bytes
    return {k: data[k] for k in order if k in data} | {k: v for k, v in data.items() if k not in order}, lost


# ---------------------------------------------------------------- logs and other files
def _merge_file(out: Merged, path: str, kind, base, ours, theirs, content: dict) -> None:
    if kind is None:  # the marker: the side that changed it, else ours
        chosen = _pick(base, ours, theirs, ours)
        if chosen is not None:
            out.tree[path] = chosen
        return
    if kind == BURIED:
        data = tombstone_text(out.tombstones)
    elif ours == theirs:
        data = None
        out.tree[path] = ours
    else:
        mine = content.get(ours, b"").decode("utf-8", "replace")
        other = content.get(theirs, b"").decode("utf-8", "replace")
        merged_with = union_lines if kind == AUDIT else union_entries
        data = merged_with(mine, other, out.tombstones)
    if data:
        out.put(path, data)


def union_lines(ours: str, theirs: str, tombstones: set = frozenset()) -> bytes:
    """Both sides' lines, in the log's canonical form. A line only one side has passes the checks a local line
    passes (brain/sync/tracked.good_line); none keeps a losing version of a memory deleted for good."""
    mine, other = ours.splitlines(), theirs.splitlines()
    both = set(mine) & set(other)
    return log_text(line for line in mine + other if (line in both or good_line(line))
                    and not (tombstones and kept_version_of(line) in tombstones))


def union_entries(ours: str, theirs: str, tombstones: set = frozenset()) -> bytes:
    """Both sides' entries, in the canonical form: an entry only one side has passes the local checks; none about a
    memory deleted for good."""
    mine, other = entries(ours), entries(theirs)
    head = [mine[0]] if mine and mine[0].startswith("# ") else [other[0]] if other and other[0].startswith("# ") \
        else []
    both = set(mine) & set(other)
    blocks = [b for b in mine + other if not b.startswith("# ") and (b in both or good_entry(b))]
    return episode_text(head + [b for b in blocks if not (tombstones and set(_MEMORY_ID.findall(b)) & tombstones)])
