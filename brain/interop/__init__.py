"""Bringing memories in and taking them out: `import_path`, `export_store`, `detect_format`.

Formats in: legacy (the legacy protocol's memory files), candidates (a MEMORY_CANDIDATES block), cognitive (seed
003's markdown graph), claude-memory (Claude Code's auto memory folder), jsonl (bulk records), markdown (rlm-mem's
own export). Out: markdown and jsonl, which import back to the same chunks.
"""
import os
import stat
import sys
from importlib import import_module
from pathlib import Path

from brain.index import access
from brain.interop.detect import detect_format
from brain.interop.records import ExportReport, ImportReport, Issue, SourceError
from brain.interop.writer import Importer

IMPORT_FORMATS = ("legacy", "candidates", "cognitive", "claude-memory", "jsonl", "markdown")
MAX_STDIN = 64 * 1024 * 1024  # a candidates block piped in
EXPORT_FORMATS = ("markdown", "jsonl")
_MODULES = {"legacy": "legacy", "candidates": "candidate_block", "cognitive": "cognitive",
            "claude-memory": "claude_memory", "jsonl": "jsonl", "markdown": "markdown"}

__all__ = ["IMPORT_FORMATS", "EXPORT_FORMATS", "ImportReport", "ExportReport", "Issue", "detect_format",
           "import_path", "export_store"]


def format_module(fmt: str):
    if fmt not in _MODULES:
        raise ValueError(f"unknown format; use one of {', '.join(IMPORT_FORMATS)} or auto")
    return import_module(f"{__name__}.{_MODULES[fmt]}")


def import_path(store, fmt: str, paths, *, batch_size: int = 5000, progress=None, stdin=None) -> ImportReport:
    """Import every path (file, folder, or "-" for stdin) in format `fmt` ("auto" detects per path).

    Bad files and lines are reported in `report.errors` and skipped; the rest is imported. A path from which
    nothing at all could be read is listed in `report.bad_paths`. `progress(done, total)` is called as work
    proceeds (bytes of the sources).
    """

    if isinstance(paths, (str, Path)):
        paths = [paths]
    report = ImportReport(format=fmt)
    plans = []
    for given in paths:
        problem = not_a_source(given)
        if problem:  # before anything opens it: reading /dev/zero never ends, opening a FIFO waits
            report.error(given, problem)
            report.bad_paths.append(str(given))
            continue
        chosen = detect_format(given) if fmt == "auto" else fmt
        if chosen is None:
            report.error(given, "cannot tell the format; give --format (" + ", ".join(IMPORT_FORMATS) + ")")
            report.bad_paths.append(str(given))
            continue
        module = format_module(chosen)
        if str(given) == "-":
            if not hasattr(module, "records_from_text"):
                report.error("<stdin>", f"stdin (-) can hold a candidates block; {chosen} is read from files")
                report.bad_paths.append("-")
            else:
                plans.append((given, chosen, module, ["-"], None))
            continue
        path = Path(given)
        if not path.exists():
            report.error(given, "no such file or folder")
            report.bad_paths.append(str(given))
            continue
        try:
            files = module.sources(path)
            context = module.prepare(path, files) if hasattr(module, "prepare") else None
        except SourceError as exc:
            report.error(given, str(exc))
            report.bad_paths.append(str(given))
            continue
        plans.append((given, chosen, module, files, context))
    if fmt == "auto":
        report.format = "+".join(dict.fromkeys(p[1] for p in plans)) or "auto"

    importer = Importer(store, report, fmt, batch_size=batch_size, progress=progress)
    importer.total_bytes = sum(_size(f) for plan in plans for f in plan[3])
    for given, chosen, module, files, context in plans:
        importer.fmt = chosen
        before = (report.created, report.skipped_existing)
        errors_before = len(report.errors)
        for src in files:
            report.files += 1
            base = importer.done_bytes
            try:
                items = (module.records_from_text(_read_stdin(stdin or sys.stdin), "<stdin>") if src == "-"
                         else module.read(src, context))
                for item in items:
                    if isinstance(item, Issue):
                        report.errors.append(item)
                        continue
                    if getattr(item, "offset", None) is not None:
                        importer.done_bytes = base + item.offset
                    importer.add(item)
            except SourceError as exc:
                report.error(src if src != "-" else "<stdin>", str(exc))
            except OSError as exc:
                report.error(src, f"cannot read: {exc.strerror or exc}")
            importer.done_bytes = base + _size(src)
        importer.flush()
        nothing = (report.created, report.skipped_existing) == before
        if nothing and len(report.errors) > errors_before:
            report.bad_paths.append(str(given))
    importer.finish()
    return report


def not_a_source(given) -> str | None:
    """Why `given` cannot be imported from before it is opened (a device, a FIFO, a socket), or None."""
    if str(given) == "-":
        return None
    try:
        mode = os.stat(given).st_mode
    except OSError:
        return None  # a missing path is reported where it is looked for
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return "is not a regular file or a folder (a device, a FIFO or a socket); nothing was read from it"


def _read_stdin(stream) -> str:
    text = stream.read(MAX_STDIN + 1)
    if len(text) > MAX_STDIN:
        raise SourceError(f"stdin holds more than {MAX_STDIN:,} characters; save it to a file and import that")
    return text


def _size(path) -> int:
    try:
        return Path(path).stat().st_size if path != "-" else 0
    except OSError:
        return 0


def export_store(store, fmt: str, out_dir, *, progress=None) -> ExportReport:
    """Write every live chunk to out_dir as markdown (one file each) or jsonl (memories.jsonl).

    Pending access counts are included as they would be after folding; the store is not changed.
    """

    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format; use {' or '.join(EXPORT_FORMATS)}")
    out = Path(out_dir).expanduser()
    root = store.root.resolve()
    if out.resolve() == root or root in out.resolve().parents:
        raise ValueError(f"export into a folder outside the memory root ({store.root}), not inside it")
    out.mkdir(parents=True, exist_ok=True)
    pending = access.pending_access(store.root)
    paths = list(store.layout.iter_chunk_paths())
    total = len(paths)
    chunks = (access.apply_pending(data, pending) for data in (store.layout.read_file(p) for p in paths) if data)
    report = ExportReport(format=fmt, out_dir=str(out))

    def step(done):
        report.chunks = done
        if progress:
            progress(done, total)

    report.files = format_module(fmt).write(chunks, out, step)
    return report
