"""`rlm-mem doctor`: check a memory store end to end, and repair what can be repaired.

The check reads everything and changes nothing. It runs under the store lock (when the lock can be taken) so a
writer is never caught half-way. Every file in the store is looked at: every chunk file (parses, matches the
schema, file name = id, month folder = id), the archive, the JSON indexes and the search index against the chunk
files, links, temporary files left by a killed writer, access counts (log and state), the audit log (each line an
audit entry), the episode log, the files under state/ (the HUD, queue entries, capture offsets, briefs, tombstones),
anything that is not a regular file (a FIFO, a device: never opened), symbolic links (reported, never followed) and
permissions. A file rlm-mem does not know is listed in the notes.

Repair never deletes a memory: a chunk file that cannot be read moves to quarantine/ (audited), a misplaced one
moves to its place, dangling links are dropped (audited), stale temp files are removed, permissions are tightened,
a link to a file, something that is not a file and a damaged state file move to quarantine/ (state is runtime data,
made again), a log with lines that cannot be read keeps its readable lines (the original goes to quarantine/), and
everything derived is rebuilt with `reindex`.
"""
import json
import os
import sqlite3
import stat
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from brain.index import access, json_indexes, search_index
from brain.index.json_indexes import JsonIndexes
from brain.store.audit import audit, audit_entry
from brain.store.build import DORMANT, TOMBSTONES, tombstone_token
from brain.store.chunk import is_chunk_id, month_of
from brain.store.layout import READ_FLAGS
from brain.store.validation import schema_errors
from brain.util.errors import StoreUnwritable
from brain.util.files import TMP_PREFIX, atomic_write_json, atomic_write_text, ensure_dir, read_bytes, store_lock

QUARANTINE_DIR = "quarantine"
# Files under state/ and what each must hold: "object" (a JSON object), or the fields a JSON object must have.
STATE_FILES = {"hud.json": "object", "garden.json": "object", "core.json": "object", "reflect.json": "object",
               "queue/*.json": ("transcript_path",), "captured/*.json": ("offset",), "brief/*.json": "object",
               "sync.json": "object"}
STATE_TEXT = ("capture-failures.log", "*.lock", ".*.lock", "sync-files.txt")  # free text or empty
TEMP_GRACE_SECONDS = 60  # a younger temp file may belong to a write in progress
SHOWN_IDS = 5  # ids listed in one message; the rest are counted


@dataclass
class Problem:
    """One thing wrong; `fix` is what repair does about it (None: a person must)."""

    code: str
    message: str
    path: str | None = None  # relative to the store root
    chunk_id: str | None = None
    fixable: bool = True
    fix: tuple | None = field(default=None, repr=False, compare=False)  # what repair does (absolute paths)

    def to_dict(self) -> dict:
        return {"code": self.code, "message": self.message, "path": self.path, "chunk_id": self.chunk_id,
                "fixable": self.fixable}


@dataclass
class Report:
    """What a check found (and, after a repair, what it did)."""

    root: str
    exists: bool
    counts: dict = field(default_factory=dict)
    problems: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    repairs: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict:
        return {"root": self.root, "exists": self.exists, "ok": self.ok, "counts": self.counts,
                "problems": [p.to_dict() for p in self.problems], "notes": self.notes, "repairs": self.repairs}


def _ids(ids) -> str:
    ids = sorted(ids)
    shown = ", ".join(ids[:SHOWN_IDS])
    return shown + (f" and {len(ids) - SHOWN_IDS} more" if len(ids) > SHOWN_IDS else "")


def _difference(want: dict, have: dict) -> list:
    """What an index (`have`, id -> entry) gets wrong against the chunk files (`want`)."""
    parts, stale = [], [cid for cid in set(want) & set(have) if want[cid] != have[cid]]
    if set(want) - set(have):
        parts.append(f"misses {_ids(set(want) - set(have))}")
    if set(have) - set(want):
        parts.append(f"lists {_ids(set(have) - set(want))} without a readable chunk file")
    if stale:
        parts.append(f"is out of date for {_ids(stale)}")
    return parts


def load_chunk_file(path: Path):
    """(chunk dict, None) or (None, (problem code, what is wrong)). Never follows a symbolic link."""

    try:  # never blocks: a FIFO in place of a chunk file is refused by the fstat below
        fd = os.open(path, READ_FLAGS)
    except OSError as exc:
        return None, ("unreadable_chunk", f"cannot be opened: {exc.strerror or exc}")
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return None, ("unreadable_chunk", "is not a regular file")
        raw = fh.read()
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return None, ("corrupt_chunk", f"is not valid JSON ({str(exc)[:120]})")
    errors = schema_errors("chunk", data)
    if errors:
        return None, ("invalid_chunk", "does not match the chunk schema: " + "; ".join(errors[:3]))
    return data, None


class _Inspection:
    """One pass over a store; fills a Report with problems that carry their fixes."""

    def __init__(self, store, now: float | None = None):
        self.store = store
        self.now = now  # the time temp files' ages are measured at (None: when the walk runs)
        self.root = Path(store.root)
        self.report = Report(root=str(self.root), exists=self.root.is_dir())
        self.live: dict = {}  # id -> (path, data): the chunk files that stay (after repair) under chunks/
        self.archived: dict = {}  # id -> (path, data) under archive/
        self.reindex_view: dict = {}  # id -> (data, relpath): exactly what `reindex` would index
        self.files: list = []  # every regular file found (not under quarantine/), for the checks by kind

    def rel(self, path: Path) -> str:
        try:
            return Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def problem(self, code, message, path=None, chunk_id=None, fix=None, fixable=None):
        self.report.problems.append(Problem(code, message, self.rel(path) if path else None, chunk_id,
                                            fix is not None if fixable is None else fixable, fix))

    def run(self) -> Report:
        if not self.report.exists:
            return self.report
        self.walk()
        self.scan_chunks()
        self.scan_archive()
        self.check_json_indexes()
        self.check_search_index()
        self.check_links()
        self.check_access()
        self.check_logs_and_state()
        self.report.counts.update(chunks=len(self.live), archived=len(self.archived))
        return self.report

    # ---------------------------------------------------------------- the whole tree: links, modes, temp files
    def walk(self) -> None:
        quarantine = self.root / QUARANTINE_DIR
        young_temps, quarantined, now = 0, 0, time.time() if self.now is None else self.now
        self._check_mode(self.root, os.stat(self.root))
        stack = [self.root]
        while stack:
            folder = stack.pop()
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError as exc:
                self.problem("unreadable_folder", f"cannot be listed: {exc.strerror or exc}", folder,
                             fixable=False)
                continue
            in_quarantine = folder == quarantine or quarantine in Path(folder).parents
            for entry in entries:
                path = Path(entry.path)
                if entry.name in (".git", "sync") and folder == self.root and not entry.is_symlink():
                    continue  # a git repository (the store shared through git, or its sync's): git's own files
                if entry.is_symlink():
                    if not in_quarantine and not self._is_chunk_slot(path):  # chunk-file links: scan_chunks
                        self._link(path)
                    continue
                try:
                    st = entry.stat(follow_symlinks=False)
                except FileNotFoundError:  # removed while we looked (a reader folding its access log)
                    continue
                if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
                    if not in_quarantine:
                        self.problem("not_a_file", "is not a regular file or folder (a FIFO, a device or a socket); "
                                     "rlm-mem never opens it (repair moves it to quarantine/)", path,
                                     fix=("quarantine", path))
                    continue
                if stat.S_ISREG(st.st_mode) and not in_quarantine:
                    self.files.append(path)
                if entry.name.startswith(TMP_PREFIX) and not in_quarantine and entry.is_file(follow_symlinks=False):
                    if now - st.st_mtime > TEMP_GRACE_SECONDS:
                        self.problem("stray_temp", "is a temporary file left by an interrupted write", path,
                                     fix=("unlink", path))
                        continue  # removed by repair: its mode does not matter
                    young_temps += 1
                self._check_mode(path, st)
                if entry.is_dir(follow_symlinks=False):
                    stack.append(path)
                elif in_quarantine:
                    quarantined += 1
        if young_temps:
            self.report.notes.append(f"{young_temps} temporary file(s) younger than {TEMP_GRACE_SECONDS} s "
                                     "(a write in progress, or removed by a later repair)")
        if quarantined:
            self.report.notes.append(f"{quarantined} file(s) in {QUARANTINE_DIR}/ (set aside by an earlier repair; "
                                     "fix and move them back to chunks/, then `rlm-mem reindex`)")
        self.report.counts["quarantined"] = quarantined

    def _link(self, path: Path) -> None:
        """A link outside the chunk slots: a link to a file is set aside by repair (the link moves, its target is
        never touched); a linked folder is for a person to replace."""
        target = os.readlink(path)
        if path.is_dir():
            self.problem("symlink", f"is a symbolic link to {target}; rlm-mem does not follow links out of the store "
                         "(replace it with the real folder)", path, fixable=False)
        else:
            self.problem("symlink", f"is a symbolic link to {target}; rlm-mem never reads or writes through it "
                         "(repair moves the link to quarantine/; its target is left alone)", path,
                         fix=("quarantine", path))

    def _is_chunk_slot(self, path: Path) -> bool:
        parent = path.parent
        return path.name.startswith("chunk-") and path.suffix == ".json" and (
            parent in (self.store.archive_dir, self.store.chunks_dir) or parent.parent == self.store.chunks_dir)

    def _check_mode(self, path: Path, st) -> None:
        if stat.S_IMODE(st.st_mode) & 0o077:
            kind = "folder" if stat.S_ISDIR(st.st_mode) else "file"
            self.problem("permissions", f"{kind} mode is {stat.S_IMODE(st.st_mode):o}; memories are personal, "
                         "so only the owner may read them", path,
                         fix=("chmod", path, stat.S_IMODE(st.st_mode) & 0o700))

    # ---------------------------------------------------------------- chunk files
    def _candidates(self, folder: Path):
        """chunk-*.json entries of one folder (symlinks included: they are reported, never opened)."""
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return []
        return [Path(e.path) for e in entries if e.name.startswith("chunk-") and e.name.endswith(".json")
                and (e.is_symlink() or e.is_file(follow_symlinks=False))]

    def _load(self, path: Path):
        if path.is_symlink():
            self.problem("symlink", f"chunk file is a symbolic link to {os.readlink(path)}; it is skipped "
                         "(repair moves the link to quarantine/)", path, fix=("quarantine", path))
            return None
        data, error = load_chunk_file(path)
        if error:
            self.problem(error[0], f"chunk file {error[1]}", path, path.stem if is_chunk_id(path.stem) else None,
                         fix=("quarantine", path))
        return data

    def scan_chunks(self) -> None:
        chunks_dir = self.store.chunks_dir
        if not chunks_dir.is_dir() or chunks_dir.is_symlink():
            return
        placed, astray = [], []
        for month in sorted(p for p in chunks_dir.iterdir() if p.is_dir() and not p.is_symlink()):
            for path in self._candidates(month):
                data = self._load(path)
                if data is None:
                    continue
                if data["id"] == path.stem:  # what reindex indexes, wherever the month folder is
                    self.reindex_view[path.stem] = (data, self.rel(path))
                right = data["id"] == path.stem and month.name == month_of(data["id"])
                (placed if right else astray).append((path, data))
        astray += [(p, d) for p in self._candidates(chunks_dir) if (d := self._load(p)) is not None]
        for path, data in placed:
            self.live[data["id"]] = (path, data)
        for path, data in astray:
            self._place(path, data, self.live, self.store.layout.chunk_path(data["id"]))

    def scan_archive(self) -> None:
        folder = self.store.archive_dir
        if not folder.is_dir() or folder.is_symlink():
            return
        astray = []
        for path in self._candidates(folder):
            data = self._load(path)
            if data is None:
                continue
            if data["id"] != path.stem:
                astray.append((path, data))
            elif data["id"] in self.live:
                self.problem("duplicate_chunk", f"archived copy of the live chunk {data['id']} (repair moves the "
                             "archived copy to quarantine/)", path, data["id"], fix=("quarantine", path))
            else:
                self.archived[data["id"]] = (path, data)
        for path, data in astray:
            self._place(path, data, self.archived, self.store.layout.archive_path(data["id"]))

    def _place(self, path: Path, data: dict, claimed: dict, dest: Path) -> None:
        cid = data["id"]
        if cid in claimed or cid in self.live or dest.exists() or dest.is_symlink():
            self.problem("duplicate_chunk", f"holds chunk {cid}, which another file already holds (repair moves "
                         "this copy to quarantine/)", path, cid, fix=("quarantine", path))
            return
        what = "file name" if cid != path.stem else "month folder"
        self.problem("misplaced_chunk", f"holds chunk {cid} but its {what} does not match the id (repair moves "
                     f"it to {self.rel(dest)})", path, cid, fix=("move", path, dest))
        claimed[cid] = (dest, data)

    # ---------------------------------------------------------------- derived data
    def expected_indexes(self) -> JsonIndexes:
        indexes = JsonIndexes(self.store.index_dir)
        for data, rel in self.reindex_view.values():
            indexes.add(data, rel)
        return indexes

    def json_indexes_behind(self) -> bool:
        """Whether the JSON files were last written from an earlier state of the search index (or never): they
        are derived and the background pass rewrites them (json_indexes.py), so there is nothing to compare. Files
        that claim the current state are compared byte for byte (a hand edit, a torn copy)."""
        try:
            conn = search_index.connect(self.root, readonly=True)
            if conn is None:
                return False
            try:
                epoch, generation = search_index.generation(conn)
            finally:
                conn.close()
        except (sqlite3.Error, ValueError):
            return False  # check_search_index reports it
        state = json_indexes.read_state(self.store.index_dir)
        return (state.get("epoch"), state.get("generation")) != (epoch, generation)

    def check_json_indexes(self) -> None:
        if self.json_indexes_behind():
            self.report.notes.append("the JSON index files are behind the latest writes; the background pass "
                                     "brings them current (`rlm-mem share refresh` does it now)")
            return
        expected = self.expected_indexes()
        for name, text in expected.dumps().items():
            path = self.store.index_dir / name
            try:
                actual = read_bytes(path).decode("utf-8", errors="replace")
            except FileNotFoundError:
                if self.reindex_view:
                    self.problem("json_index", "is missing (repair rebuilds it)", path, fix=("rebuild",))
                continue
            except OSError as exc:
                self.problem("json_index", f"cannot be read: {exc.strerror or exc}", path, fix=("rebuild",))
                continue
            if actual != text:
                self.problem("json_index", self._index_difference(name, actual, expected) + " (repair rebuilds it)",
                             path, fix=("rebuild",))

    def _index_difference(self, name: str, actual: str, expected: JsonIndexes) -> str:
        try:
            value = json.loads(actual)
        except ValueError:
            return "is not valid JSON"
        if name != "metadata_index.json" or not isinstance(value, dict) or not isinstance(value.get("chunks"), dict):
            return "does not match the chunk files"
        parts = _difference(json.loads(json.dumps(expected.metadata)), value["chunks"])
        return "; ".join(parts) or "is not in canonical form"

    def check_search_index(self) -> None:
        path = Path(search_index.db_path(self.root))
        if not path.is_file():
            if self.reindex_view:
                self.problem("search_index", "is missing (repair rebuilds it)", path, fix=("rebuild",))
            return
        conn, readonly = None, False
        try:
            try:
                conn = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=10, isolation_level=None)
            except sqlite3.OperationalError:  # a read-only store can still be checked, minus the FTS check
                conn, readonly = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10,
                                                 isolation_level=None), True
            self._compare_search_index(conn, path, readonly)
        except sqlite3.DatabaseError as exc:
            self.problem("search_index", f"cannot be read ({exc}); repair rebuilds it", path, fix=("rebuild",))
        finally:
            if conn is not None:
                conn.close()

    def _compare_search_index(self, conn, path: Path, readonly: bool) -> None:
        verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
        if verdict != "ok":
            self.problem("search_index", f"is damaged ({verdict}); repair rebuilds it", path, fix=("rebuild",))
            return
        rows = {cid: (rel, chash) for cid, rel, chash in conn.execute("SELECT id, path, chash FROM chunks")}
        want = {cid: (rel, search_index.content_hash(d["content"])) for cid, (d, rel) in self.reindex_view.items()}
        parts = _difference(want, rows)
        links = set(conn.execute("SELECT src, type, dst FROM links"))
        want_links = {(cid, t, dst) for cid, (d, _) in self.reindex_view.items()
                      for t, targets in d["links"].items() for dst in targets}
        if links != want_links:
            parts.append(f"has {len(want_links - links)} link(s) missing and {len(links - want_links)} extra")
        kept = search_index.chunk_count(conn)
        if kept != len(rows):  # hooks show it and weigh words by it
            parts.append(f"counts {kept} chunks for {len(rows)} rows")
        if parts:
            self.problem("search_index", "; ".join(parts) + " (repair rebuilds it)", path, fix=("rebuild",))
        if readonly:
            self.report.notes.append("the search index is read-only here: its full-text integrity was not checked")
            return
        for statement in ("INSERT INTO fts(fts) VALUES('integrity-check')",
                          "INSERT INTO fts(fts, rank) VALUES('integrity-check', 1)"):  # also against its content
            try:
                conn.execute(statement)
            except sqlite3.DatabaseError as exc:
                self.problem("search_index", f"full-text index is inconsistent ({exc}); repair rebuilds it", path,
                             fix=("rebuild",))
                return

    # ---------------------------------------------------------------- links and access state
    def check_links(self) -> None:
        known = set(self.live) | set(self.archived)
        for where, chunks in (("chunk", self.live), ("archived chunk", self.archived)):
            for cid, (path, data) in sorted(chunks.items()):
                dangling = {t: [x for x in targets if x not in known]
                            for t, targets in data["links"].items() if t != "context_of"}  # context_of: conv ids
                dangling = {t: xs for t, xs in dangling.items() if xs}
                if dangling:
                    shown = "; ".join(f"{t} → {_ids(xs)}" for t, xs in dangling.items())
                    self.problem("dangling_link", f"{where} {cid} links to chunks that do not exist: {shown}",
                                 path, cid, fix=("drop_links", cid, chunks is self.archived, dangling))

    def check_access(self) -> None:
        known = set(self.live) | set(self.archived)
        unknown, log = set(), access.log_path(self.root)
        for path in (log, log.with_suffix(".folding")):
            if path.is_symlink() or not path.is_file():
                continue
            if path.suffix == ".folding":
                self.problem("access_log", "is left from an interrupted fold of access counts (repair folds it)",
                             path, fix=("rebuild",))
            bad = 0
            for line in read_bytes(path).decode("utf-8", errors="replace").splitlines():
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                except ValueError:
                    entry = None
                if entry is None or schema_errors("access_log_entry", entry):
                    bad += 1
                    continue
                unknown.update(i for i in entry["ids"] if i not in known)
            if bad:
                self.problem("access_log", f"has {bad} line(s) that cannot be read (repair folds the log and drops "
                             "them)", path, fix=("rebuild",))
        unknown |= self._check_access_state(known)
        if unknown:
            self.report.notes.append(f"the access counts mention {len(unknown)} chunk(s) that no longer exist "
                                     "(harmless)")

    # ---------------------------------------------------------------- logs, state and everything else
    def check_logs_and_state(self) -> None:
        unknown = []
        for path in self.files:
            parts = Path(self.rel(path)).parts
            top, name = parts[0], parts[-1]
            if top in ("chunks", "archive", "index"):
                continue  # checked above (a stray file there is harmless to every reader)
            if top == "audit" and len(parts) == 2 and name.endswith(".jsonl"):
                self._check_lines(path, "audit_log", self._audit_line)
            elif top == "episodes" and len(parts) == 2 and name.endswith(".md"):
                self._check_text(path, "episode_log")
            elif top == "state":
                self._check_state(path, parts[1:], unknown)
            elif len(parts) == 1 and name in ("CORE.md", "REFLECTION.md", ".gitignore", ".gitattributes"):
                self._check_text(path, "text_file")
            else:
                unknown.append(self.rel(path))
        if unknown:
            self.report.notes.append(f"{len(unknown)} file(s) rlm-mem does not know (left as they are): "
                                     + ", ".join(sorted(unknown)[:SHOWN_IDS]) + (" ..." if len(unknown) > SHOWN_IDS
                                                                                 else ""))

    def _read(self, path: Path, code: str):
        try:
            return read_bytes(path).decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            self.problem(code, f"cannot be read as UTF-8 text ({getattr(exc, 'strerror', None) or exc}) "
                         "(repair moves it to quarantine/)", path, fix=("quarantine", path))
            return None

    def _check_text(self, path: Path, code: str) -> None:
        self._read(path, code)

    @staticmethod
    def _audit_line(line: str) -> bool:
        return audit_entry(line) is not None

    @staticmethod
    def _tombstone_line(line: str) -> bool:
        """Ids deleted for good, and the capture keys of those that were captured."""
        return all(tombstone_token(t) for t in line.split())

    def _check_lines(self, path: Path, code: str, good) -> None:
        """A line-per-record file: repair keeps the readable lines and sets the original aside."""
        text = self._read(path, code)
        if text is None:
            return
        lines = [line for line in text.splitlines() if line.strip()]
        kept = [line for line in lines if good(line)]
        if len(kept) < len(lines):
            self.problem(code, f"has {len(lines) - len(kept)} line(s) that cannot be read (repair keeps the "
                         f"{len(kept)} readable one(s) and moves the file to quarantine/)", path,
                         fix=("keep_lines", path, kept))

    def _check_state(self, path: Path, inside: tuple, unknown: list) -> None:
        rel = "/".join(inside)
        if rel == TOMBSTONES:
            self._check_lines(path, "state_file", self._tombstone_line)
            return
        if rel == DORMANT:
            self._check_lines(path, "state_file", lambda line: all(is_chunk_id(t) for t in line.split()))
            return
        if any(Path(rel).match(pattern) for pattern in STATE_TEXT):
            self._check_text(path, "state_file")
            return
        want = next((w for pattern, w in STATE_FILES.items() if Path(rel).match(pattern)
                     and len(Path(pattern).parts) == len(inside)), None)
        if want is None:
            unknown.append(self.rel(path))
            return
        text = self._read(path, "state_file")
        if text is None:
            return
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if not isinstance(value, dict) or (want != "object" and not all(k in value for k in want)):
            self.problem("state_file", "is not what rlm-mem keeps there (damaged or foreign); it is runtime state, "
                         "so repair moves it to quarantine/ and rlm-mem makes it again", path,
                         fix=("quarantine", path))

    def _check_access_state(self, known: set) -> set:
        """index/access_state.json (counts kept out of git's way): readable, or set aside by repair."""
        path = access.state_path(self.root)
        if path.is_symlink() or not path.exists():
            return set()
        try:
            entries = json.loads(read_bytes(path).decode("utf-8"))["entries"]
            if not isinstance(entries, dict) or not all(
                    isinstance(v, list) and len(v) == 2 and isinstance(v[0], int) and v[0] >= 0
                    and isinstance(v[1], (str, type(None))) for v in entries.values()):
                raise ValueError("unexpected shape")
        except (OSError, ValueError, KeyError, TypeError):
            self.problem("access_state", "cannot be read, so the access counts it holds are ignored (repair moves "
                         "it to quarantine/ and counting starts again)", path, fix=("quarantine", path))
            return set()
        return set(entries) - known


def _locked(store):
    return store_lock(store.root, store.lock_timeout)


def check_store(store, *, now: float | None = None) -> Report:
    """Inspect the store (read-only) and report every problem; under the store lock when it can be taken."""
    root = Path(store.root)
    if root.exists() and not root.is_dir():
        raise StoreUnwritable(f"the memory root {root} is not a folder")
    if not root.is_dir():
        return _Inspection(store, now).run()
    with ExitStack() as stack:
        unlocked = False
        try:
            stack.enter_context(_locked(store))
        except StoreUnwritable:  # a read-only store can still be checked, without the lock
            unlocked = True
        report = _Inspection(store, now).run()
    if unlocked:
        report.notes.append("the store could not be locked (read-only?): it was checked without the lock")
    return report


def repair_store(store) -> Report:
    """Fix what can be fixed, rebuild the derived data, and return a fresh check listing what was done."""
    root = Path(store.root)
    if not root.is_dir():
        return check_store(store)
    done: list = []
    started = time.time()
    with _locked(store):
        found = _Inspection(store, started).run()
        for problem in found.problems:
            if problem.fix and problem.fix[0] != "rebuild":
                _apply(store, problem, done)
    result = store.reindex()  # takes the lock itself; folds access counts, rebuilds every index
    done.append(f"rebuilt the indexes from {result['chunks']} chunk file(s)")
    # Temp files' ages as at the start: one too young to remove then is still young in this report, however long
    # the rebuild took (at 10,000 chunks a temp file 58 s old turned into a problem repair had left in place).
    report = check_store(store, now=started)
    report.repairs = done
    return report


def _rel(store, path: Path) -> str:
    try:
        return Path(path).relative_to(store.root).as_posix()
    except ValueError:
        return str(path)


def _quarantine(store, path: Path, problem: Problem, done: list, *, replace_with: str | None = None) -> None:
    """Move `path` (a file, a link, a FIFO: never opened) to quarantine/; `replace_with`: text put in its place
    before the move is audited (the audit line may belong in that very file)."""
    folder = ensure_dir(Path(store.root) / QUARANTINE_DIR)
    dest, n = folder / path.name, 1
    while dest.exists() or dest.is_symlink():  # never overwrite something set aside before
        dest, n = folder / f"{path.stem}.{n}{path.suffix}", n + 1
    os.replace(path, dest)
    if replace_with is not None:
        atomic_write_text(path, replace_with)
    audit(store.root, "quarantine", problem.chunk_id, actor=store.actor, reason=problem.message[:300],
          details={"from": _rel(store, path), "to": _rel(store, dest), "problem": problem.code})
    done.append(f"moved {_rel(store, path)} to {_rel(store, dest)} ({problem.code})")


def _apply(store, problem: Problem, done: list) -> None:
    kind, *args = problem.fix
    if kind == "quarantine":
        _quarantine(store, args[0], problem, done)
    elif kind == "move":
        src, dest = args
        if dest.exists() or dest.is_symlink():
            _quarantine(store, src, problem, done)
            return
        ensure_dir(dest.parent)
        os.replace(src, dest)
        audit(store.root, "repair", problem.chunk_id, actor=store.actor, reason="misplaced chunk file",
              details={"from": _rel(store, src), "to": _rel(store, dest)})
        done.append(f"moved {_rel(store, src)} to {_rel(store, dest)}")
    elif kind == "keep_lines":
        path, kept = args
        _quarantine(store, path, problem, done, replace_with="".join(line + "\n" for line in kept))
        done.append(f"kept {len(kept)} readable line(s) of {_rel(store, path)}")
    elif kind == "unlink":
        try:
            os.unlink(args[0])
            done.append(f"removed the stale temporary file {_rel(store, args[0])}")
        except FileNotFoundError:
            pass
    elif kind == "chmod":
        if not args[0].is_symlink():
            os.chmod(args[0], args[1])
            done.append(f"set the mode of {_rel(store, args[0])} to {args[1]:o}")
    elif kind == "drop_links":
        cid, archived, dangling = args
        path = store.layout.archive_path(cid) if archived else store.layout.chunk_path(cid)
        data, error = load_chunk_file(path)
        if error:
            return
        data["links"] = {t: [x for x in targets if x not in dangling.get(t, ())]
                         for t, targets in data["links"].items()}
        atomic_write_json(path, data)
        audit(store.root, "repair", cid, actor=store.actor, reason="dropped links to chunks that do not exist",
              details={"dropped_links": dangling})
        done.append(f"dropped {sum(map(len, dangling.values()))} dangling link(s) from {cid}")
