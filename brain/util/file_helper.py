"""The helper process of a long bulk batch: writes the chunk files BatchWriter hands it, on a CPU of its own.

Creating a file costs the kernel as much as the rest of a chunk's indexing costs Python (an inode, a directory
entry, a rename), so BatchWriter passes a long batch's already redacted and encoded files through a pipe to this
process while it goes on with the next chunk (bench/README.md). The helper writes each one exactly as BatchWriter
would itself (files._write_undurably: a temp file, os.replace, no fsync) and, at the end of its input, answers
with one JSON line: the mtime of every file it wrote and the first error. After an error it writes nothing more
but reads on, so that the writer never blocks; BatchWriter.finish raises the error and the write session removes
the batch's new files. It dies with the writer (brain/util/lifetime.py). Started by BatchWriter with `python -I -S` and the
bundle's folder on sys.path: stdlib and brain.util only.

Input, one frame a file: b"<path length> <data length>\\n", the path (UTF-8, surrogateescape), the data.
"""
import json
import os
import sys

from brain.util.files import _write_undurably
from brain.util.lifetime import die_with


def main(parent: int) -> None:
    """The helper process: `parent` is the writer's pid."""
    die_with(parent)
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

