"""Every file rlm-mem writes, and every file it reads back: the one boundary between the library and the disk.

Three promises hold for every call here, so no caller has to remember them:
- Nothing unredacted is written. The writers take values (JSON values, text) and pass every string in them, at
  any depth (dict keys included), through `brain/safety/redact.py` before serialising. JSON values are redacted in
  place, so a caller that indexes or reports the value afterwards holds exactly what went to disk. Two writers
  say in their names that they do not redact: `derived_stream`, for index files rebuilt from chunk files that
  were redacted when written, and `write_user_text`/`write_user_json`, for files that belong to the person (Claude
  Code's settings, a project's .rlm-mem.json, an export they asked for), where an API key they keep must stay.
  One caller may say a value is clean already: the bulk path writes a chunk `store/build` has just redacted at
  every depth without walking it again (`clean=True`, ChunkStore.create_many only).
  tests/test_trust.py checks who calls those, and that no other module opens a file for writing.
- Nothing is written through a symbolic link inside a memory root. A path under one of the root's folders
  (STORE_FOLDERS) or one of its files (STORE_FILES) may not pass through a link below the root, and appends open
  with O_NOFOLLOW: a link there (a committed `audit/2026-02.jsonl -> ~/.bashrc`) is StoreUnwritable, never
  followed. The root itself may be a link: that is the person's choice, not the store's content.
- Reads are bounded. `read_bytes`/`read_json`/`open_regular` open without blocking (a FIFO cannot hold a hook),
  refuse anything but a regular file (a device such as /dev/zero is NotRegularFile) and read at most a limit.

Every write is atomic (a temp file in the same folder, fsync, os.replace), so a reader or a crash never sees half
a file; read-modify-write sequences take one sidecar lock per store, always with a timeout; files are created
owner-readable only: memories are personal data. Hooks import this module, so it uses os.path and no
tempfile/pathlib (each costs milliseconds at start-up), and loads the redactor (with `re`) only for a string that
may hold a secret (`brain/safety/triggers.py`).
"""
import os
import stat
import sys

from brain.util import fastjson
from brain.util.errors import InputTooLarge, NotRegularFile, StoreBusy, StoreUnwritable

TMP_PREFIX = ".tmp-"
FILE_MODE = 0o600
DIR_MODE = 0o700
# The folders and files of a memory root: a path through one of them is inside a store (see _below_root).
STORE_FOLDERS = frozenset(("chunks", "archive", "index", "state", "audit", "episodes", "quarantine"))
STORE_FILES = frozenset(("CORE.md", "REFLECTION.md", ".gitignore", ".gitattributes"))
# What read_bytes reads at most unless told otherwise: a guard on memory (a regular file ends, so not on time).
MAX_READ = 256 * 1024 * 1024
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


# ---------------------------------------------------------------- redaction
def _may_hold_secret(value) -> bool:
    if isinstance(value, str):
        return _needs_the_rules(value)
    if isinstance(value, dict):
        return any(_may_hold_secret(k) or _may_hold_secret(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(_may_hold_secret(v) for v in value)
    return False


def _needs_the_rules(text: str) -> bool:
    if _plainly_clean(text):
        return False  # the prompt hook's access line (ids, a time), a session id: no trigger table loads
    from brain.safety.triggers import may_hold_secret  # for the first string it cannot tell: most hooks never do

    return may_hold_secret(text)


_HEX = frozenset("0123456789abcdef")
_DIGITS = frozenset("0123456789")


def _plainly_clean(text: str) -> bool:
    """A string whose whole shape no secret takes (redaction leaves it as it is): a chunk id
    (chunk-2026-11-28-1a2b3c4d), a UTC time (2026-11-28T12:00:00Z), a UUID (Claude Code's session ids) or a word of
    at most five letters (a key such as "t" or "ids"). What the hooks write is mostly these: checked here, the
    trigger tables (~0.4 ms) do not load for them."""
    n = len(text)
    if n <= 5:
        return text.isalpha() and text.isascii()
    if n == 25 and text.startswith("chunk-"):
        return _DIGITS.issuperset(text[6:10] + text[11:13] + text[14:16]) and text[10] == text[13] == text[16] == "-" \
            and _HEX.issuperset(text[17:])
    if n == 36:
        return text[8] == text[13] == text[18] == text[23] == "-" and _HEX.issuperset(text.replace("-", "")) \
            and text.count("-") == 4
    return n == 20 and text[10] == "T" and text[19] == "Z" and text[4] == text[7] == "-" and text[13] == text[16] == ":" \
        and _DIGITS.issuperset(text[:4] + text[5:7] + text[8:10] + text[11:13] + text[14:16] + text[17:19])


def redacted(value):
    """`value` with every string redacted at any depth (dicts and lists in place; see the module docstring)."""
    engine = sys.modules.get("brain.safety.redact")
    if engine is None:
        if not _may_hold_secret(value):
            return value  # ids, times, paths: the regex engine never loads on a hook's path for these
        from brain.safety import redact as engine  # (with `re`) only for a string that may hold a secret
    return engine.redact_value(value)


# ---------------------------------------------------------------- symbolic links
def _below_root(path: str):
    """The components of `path` from its memory root down (["state", "brief", "x.json"]) and the root, or
    (None, None) when the path is not inside a store. The root is where the last store folder on the path
    begins, so a store folder's name higher up (~/.local/state/…) does not move it."""
    parts = os.path.abspath(path).split(os.sep)
    if parts[-1] in STORE_FILES:
        return os.sep.join(parts[:-1]) or os.sep, parts[-1:]
    for i in range(len(parts) - 1, 0, -1):
        if parts[i] in STORE_FOLDERS:
            return os.sep.join(parts[:i]) or os.sep, parts[i:]
    return None, None


def refuse_links(path) -> None:
    """StoreUnwritable when a component of `path` below its memory root is a symbolic link (nothing is created).
    A path outside any store is not checked."""
    root, below = _below_root(os.fspath(path))
    if root is None:
        return
    current = root
    for part in below:
        current = os.path.join(current, part)
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            return  # nothing deeper exists yet
        except OSError as exc:
            raise StoreUnwritable(f"cannot check {current}: {exc.strerror or exc}") from exc
        if stat.S_ISLNK(mode):
            raise StoreUnwritable(f"{current} is a symbolic link; rlm-mem does not write through links in the "
                                  "memory folder (replace it with the real file or folder; see `rlm-mem doctor`)")


def ensure_dir(path):
    """Create `path` and missing parents, each owner-only (mkdir(parents=True) would make parents 0o777-umask).
    Inside a memory root no existing component may be a link."""
    text = os.fspath(path)
    refuse_links(text)
    if not os.path.isdir(text):
        parent = os.path.dirname(text.rstrip(os.sep))
        if parent and parent != text and not os.path.isdir(parent):
            ensure_dir(parent)
        try:
            os.mkdir(text, DIR_MODE)
        except FileExistsError:
            if not os.path.isdir(text):
                raise
    return path


# ---------------------------------------------------------------- writing
def _temp_file(folder: str):
    """A new, exclusive, owner-only temp file in `folder` (same file system as the target, so os.replace works)."""
    while True:
        name = os.path.join(folder, f"{TMP_PREFIX}{os.getpid()}-{os.urandom(6).hex()}")
        try:
            return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, FILE_MODE), name
        except FileExistsError:
            continue


class _AtomicStream:
    """A binary file to write `path` with, atomically: a temp file in the same folder, fsync, replace, folder fsync
    when the block ends without error; removed when it raises. (A class, not contextlib: hooks import this module.)"""

    def __init__(self, path, fsync: bool, *, checked: bool = False):
        self.path, self.fsync, self.checked = os.fspath(path), fsync, checked
        self.folder = os.path.dirname(self.path) or "."

    def __enter__(self):
        if not self.checked:
            ensure_dir(self.folder)
            refuse_links(self.path)
        elif os.path.islink(self.path):  # its folders checked already (BatchWriter.write): the file itself
            refuse_links(self.path)
        fd, self.tmp = _temp_file(self.folder)
        self.fh = os.fdopen(fd, "wb", buffering=1 << 16)
        return self.fh

    def __exit__(self, kind, error, trace):
        try:
            with self.fh:
                if kind is None:
                    self.fh.flush()
                    if self.fsync:
                        os.fsync(self.fh.fileno())
            if kind is None:
                os.chmod(self.tmp, FILE_MODE)
                os.replace(self.tmp, self.path)
        except BaseException:
            _unlink_quietly(self.tmp)
            raise
        if kind is not None:
            _unlink_quietly(self.tmp)
        elif self.fsync:  # the new directory entry too: a power cut must not lose a file reported as saved
            _fsync_dir(self.folder)
        return False


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _write_atomically(path, data: bytes, *, fsync: bool = True) -> None:
    with _AtomicStream(path, fsync) as fh:
        fh.write(data)


def _fsync_dir(folder: str) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse fsync on a directory; the file itself is synced
    finally:
        os.close(fd)


class BatchWriter:
    """Writes a batch of files atomically (a temp file, then os.replace) without waiting on the disk for each, then
    `finish` makes exactly those files and their folders durable before the caller reports the batch saved.

    Durable at once, not file by file: one fsync per file costs ~0.2 ms of kernel time on ext4 and ~0.5 ms of
    waiting (a journal commit each). A batch of at least SYNCFS_MIN files is made durable by one syncfs(2) of their
    file system (Linux): 5,000 chunk files in ~0.35 s instead of ~1 s on eight threads, with no thread beside the
    caller's Python and SQLite (bench/README.md). syncfs also flushes what other programs wrote to that file system,
    hence the floor: a small batch (a session's capture) fsyncs its own files on a few threads, as does a system
    where syncfs cannot be trusted (see _syncfs). A crash before `finish` can leave a renamed file empty, as a
    per-file fsync after the rename would; nothing of the batch was reported saved, and the store's next write
    re-indexes what is on disk.
    A long batch (more than HELPER_AFTER files) on a machine with a second CPU hands the rest of its files to a
    helper process (brain/util/file_helper.py), which creates them while the caller indexes the next chunk.
    Values are redacted in the caller's thread, in place, like atomic_write_encoded's, unless the caller says
    (`clean`) that it redacted every string of the value itself."""

    SYNCFS_MIN = 64
    THREADS = 8
    HELPER_AFTER = 128  # None: never

    def __init__(self):
        self._mtimes = {}  # path -> mtime (ns) of each file written
        self._folders = set()
        self._error = None  # the first OSError: finish raises it (the session then removes what it wrote)
        self._helper = None  # the helper process, once started
        self._sent = 0

    def write(self, path, value, encode, *, clean: bool = False) -> None:
        """Write `encode(value)` (bytes) to `path`, `value` redacted first unless `clean`; durable only after
        `finish`."""
        path = os.fspath(path)
        data = encode(value if clean else redacted(value))
        if self._error is not None:
            return
        folder = os.path.dirname(path) or "."
        try:  # each folder checked for links once a batch
            if self._helper is None and len(self._mtimes) == self.HELPER_AFTER:
                self._helper = _start_helper()
            if self._helper and folder in self._folders:
                name = path.encode("utf-8", "surrogateescape")
                self._helper.stdin.write(b"%d %d\n%s%s" % (len(name), len(data), name, data))
                self._sent += 1
            else:
                self._mtimes[path] = _write_undurably(path, data, folder in self._folders)
        except OSError as exc:
            self._error = exc
        self._folders.add(folder)

    def finish(self) -> dict:
        """Wait until every file and its folder is on disk; path -> mtime (ns). The first OSError is raised."""
        self._mtimes.update(self._stop_helper())
        if self._error is not None:
            raise self._error
        if not self._mtimes:
            return {}
        if len(self._mtimes) < self.SYNCFS_MIN or not _syncfs(self._folders):
            from concurrent.futures import ThreadPoolExecutor  # batch writers only, never a hook

            with ThreadPoolExecutor(min(self.THREADS, len(self._mtimes)), thread_name_prefix="rlm-mem-sync") as pool:
                list(pool.map(_fsync_file, self._mtimes))  # concurrent fsyncs share the journal's commits
            for folder in sorted(self._folders):
                _fsync_dir(folder)
        return dict(self._mtimes)

    def close(self) -> None:
        """Forget the batch (it failed, or is finished); the helper, if any, has written all it was given (the
        caller may remove the batch's files next)."""
        self._stop_helper()
        self._mtimes, self._folders = {}, set()

    def _stop_helper(self) -> dict:
        """End the helper's input and wait for its answer: path -> mtime of what it wrote (its error, or a helper
        that died, becomes the batch's error)."""
        helper, self._helper = self._helper, False  # (False: not started again for this batch)
        if not helper:
            return {}
        answer = b""
        try:
            helper.stdin.close()
            answer = helper.stdout.read()
        except OSError:
            pass
        finally:
            helper.stdout.close()
        code = helper.wait()
        try:
            reply = fastjson.loads(answer)
            written, error = reply["mtimes"], reply["error"]
        except (ValueError, KeyError, TypeError):
            written, error = [], {"errno": None, "message": f"the file helper ended with status {code}", "path": None}
        if error is not None and self._error is None:
            self._error = OSError(error["errno"], error["message"], error["path"])
        elif self._error is None and len(written) != self._sent:
            self._error = OSError(None, f"the file helper wrote {len(written)} of {self._sent} files")
        return dict(written)


def _start_helper():
    """The helper process for the rest of a long batch, or False: one CPU only, or it cannot start."""
    try:
        from brain.util.lifetime import usable_cpus  # batch writers only, never a hook (it loads ctypes)

        if usable_cpus() < 2 or not sys.executable:
            return False
        import subprocess  # batch writers only, never a hook

        bundle = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        code = (f"import sys; sys.path.insert(0, {bundle!r}); from brain.util.file_helper import main; "
                f"main({os.getpid()})")
        # bytecode where this process keeps it: none in an installed plugin's copy (brain/context/dependencies.py)
        options = (["-X", f"pycache_prefix={sys.pycache_prefix}"] if sys.pycache_prefix
                   else ["-B"] if sys.dont_write_bytecode else [])
        return subprocess.Popen([sys.executable, "-I", "-S", *options, "-c", code], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=1 << 16)
    except OSError:
        return False


def _write_undurably(path: str, data: bytes, checked: bool = False) -> int:
    """_write_atomically without any fsync; returns the file's mtime (ns), which the rename keeps."""
    with _AtomicStream(path, False, checked=checked) as fh:
        fh.write(data)
        fh.flush()
        return os.fstat(fh.fileno()).st_mtime_ns


def _fsync_file(path: str) -> None:
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# File systems whose syncfs(2) writes every file and its metadata to stable storage. Others may return 0 without
# asking their backend (FUSE mounts such as sshfs, 9p such as WSL2's /mnt/c): their files are fsynced one by one.
_SYNCFS_FILE_SYSTEMS = frozenset(("ext4", "ext3", "xfs", "btrfs", "f2fs", "zfs", "bcachefs", "tmpfs"))


def _syncfs(folders) -> bool:
    """Make every file written in `folders` durable by one syncfs(2) of their file system: True when it ran and
    reported no error. False (the caller fsyncs each file) off Linux, before Linux 5.8 (syncfs did not report
    write-back errors), on a file system not known to sync for real, when the folders span file systems, or when
    anything about it fails."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        if tuple(int(part) for part in os.uname().release.split(".")[:2]) < (5, 8):
            return False
        folders = sorted(folders)
        if len({os.stat(folder).st_dev for folder in folders}) != 1 \
                or _file_system_type(folders[0]) not in _SYNCFS_FILE_SYSTEMS:
            return False
        import ctypes  # batch writers only, never a hook

        syncfs = ctypes.CDLL(None, use_errno=True).syncfs
        fd = os.open(folders[0], os.O_RDONLY)
    except Exception:  # noqa: BLE001 - no ctypes, no syncfs, an odd kernel version: fsync each file instead
        return False
    try:
        return syncfs(fd) == 0
    finally:
        os.close(fd)


def _file_system_type(folder: str) -> str:
    """The type of the file system mounted deepest above `folder` (/proc/self/mounts), or ""."""
    path, best, kind = os.path.realpath(folder), -1, ""
    with open("/proc/self/mounts", encoding="utf-8", errors="replace") as mounts:
        for line in mounts:
            fields = line.split()
            if len(fields) < 3:
                continue
            point = fields[1].replace("\\040", " ")
            inside = path == point or path.startswith(point.rstrip("/") + "/")
            if inside and len(point) > best:
                best, kind = len(point), fields[2]
    return kind


def atomic_write_text(path, text: str, *, fsync: bool = True) -> None:
    """Write text (redacted) atomically."""
    _write_atomically(path, redacted(text).encode("utf-8"), fsync=fsync)


def atomic_write_json(path, value, *, indent=2, fsync: bool = True):
    """Write a JSON value (every string in it redacted, in place) atomically; returns the value written.
    indent=None writes one line with fastjson (no `json` import: what hooks write)."""
    value = redacted(value)
    if indent is None:
        text = fastjson.dumps(value)
    else:
        import json  # pretty-printing needs the real module; what hooks write uses indent=None

        text = json.dumps(value, indent=indent, ensure_ascii=False, sort_keys=False)
    _write_atomically(path, (text + "\n").encode("utf-8"), fsync=fsync)
    return value


def atomic_write_encoded(path, value, encode, *, fsync: bool = True):
    """Write `encode(value)` (bytes; a chunk file's own layout) atomically, every string of `value` redacted in
    place first; returns the value written."""
    value = redacted(value)
    _write_atomically(path, encode(value), fsync=fsync)
    return value


def derived_stream(path):
    """A derived index file (rebuilt from chunk files, whose strings were redacted when they were written), written
    atomically, as it is and piece by piece: `with derived_stream(path) as fh: fh.write(...)`. Redacting a 40 MB
    index again on every pass would cost seconds and could cut its JSON apart; holding it whole would make memory
    grow with the store. Only brain/index/json_indexes may call this (tests/test_trust.py)."""
    return _AtomicStream(path, True)


def write_user_bytes(path, data: bytes, *, fsync: bool = True) -> None:
    """Write a file that belongs to the person (settings, a project config, an export), atomically and as given.
    Never for what rlm-mem stores: only brain/setup, brain/context and the exports call it (tests/test_trust.py)."""
    _write_atomically(path, data, fsync=fsync)


def write_user_text(path, text: str, *, fsync: bool = True) -> None:
    """write_user_bytes for text."""
    write_user_bytes(path, text.encode("utf-8"), fsync=fsync)


def write_user_json(path, value, *, indent=2) -> None:
    """write_user_text for a JSON value (pretty-printed like atomic_write_json)."""
    import json  # pretty-printing needs the real module; only the CLI's setup commands write these

    write_user_text(path, json.dumps(value, indent=indent, ensure_ascii=False) + "\n")


def _open_for_append(path: str):
    """(descriptor, its stat) of `path` opened to append, created if need be: never through a link, never a FIFO or
    anything but a regular file."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW | _NONBLOCK, FILE_MODE)
    except OSError as exc:  # ELOOP: the file is a link (O_NOFOLLOW); ENXIO: a FIFO nobody reads
        import errno  # only on this error path

        if exc.errno in (errno.ELOOP, errno.EMLINK, errno.ENXIO):
            raise StoreUnwritable(f"{path} is a symbolic link or not a regular file; rlm-mem appends only to its "
                                  "own files (see `rlm-mem doctor`)") from exc
        raise
    opened = os.fstat(fd)
    if not stat.S_ISREG(opened.st_mode):
        os.close(fd)
        raise StoreUnwritable(f"{path} is not a regular file; rlm-mem appends only to its own files")
    return fd, opened


def _append(path, data: bytes, rewritten: bool = False) -> None:
    """One write on an O_APPEND descriptor (concurrent appenders never interleave), never through a link. For a log
    that rewrite_log may replace (`rewritten`: the audit log, the episodes), the write holds a shared flock on the
    file and lands only in the file the path names then: the rewrite holds the exclusive lock while it copies and
    replaces the file, so a line is never written to a replaced copy. Other logs (the prompt hook's access log)
    skip the lock and its import."""
    path = os.fspath(path)
    ensure_dir(os.path.dirname(path))
    refuse_links(path)
    if not rewritten:
        fd, _ = _open_for_append(path)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        return
    import fcntl  # a C module, loaded once per process

    for _ in range(8):  # a rewrite between our open and our lock: open the new file (one retry, in practice)
        fd, opened = _open_for_append(path)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            try:
                now = os.lstat(path)
            except FileNotFoundError:
                continue
            if (now.st_ino, now.st_dev) == (opened.st_ino, opened.st_dev):
                os.write(fd, data)
                return
        finally:
            os.close(fd)  # (the lock goes with it)
    raise StoreBusy(f"{path} was replaced on every try; the line was not written")


def append_line(path, line: str, *, rewritten: bool = False) -> None:
    """Append one line (redacted). `rewritten`: the log may be rewritten meanwhile (rewrite_log)."""
    _append(path, (redacted(line).rstrip("\n") + "\n").encode("utf-8"), rewritten)


def append_json_line(path, value, *, rewritten: bool = False):
    """Append a JSON value (every string in it redacted, in place) as one line; returns the value written."""
    return append_json_lines(path, [value], rewritten=rewritten)[0]


def append_json_lines(path, values, *, rewritten: bool = False) -> list:
    """Append JSON values (every string in them redacted, in place), one a line, in one write; returns the values
    written. Field by field: a batch's repeated strings (a time, an actor, a reason) are judged once, not once a
    line."""
    values = [redacted(value) for value in values]
    if values:
        _append(path, ("".join(fastjson.dumps(value) + "\n" for value in values)).encode("utf-8"), rewritten)
    return values


def append_text(path, text: str, *, create_with: str | None = None, rewritten: bool = False) -> None:
    """Append text (redacted). `create_with`: what a file this call creates starts with, such as a day's heading:
    written first and once however many writers race to create it (_create_holding)."""
    path = os.fspath(path)
    if create_with is not None:
        ensure_dir(os.path.dirname(path))
        refuse_links(path)
        if not os.path.lexists(path):
            _create_holding(path, redacted(create_with).encode("utf-8"))
    _append(path, redacted(text).encode("utf-8"), rewritten)


def rewrite_log(path, change) -> bool:
    """Rewrite an append-only text file as `change(text)` (None: leave it as it is), atomically, losing nothing
    appended meanwhile: the exclusive flock held from the read to the replace waits for appends under way, and an
    appender that waited for it finds the file replaced and appends to the new one (_append with `rewritten`, which
    every writer of such a log passes). The caller holds the store lock: two rewrites never meet. Returns whether
    the file was rewritten."""
    import fcntl  # a C module, loaded once per process

    try:
        fd = open_regular(path)
    except FileNotFoundError:
        return False
    with os.fdopen(fd, "rb") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        text = change(fh.read(MAX_READ).decode("utf-8", errors="replace"))
        if text is None:
            return False
        atomic_write_text(path, text)
    return True


def _create_holding(path: str, data: bytes) -> None:
    """Create `path` with `data` in it, unless it exists. The data goes to a temp file that is then linked into
    place, so the file never exists without it: created empty and written after, another writer's append could
    come first and be overwritten by it (an episode entry was lost that way)."""
    fd, tmp = _temp_file(os.path.dirname(path) or ".")
    try:
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)  # fails if the path exists: one creator wins, whole
        except FileExistsError:
            pass
    finally:
        _unlink_quietly(tmp)


# ---------------------------------------------------------------- reading
def open_regular(path, *, follow_links: bool | None = None) -> int:
    """A read-only descriptor of `path`, which must be a regular file: opened without blocking (a FIFO cannot
    hold the caller) and checked with fstat before anything is read (NotRegularFile for a device, a FIFO, a
    socket or a folder). Links are followed outside a memory root only, unless `follow_links` says otherwise."""
    path = os.fspath(path)
    if follow_links is None:
        follow_links = _below_root(path)[0] is None
    try:
        fd = os.open(path, os.O_RDONLY | _NONBLOCK | (0 if follow_links else _NOFOLLOW))
    except OSError as exc:
        if follow_links or not os.path.islink(path):
            raise
        raise NotRegularFile(f"{path} is a symbolic link; rlm-mem does not read through links in the memory "
                             "folder (see `rlm-mem doctor`)") from exc
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(f"{path} is not a regular file ({_file_kind(mode)}); it is not read")
        if _NONBLOCK:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _file_kind(mode) -> str:
    for test, name in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "not a file"


def read_bytes(path, limit: int = MAX_READ, *, follow_links: bool | None = None) -> bytes:
    """The whole of a regular file (InputTooLarge past `limit` bytes; see open_regular for what is refused)."""
    with os.fdopen(open_regular(path, follow_links=follow_links), "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise InputTooLarge(f"{os.fspath(path)} is larger than {limit:,} bytes; it is not read")
    return data


def read_json(path, limit: int = MAX_READ):
    return fastjson.loads(read_bytes(path, limit).decode("utf-8"))


def read_text(path, limit: int = MAX_READ) -> str:
    """A text file read leniently (a byte that is not UTF-8 becomes U+FFFD), or "" when there is no such file."""
    try:
        return read_bytes(path, limit).decode("utf-8", errors="replace")
    except FileNotFoundError:
        return ""


def remove_if_present(path) -> None:
    """Remove a file; one that is already gone is fine."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


# ---------------------------------------------------------------- locks
DEFAULT_LOCK_TIMEOUT = float(os.environ.get("RLM_MEM_LOCK_TIMEOUT", "20"))


def owner_lock(path, timeout: float, **options):
    """A filelock whose lock file is owner-only like every other file here (filelock's default is 0644), and
    never a link inside the store (filelock opens it for writing)."""
    from filelock import FileLock  # hooks that only read never take a lock, so never pay for filelock

    refuse_links(path)
    return FileLock(os.fspath(path), timeout=timeout, mode=FILE_MODE, **options)


def try_acquire(lock) -> bool:
    """Take `lock` within its timeout: True, or False when another process holds it."""
    from filelock import Timeout  # loaded with owner_lock's FileLock anyway

    try:
        lock.acquire()
        return True
    except Timeout:
        return False


class StoreLock:
    """Serialise read-modify-write on one store: `with store_lock(root):`. StoreBusy after `timeout` seconds.
    (A class, not contextlib: hooks import this module, and contextlib costs milliseconds.)"""

    def __init__(self, root, timeout: float | None = None):
        self.root, self.timeout, self.lock = root, timeout, None

    def __enter__(self):
        from filelock import Timeout  # loaded with owner_lock's FileLock anyway

        lock_dir = os.path.join(os.fspath(self.root), "index")
        try:
            ensure_dir(lock_dir)
        except StoreUnwritable:
            raise  # (an OSError too) already says what is wrong
        except OSError as exc:
            raise StoreUnwritable(f"cannot create {lock_dir}: {exc.strerror or exc}") from exc
        # a 10 ms poll (default 50) hands the lock on quickly when writers queue up
        timeout = DEFAULT_LOCK_TIMEOUT if self.timeout is None else self.timeout
        lock = owner_lock(os.path.join(lock_dir, ".store.lock"), timeout, poll_interval=0.01)
        try:
            lock.acquire()
        except Timeout as exc:
            raise StoreBusy(f"the memory store at {self.root} is locked by another writer; try again in a "
                            "moment") from exc
        except OSError as exc:
            raise StoreUnwritable(f"cannot lock the memory store at {self.root}: {exc.strerror or exc}") from exc
        self.lock = lock
        return self

    def __exit__(self, *exc_info):
        self.lock.release()
        return False


store_lock = StoreLock
