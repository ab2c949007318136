"""What of a memory root goes into the sync repository, in which form, and the scan that finds what changed.

The repository holds the person's memories and their logs, nothing derived, nothing runtime:

    chunks/YYYY-MM/chunk-*.json   a live memory: one memory, one file (its month folder is its id's)
    archive/chunk-*.json          a forgotten (archived) memory
    audit/YYYY-MM.jsonl           the audit log, merged by union of its lines
    episodes/YYYY-MM-DD.md        the episode log, merged by union of its entries
    tombstones.txt                ids and capture keys deleted for good (state/deleted-keys.txt), merged by union
    rlm-mem-sync.json             says the repository is rlm-mem's (a remote without it is refused), and the
                                  versions of its layout and of the memory files in it (`marker_versions`)

index/, state/ (but the tombstones), locks, temp files, CORE.md and the briefs never go in, nor anything else
(`carried`: a remote's other paths are never carried on). What goes in is the
file's canonical form, checked here: a chunk file must parse, match the schema, carry its own id and hold
nothing the redactor would change (what rlm-mem's writer wrote, not a hand edit with a key in it); its access
count and last access are zeroed (they are this machine's reads, not the memory). A log keeps its complete lines
that pass the same checks. A file that fails is held back (reported), never pushed. What comes from elsewhere
passes the same checks (`good_line`, `good_entry`, the tombstone tokens) before a merge keeps it.
"""
import functools
import json
import os
import re
import time

from brain.safety.redact import redact
from brain.safety.triggers import may_hold_secret
from brain.store.audit import audit_entry
from brain.store.build import METADATA_FIELDS, TOMBSTONES, dormant, tombstone_tokens
from brain.store.chunk import EXTRA_LINK_TYPES, LINK_TYPES, is_chunk_id, month_of
from brain.store.validation import FILES_VERSION, schema_errors
from brain.store.write_session import chunk_text
from brain.sync.git import blob_id
from brain.sync.status import FILES_CACHE
from brain.util.fasthash import sha1
from brain.util.files import atomic_write_encoded, read_bytes

MARKER = "rlm-mem-sync.json"
SYNC_VERSION = 1  # the repository's layout (the paths and forms above)
MARKER_BYTES = (f'{{"format": "rlm-mem sync", "version": {SYNC_VERSION}, "files": {FILES_VERSION}}}\n'
                .encode("ascii"))
TOMBSTONE_PATH = "tombstones.txt"
CHUNK, ARCHIVED, AUDIT, EPISODE, BURIED = "chunk", "archived", "audit", "episode", "tombstones"
UNREADABLE = ("its version in the sync repository cannot be read by this rlm-mem (a newer one wrote it, or it is "
              "damaged): neither is merged until this one can read it (update rlm-mem here)")
BEHIND = "behind the repository's version, which a sync could not read then: brought up to it now"
RACY_NS = 1_000_000_000  # a file changed this close before a scan is read again (its mtime may not move)
MAX_FILE = 64 * 1024 * 1024


@functools.lru_cache(maxsize=1 << 18)
def kind_of(path: str) -> str | None:
    """Which kind of tracked file a repository path is, or None (the marker, or a path rlm-mem does not know).
    (Cached: a sync asks about every path of the tree several times.)"""
    parts = path.split("/")
    name = parts[-1]
    if len(parts) == 3 and parts[0] == "chunks" and name.endswith(".json") and is_chunk_id(name[:-5]) \
            and month_of(name[:-5]) == parts[1]:
        return CHUNK
    if len(parts) == 2 and parts[0] == "archive" and name.endswith(".json") and is_chunk_id(name[:-5]):
        return ARCHIVED
    if len(parts) == 2 and parts[0] == "audit" and _dated(name, ".jsonl", 7):
        return AUDIT
    if len(parts) == 2 and parts[0] == "episodes" and _dated(name, ".md", 10):
        return EPISODE
    if path == TOMBSTONE_PATH:
        return BURIED
    return None


def marker_versions(raw: bytes) -> tuple | None:
    """(layout version, files version) a marker says, or None when it is not rlm-mem's marker. The first
    release's marker said no files version: its files are version 1."""
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(value, dict) or value.get("format") != "rlm-mem sync":
        return None
    layout, files = value.get("version"), value.get("files", 1)
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in (layout, files)):
        return None
    return layout, files


def carried(path: str) -> bool:
    """Whether the repository carries a path: one of the kinds above, or the marker. Nothing else is carried on,
    whatever a remote holds (a merge commit leaves it out)."""
    return path == MARKER or kind_of(path) is not None


def _dated(name: str, suffix: str, length: int) -> bool:
    stem = name[:-len(suffix)] if name.endswith(suffix) else ""
    return len(stem) == length and all(c.isdigit() or (c == "-" and i in (4, 7)) for i, c in enumerate(stem))


def chunk_id_of(path: str) -> str:
    return path.rsplit("/", 1)[-1][:-5]


def live_path(chunk_id: str) -> str:
    return f"chunks/{month_of(chunk_id)}/{chunk_id}.json"


def archive_path(chunk_id: str) -> str:
    return f"archive/{chunk_id}.json"


def local_file(root, path: str) -> str:
    """The file in the memory root a repository path stands for."""
    if path == TOMBSTONE_PATH:
        return os.path.join(os.fspath(root), "state", TOMBSTONES)
    return os.path.join(os.fspath(root), *path.split("/"))


# ---------------------------------------------------------------- canonical forms
# A chunk file's own words: its field names (a few hold a trigger: "tokens", "access_count") and the capture key
# hashes rlm-mem makes ("key:" and 16 hex digits). Taken out of the text before the whole-text look below.
_OWN_WORDS = re.compile('"(?:' + "|".join(sorted(
    {"id", "content", "tokens", "type", "metadata", "links", "tags", "access_count", "last_accessed", "index",
     "count", "group", "kind", "ref", "file", "hash", *METADATA_FIELDS, *LINK_TYPES, *EXTRA_LINK_TYPES},
    key=len, reverse=True)) + ')":|"key:[0-9a-f]{16}"')


def raw_holds_secret(raw: str, value) -> bool:
    """holds_secret(value) for a value parsed from the JSON text `raw`: one look at the whole text first, its own
    words left out (most memories trip no trigger at all); only one that does, or that writes a character a
    trigger holds as an escape (\\uXXXX, \\/, a tab), is looked at string by string."""
    if not any(escape in raw for escape in ("\\u", "\\/", "\\t")) and not may_hold_secret(_OWN_WORDS.sub("", raw)):
        return False
    return holds_secret(value)


@functools.lru_cache(maxsize=1 << 16)
def _short_holds_secret(text: str) -> bool:
    return may_hold_secret(text) and redact(text) != text


def holds_secret(value) -> bool:
    """Whether the redactor would change any string in `value` (at any depth, keys too)."""
    if isinstance(value, str):
        if len(value) <= 64:  # kinds, sources, tags, dates, names: the same few strings in memory after memory
            return _short_holds_secret(value)
        return may_hold_secret(value) and redact(value) != value
    if isinstance(value, dict):
        return any(holds_secret(k) or holds_secret(v) for k, v in value.items())
    if isinstance(value, list):
        return any(holds_secret(v) for v in value)
    return False


def read_chunk(raw: bytes, chunk_id: str, *, secrets: bool = False) -> tuple:
    """(chunk dict, None) or (None, why not): JSON matching the schema, its id the one its path gives, and with
    `secrets`, nothing the redactor would change."""
    try:
        text = raw.decode("utf-8")
        data = json.loads(text)
    except (UnicodeDecodeError, ValueError):
        return None, "not valid JSON"
    if secrets and raw_holds_secret(text, data):
        return None, "holds text the redactor would remove (not written by rlm-mem)"
    errors = schema_errors("chunk", data)
    if errors:
        return None, "does not match the chunk schema (" + errors[0] + ")"
    if data.get("id") != chunk_id:
        return None, "its id is not its file name"
    return data, None


def chunk_bytes(data: dict) -> bytes:
    """A chunk's form in the repository: the file as rlm-mem writes it, without this machine's access counts."""
    md = data["metadata"]
    counts = md.get("access_count"), md.get("last_accessed")
    md["access_count"], md["last_accessed"] = 0, None
    try:
        return chunk_text(data)
    finally:
        md["access_count"], md["last_accessed"] = counts


def _complete_lines(raw: bytes) -> str:
    """Text up to the last newline (a line being appended right now is left for the next scan)."""
    end = raw.rfind(b"\n")
    return raw[:end + 1].decode("utf-8", errors="strict") if end >= 0 else ""


def good_line(line: str) -> bool:
    """An audit log's line as sync carries it: an entry of the schema's, with nothing the redactor would change."""
    entry = audit_entry(line)
    return entry is not None and not holds_secret(entry)


def good_entry(block: str) -> bool:
    """An episode entry as sync carries it: nothing in it the redactor would change."""
    return not may_hold_secret(block) or redact(block) == block


def log_text(lines) -> bytes:
    """An append-only log's form in the repository: its lines once each, in order (a line starts with its time),
    so that two machines holding the same lines hold the same file, whatever order they were appended in."""
    return "".join(line + "\n" for line in sorted(set(lines)) if line.strip()).encode("utf-8")


def entries(text: str) -> list:
    """An episode file's parts: its heading, then one block per entry (brain/store/episodes.py writes them so)."""
    return [block.strip("\n") for block in text.split("\n\n") if block.strip("\n")]


def episode_text(parts) -> bytes:
    """An episode file's form in the repository: its heading, then its entries once each, in order (an entry
    starts with its time): the same entries make the same file on every machine."""
    parts = list(parts)
    if not parts:
        return b""
    head, rest = (parts[0], parts[1:]) if parts[0].startswith("# ") else ("", parts)
    blocks = sorted(set(rest) - {head})
    return ("\n\n".join(([head] if head else []) + blocks) + "\n").encode("utf-8")


def canonical(kind: str, raw: bytes, path: str, trusted: int = 0) -> tuple:
    """(the bytes the repository holds for this local file, None) or (None, why it is held back). `trusted`: the
    length of a log's beginning already checked by an earlier scan (a log only grows), whose lines pass as they
    are."""
    if kind in (CHUNK, ARCHIVED):
        data, why = read_chunk(raw, chunk_id_of(path), secrets=True)
        return (None, why) if data is None else (chunk_bytes(data), None)
    try:
        text = _complete_lines(raw)
    except UnicodeDecodeError:
        return None, "is not UTF-8 text"
    if kind == AUDIT:
        head = raw[:trusted].rfind(b"\n") + 1 if trusted else 0
        old, new = text[:len(raw[:head].decode("utf-8"))], text[len(raw[:head].decode("utf-8")):]
        lines = new.splitlines()
        if may_hold_secret(new) or any(not line.startswith('{"time": ') for line in lines):
            lines = [line for line in lines if line.strip() and good_line(line)]
        return log_text(old.splitlines() + lines), None
    if kind == EPISODE:
        if may_hold_secret(text) and redact(text) != text:
            return None, "holds text the redactor would remove (not written by rlm-mem)"
        return episode_text(entries(text)), None
    return tombstone_text(tombstone_tokens(text)), None


def tombstone_text(tokens) -> bytes:
    """The tombstones' form in the repository: each token once, in order."""
    return "".join(t + "\n" for t in sorted(tokens)).encode("utf-8")


# ---------------------------------------------------------------- the scan
class Scan:
    """The local side: `tree` (repository path -> blob id of its canonical form) for every tracked file present,
    `fresh` (path -> canonical bytes) for those read in this scan, `held` (path -> why) for those held back;
    `files` (path -> [size, mtime_ns, blob id, digest]) and `taken` make it the next scan's stat cache (`digest`:
    of an audit log whose every line passed, so that the next scan checks only what was appended)."""

    def __init__(self, taken: int = 0):
        self.tree, self.fresh, self.held, self.files, self.taken = {}, {}, {}, {}, taken
        self.where: dict = {}  # path -> the file here, where it is not local_file(root, path): a dormant memory


def _entries(root):
    """(repository path, local file, stat) of every tracked file present in the memory root."""
    root = os.fspath(root)

    def files(folder, prefix):
        try:
            with os.scandir(folder) as it:
                for entry in it:
                    if entry.is_file(follow_symlinks=False):  # never a link: the store does not follow one
                        yield f"{prefix}{entry.name}", entry.path, entry.stat(follow_symlinks=False)
        except OSError:
            return

    chunks = os.path.join(root, "chunks")
    try:
        with os.scandir(chunks) as it:
            months = sorted(e.name for e in it if e.is_dir(follow_symlinks=False))
    except OSError:
        months = []
    for month in months:
        yield from files(os.path.join(chunks, month), f"chunks/{month}/")
    for folder in ("archive", "audit", "episodes"):
        yield from files(os.path.join(root, folder), f"{folder}/")
    tombstones = os.path.join(root, "state", TOMBSTONES)
    try:
        st = os.lstat(tombstones)
        if os.path.isfile(tombstones) and not os.path.islink(tombstones):
            yield TOMBSTONE_PATH, tombstones, st
    except OSError:
        pass


def scan(root, previous: Scan | None = None) -> Scan:
    """Every tracked file's blob id; only files whose size or mtime changed since the previous scan (this sync's,
    or the one saved in state/) are read."""
    previous = read_cache(root) if previous is None else previous
    out = Scan(now_ns())
    resting = dormant(os.path.join(os.fspath(root), "state"))
    for path, local, st in _entries(root):
        kind = kind_of(path)
        if kind is None:
            continue
        if kind == ARCHIVED and chunk_id_of(path) in resting:  # archived here as dormant: live everywhere else
            path, kind = live_path(chunk_id_of(path)), CHUNK
            if path in out.tree or path in out.held or os.path.lexists(local_file(root, path)):
                continue  # (its live file too: that one is the memory)
            out.where[path] = local
        seen = previous.files.get(path)
        if seen is not None and seen[0] == st.st_size and seen[1] == st.st_mtime_ns \
                and st.st_mtime_ns < previous.taken - RACY_NS:
            out.tree[path], out.files[path] = seen[2], seen
            continue
        try:
            raw = read_bytes(local, MAX_FILE)
        except FileNotFoundError:
            continue  # removed meanwhile
        except OSError as exc:
            out.held[path] = f"cannot be read ({exc.strerror or exc})"
            continue
        trusted = seen[0] if seen is not None and kind == AUDIT and seen[3] and len(raw) >= seen[0] \
            and _digest(raw[:seen[0]]) == seen[3] else 0
        data, why = canonical(kind, raw, path, trusted)
        if data is None:
            out.held[path] = why
            continue
        oid = blob_id(data)
        whole = kind == AUDIT and data.count(b"\n") == len(set(raw[:raw.rfind(b"\n") + 1].splitlines()) - {b""})
        out.tree[path], out.fresh[path] = oid, data
        out.files[path] = [st.st_size, st.st_mtime_ns, oid, _digest(raw) if whole else 0]
    return out


def _digest(raw: bytes) -> int:
    return int.from_bytes(sha1(raw).digest()[:8], "big")


def read_canonical(local: str, kind: str, path: str) -> tuple:
    """(canonical bytes, None), (None, why held back), or (None, None) when the file went away meanwhile."""
    try:
        raw = read_bytes(local, MAX_FILE)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    return canonical(kind, raw, path)


# The stat cache holds numbers only: a path by its kind, date and id, the blob id as an integer. The writer redacts
# every string of what it writes (brain/util/files.py); a cache of 10,000 paths and blob ids as text cost it a
# second and a half each time, for strings that cannot hold a secret.
_KINDS = (CHUNK, ARCHIVED, AUDIT, EPISODE, BURIED)
_FIELDS = 7  # kind, day, id tail, size, mtime, blob id, digest


def _path_numbers(path: str) -> list:
    kind = kind_of(path)
    name = path.rsplit("/", 1)[-1]
    if kind in (CHUNK, ARCHIVED):
        day, tail = name[6:16], name[17:25]
        return [_KINDS.index(kind), int(day.replace("-", "")), int(tail, 16)]
    if kind in (AUDIT, EPISODE):
        return [_KINDS.index(kind), int(name.split(".")[0].replace("-", "")), 0]
    return [_KINDS.index(kind), 0, 0]


def _numbers_path(kind: int, day: int, tail: int) -> str:
    kind = _KINDS[kind]
    if kind in (CHUNK, ARCHIVED):
        text = f"{day:08d}"
        cid = f"chunk-{text[:4]}-{text[4:6]}-{text[6:]}-{tail:08x}"
        return live_path(cid) if kind == CHUNK else archive_path(cid)
    if kind == AUDIT:
        text = f"{day:06d}"
        return f"audit/{text[:4]}-{text[4:]}.jsonl"
    if kind == EPISODE:
        text = f"{day:08d}"
        return f"episodes/{text[:4]}-{text[4:6]}-{text[6:]}.md"
    return TOMBSTONE_PATH


def _cache_path(root) -> str:
    return os.path.join(os.fspath(root), "state", FILES_CACHE)


def read_cache(root) -> Scan:
    """The scan last saved (empty when there is none, or it cannot be read: every file is then read)."""
    out = Scan()
    try:
        lines = read_bytes(_cache_path(root)).decode("ascii").split("\n")
        version, taken = lines[0].split()
        if version != "rlm-mem-sync-files/2":
            return Scan()
        for line in lines[1:]:
            if line:
                kind, day, tail, size, mtime, oid, digest = (int(x) for x in line.split())
                out.files[_numbers_path(kind, day, tail)] = [size, mtime, f"{oid:040x}", digest]
        out.taken = int(taken)
    except (OSError, ValueError, UnicodeDecodeError, IndexError):
        return Scan()
    return out


def _encode(value: dict) -> bytes:
    rows = value["files"]
    body = "\n".join(" ".join(map(str, rows[i:i + _FIELDS])) for i in range(0, len(rows), _FIELDS))
    return f"{value['format']} {value['taken']}\n{body}\n".encode("ascii")


def save_cache(root, result: Scan) -> None:
    """Remember what was scanned: a file whose size and mtime stay the same is not read next time. (One flat list
    of numbers: what the writer's redaction walks is a list of integers.)"""
    flat = []
    for path, (size, mtime, oid, digest) in result.files.items():
        flat += [*_path_numbers(path), size, mtime, int(oid, 16), digest]
    atomic_write_encoded(_cache_path(root), {"format": "rlm-mem-sync-files/2", "taken": result.taken,
                                             "files": flat}, _encode)


def now_ns() -> int:
    return time.time_ns()
