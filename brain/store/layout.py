"""Where each file of a memory root lives, and reading chunk files safely.

chunks/YYYY-MM/<id>.json (the source of truth), archive/<id>.json (soft-deleted), index/ (derived), state/
(runtime). An id is validated before any path is built from it; no folder between the root and a chunk file may
be a symbolic link (the store never writes or reads through one out of itself); a chunk file is read only if it
is a regular file whose JSON matches the schema and whose id matches its name, else it is logged and skipped.
"""
import json
import logging
import os
import stat
from pathlib import Path

from brain.store.chunk import month_of, validate_chunk_id
from brain.store.validation import schema_errors
from brain.util.errors import ChunkNotFound, InvalidChunkId, StoreUnwritable
from brain.util.files import ensure_dir, refuse_links

# SQLite opens these itself (following links): each is checked before a write session opens the index.
SQLITE_FILES = ("search.db", "search.db-wal", "search.db-shm", "search.db-journal")

log = logging.getLogger("rlm_mem")

# How a chunk file is opened for reading: never through a link, and a FIFO in a chunk's place (refused by the
# fstat after the open) is never waited on.
READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


def _read_all(fd: int, size: int) -> bytes:
    """The file's bytes through its descriptor: usually one read of its size (a buffered file costs more)."""
    parts = []
    while True:
        part = os.read(fd, max(size, 65536))
        if not part:
            return b"".join(parts)
        parts.append(part)


class StoreLayout:
    """The paths of one memory root (the folder holding chunks/, index/, archive/)."""

    def __init__(self, root):
        self.root = Path(root).expanduser()
        self.chunks_dir = self.root / "chunks"
        self.index_dir = self.root / "index"
        self.archive_dir = self.root / "archive"
        self.state_dir = self.root / "state"

    def chunk_path(self, chunk_id: str) -> Path:
        validate_chunk_id(chunk_id)
        return self.chunks_dir / month_of(chunk_id) / f"{chunk_id}.json"

    def archive_path(self, chunk_id: str) -> Path:
        validate_chunk_id(chunk_id)
        return self.archive_dir / f"{chunk_id}.json"

    def relpath(self, path: Path) -> str:
        return Path(path).relative_to(self.root).as_posix()

    def ensure(self) -> None:
        """Create chunks/, index/ and archive/ (owner-only); StoreUnwritable when that fails or one is a link."""
        try:
            for folder in (self.chunks_dir, self.index_dir, self.archive_dir):
                ensure_dir(folder)
        except OSError as exc:
            raise StoreUnwritable(f"cannot create the memory folder {self.root}: {exc.strerror or exc}") from exc
        for folder in (self.chunks_dir, self.index_dir, self.archive_dir):
            self.refuse_link(folder)
        for name in SQLITE_FILES:
            refuse_links(self.index_dir / name)

    def inside(self, path: Path) -> bool:
        """No folder between the root and `path` is a symbolic link: the store never follows one out of itself."""
        return not any(p.is_symlink() for p in Path(path).parents if self.root in p.parents)

    def refuse_link(self, path: Path) -> None:
        if Path(path).is_symlink() or not self.inside(path):
            raise StoreUnwritable(f"{path} is (or is inside) a symbolic link; rlm-mem does not write through links "
                                  "(see `rlm-mem doctor`)")

    # ---------------------------------------------------------------- reading
    def read_file(self, path: Path, *, validate: bool = True) -> dict | None:
        """A chunk file as a dict, or None (logged) when it is missing, a symlink, corrupt or invalid."""
        if not self.inside(path):
            log.warning("skipping %s: it is reached through a symbolic link", path)
            return None
        return self.read_listed(path, validate=validate)[0]

    def read_listed(self, path, *, validate: bool = True) -> tuple:
        """(chunk or None, mtime_ns) of a file whose folders are known to hold no link (read_file checks them; a
        path from iter_chunk_entries had its month folder checked): opened without following a link, a regular
        file, JSON matching the schema, its id its name."""
        try:
            fd = os.open(path, READ_FLAGS)
        except FileNotFoundError:
            return None, 0
        except OSError as exc:
            log.warning("skipping %s: %s", path, exc.strerror or exc)
            return None, 0
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                log.warning("skipping %s: not a regular file", path)
                return None, 0
            data = json.loads(_read_all(fd, st.st_size).decode("utf-8"))
        except (OSError, ValueError) as exc:
            log.warning("skipping corrupt chunk file %s: %s", path, exc)
            return None, 0
        finally:
            os.close(fd)
        if validate:
            errors = schema_errors("chunk", data)
            if errors:
                log.warning("skipping invalid chunk file %s: %s", path, "; ".join(errors[:3]))
                return None, 0
        if not isinstance(data, dict) or data.get("id") != os.path.basename(path)[:-5]:
            log.warning("skipping %s: its id does not match its file name", path)
            return None, 0
        return data, st.st_mtime_ns

    def count_chunk_entries(self) -> int:
        """How many files iter_chunk_entries gives (listings only)."""
        return sum(1 for _ in self.iter_chunk_entries())

    def iter_chunk_entries(self):
        """(path, path relative to the root) of every chunks/YYYY-MM/chunk-*.json, in iter_chunk_paths' order,
        by directory listing: the folders are checked for links once, not for every file (a rebuild lists
        100,000). Read them with read_listed."""
        if not self.chunks_dir.is_dir() or self.chunks_dir.is_symlink():
            return
        with os.scandir(self.chunks_dir) as months:
            folders = sorted(e.name for e in months if e.is_dir(follow_symlinks=False))
        for month in folders:
            folder = os.path.join(self.chunks_dir, month)
            try:
                names = sorted(n for n in os.listdir(folder) if n.startswith("chunk-") and n.endswith(".json"))
            except OSError:
                continue
            for name in names:
                yield os.path.join(folder, name), f"chunks/{month}/{name}"

    def read_chunk(self, chunk_id: str, *, include_archived: bool = False) -> dict | None:
        data = self.read_file(self.chunk_path(chunk_id))
        if data is None and include_archived:
            data = self.read_file(self.archive_path(chunk_id))
        return data

    def is_archived(self, chunk_id: str) -> bool:
        return self.archive_path(chunk_id).is_file()

    def exists(self, chunk_id: str) -> bool:
        """Whether the id is taken, live or archived."""
        return self.chunk_path(chunk_id).exists() or self.archive_path(chunk_id).exists()

    def iter_chunk_paths(self):
        if not self.chunks_dir.is_dir():
            return
        for month in sorted(self.chunks_dir.iterdir()):
            if month.is_dir() and not month.is_symlink():
                yield from sorted(p for p in month.glob("chunk-*.json"))

    def iter_archive_paths(self):
        if self.archive_dir.is_dir():
            yield from sorted(self.archive_dir.glob("chunk-*.json"))

    def iter_chunks(self, *, archived: bool = False, validate: bool = True):
        paths = self.iter_archive_paths() if archived else self.iter_chunk_paths()
        for path in paths:
            data = self.read_file(path, validate=validate)
            if data is not None:
                yield data

    def full_id(self, ref: str) -> str:
        """A full id from a full id or its 8-hex tail (recalled context shows the tail under the day)."""
        if isinstance(ref, str) and len(ref) == 8 and all(c in "0123456789abcdef" for c in ref):
            found = sorted({p.stem for p in (*self.chunks_dir.glob(f"*/chunk-*-{ref}.json"),
                                              *self.archive_dir.glob(f"chunk-*-{ref}.json"))})
            if len(found) == 1:
                return found[0]
            if found:
                raise InvalidChunkId(f"{ref} matches several chunks ({', '.join(found)}); give the full id")
            raise ChunkNotFound(f"no chunk ends in {ref}")
        return validate_chunk_id(ref)
