"""The helper process of a long bulk batch: writes the chunk files BatchWriter hands it, on a CPU of its own.

Creating a file costs the kernel as much as the rest of a chunk's indexing costs Python (an inode, a directory
entry, a rename), so BatchWriter passes a long batch's already redacted and encoded files through a pipe to this
process while it goes on with the next chunk (bench/README.md). The helper writes each one exactly as BatchWriter
would itself (files._write_undurably: a temp file, os.replace, no fsync) and, at the end of its input, answers
with one JSON line: the mtime of every file it wrote and the first error. After an error it writes nothing more
but reads on, so that the writer never blocks; BatchWriter.finish raises the error and the write session removes
the batch's new files. It dies with the writer (_die_with). Started by BatchWriter with `python -I -S` and the
bundle's folder on sys.path: stdlib and brain.util only.

Input, one frame a file: b"<path length> <data length>\\n", the path (UTF-8, surrogateescape), the data.
"""
import json
import os
import sys

from brain.util.files import _write_undurably

try:
    import ctypes  # for prctl (Linux)
except ImportError:  # a Python built without it: the per-file check alone
    ctypes = None


def main(parent: int) -> None:
    """The helper process: `parent` is the writer's pid."""
    _die_with(parent)
    serve(parent, sys.stdin.buffer, sys.stdout)


def serve(parent: int, source, answer) -> None:
    """Write the files framed on `source` until its end, then answer on `answer`; exit before the next file once
    `parent` is no longer this process's parent."""
    mtimes, error = [], None
    while True:
        if os.getppid() != parent:
            os._exit(1)  # the writer is gone: nothing more of its batch is written, and nobody reads an answer
        header = source.readline()
        if not header:
            break
        path_length, data_length = (int(n) for n in header.split())
        name, data = source.read(path_length), source.read(data_length)
        if len(name) != path_length or len(data) != data_length:
            os._exit(1)  # the input ended inside a frame: the writer died while sending it
        path = name.decode("utf-8", "surrogateescape")
        if error is not None:
            continue
        try:
            mtimes.append((path, _write_undurably(path, data, True)))
        except OSError as exc:  # a full disk, a link at the path (StoreUnwritable): the batch fails as a whole
            error = {"errno": exc.errno, "message": exc.strerror or str(exc), "path": path}
    answer.write(json.dumps({"mtimes": mtimes, "error": error}, ensure_ascii=True) + "\n")
    answer.flush()


def _die_with(parent: int) -> None:
    """The helper never outlives its writer: once the writer dies, another may take the store lock, sync the
    folders and commit, and a file written after that would not be indexed. On Linux the kernel kills the helper
    with its writer (PR_SET_PDEATHSIG); elsewhere it stops at the next file (the parent pid changes)."""
    if ctypes is not None and sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
        except Exception:  # noqa: BLE001 - no prctl in this libc: the per-file check alone
            pass
    if os.getppid() != parent:  # died before the line above took effect
        os._exit(1)
