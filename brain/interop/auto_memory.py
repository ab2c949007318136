"""Claude Code's own auto memory, read as a source after each captured session.

Claude Code keeps model-curated notes per project: `MEMORY.md` (an index of links and notes) and topic files with
frontmatter, in `<config>/projects/<project folder, every character but letters and digits made "->/memory/`
(`$CLAUDE_CONFIG_DIR` or `~/.claude`), or in the folder the `autoMemoryDirectory` setting names (user or local
settings only: a project's shared settings may not send memory elsewhere). The capture worker calls
`read_auto_memory` once a session it captured has ended: a file whose size and time did not change costs one stat;
a changed one is parsed by the one-shot importer's reader (interop/claude_memory.py) and each new or changed entry
becomes a typed memory with its provenance (the file, and the entry: a topic file, or a note of the index). A
changed entry supersedes the memory of its earlier version; an index note rewritten in other words supersedes the
removed note that shares most of its words. What was read is kept in `state/auto-memory.json`.
"""
import json
import os
from pathlib import Path

from brain.capture.ingest import transcripts_folder
from brain.context.project import ProjectInfo
from brain.interop import claude_memory
from brain.interop.records import SourceError, digest
from brain.store.lifecycle import supersede
from brain.util.files import atomic_write_json, read_json
from brain.util.timestamps import normalize_timestamp

STATE_FILE = "auto-memory.json"  # in state/
FORMAT = claude_memory.FORMAT
SIMILAR_NOTE = 0.5  # share of the shorter note's words a rewritten index note keeps of the one it replaces


def claude_config_dir() -> Path:
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude"))


def memory_folders(project_root, transcript_path=None) -> list:
    """The auto memory folders of a project that exist: the one `autoMemoryDirectory` names in the person's or the
    project's local settings, the default under Claude Code's projects folder, and the one beside the session's
    transcript (Claude Code keeps both in the same project folder)."""
    found = []
    config = claude_config_dir()
    settings = [config / "settings.json"] + ([Path(project_root) / ".claude" / "settings.local.json"]
                                             if project_root else [])
    for path in settings:
        try:
            chosen = json.loads(path.read_text(encoding="utf-8")).get("autoMemoryDirectory")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(chosen, str) and chosen.strip():
            found.append(Path(os.path.expanduser(chosen.strip())))
    if project_root:
        found.append(transcripts_folder(project_root) / "memory")
    if transcript_path and Path(transcript_path).parent.parent.name == "projects":  # Claude Code's layout only
        found.append(Path(transcript_path).parent / "memory")
    unique = []
    for folder in found:
        real = os.path.realpath(folder)
        if os.path.isdir(real) and real not in unique:
            unique.append(real)
    return [Path(folder) for folder in unique]


def read_auto_memory(store, project, folders) -> dict:
    """Bring the typed memories of `folders` (auto memory of `project`, a ProjectInfo) up to date. Returns
    {"created": [ids], "superseded": [(old, new)], "errors": [str]}."""
    state_path = Path(store.root) / "state" / STATE_FILE
    try:
        state = read_json(state_path)
    except (OSError, ValueError):
        state = {}
    state = state if isinstance(state, dict) else {}
    result = {"created": [], "superseded": [], "errors": []}
    changed = False
    own = os.path.realpath(store.root)
    for folder in folders:
        if os.path.commonpath([own, os.path.realpath(folder)]) in (own, os.path.realpath(folder)):
            continue  # rlm-mem's own memory (its episodes are markdown too) is no auto memory
        known = state.setdefault(str(folder), {})
        if _read_folder(store, project, Path(folder), known, result):
            changed = True
    if changed:
        atomic_write_json(state_path, state, indent=None)
    return result


def _stat(path: Path):
    try:
        info = path.stat()
    except OSError:
        return None
    return [info.st_mtime_ns, info.st_size]


def _read_folder(store, project, folder: Path, known: dict, result: dict) -> bool:
    """Read the files of one folder that changed since `known` says; True when `known` changed."""
    try:
        files = claude_memory.sources(folder)
    except SourceError:
        return False
    stats = {path.name: _stat(path) for path in files}
    todo = [path for path in files if stats[path.name] and (known.get(path.name) or {}).get("stat") != stats[path.name]]
    if not todo:
        return False
    context = claude_memory.prepare(folder, files)  # titles the index gives topic files
    for path in todo:
        try:
            records = list(claude_memory.read(path, context))
        except SourceError as exc:
            result["errors"].append(f"{path}: {exc}")
            continue
        before = (known.get(path.name) or {}).get("entries") or {}
        entries = _store_entries(store, project, folder, records, before, result)
        if entries is None:
            return False  # nothing could be written: read again next time
        known[path.name] = {"stat": stats[path.name], "entries": entries}
    return True


def _store_entries(store, project, folder: Path, records, before: dict, result: dict):
    """Write the records that are new or changed; supersede their earlier versions. Returns the entries now
    known ({entry: {"id", "digest", "words"}}), None when the store refused the write."""
    entries, specs, replacing = {}, [], []  # replacing: (entry, its earlier version, index of its first spec)
    for rec in records:
        text_digest = digest(rec.content)
        earlier = before.get(rec.ident)
        if earlier and earlier.get("digest") == text_digest:
            entries[rec.ident] = earlier
            continue
        replacing.append((rec.ident, earlier, len(specs)))
        specs += _specs(store, rec, project, folder, text_digest)
        entries[rec.ident] = {"digest": text_digest, "words": sorted(_words(rec.content))[:60]}
    if not specs:
        return entries
    try:
        stored = store.create_many(specs, reason=f"read from Claude Code's auto memory in {folder}", chain=False)
    except Exception as exc:  # noqa: BLE001 - a worker must not stop on one folder; it is read again next time
        result["errors"].append(f"{folder}: {exc}")
        return None
    result["created"] += [chunk.id for chunk in stored if chunk.id not in result["created"]]
    gone = {ident: entry for ident, entry in before.items() if ident not in entries}
    for ident, earlier, first in replacing:
        chunk = stored[first]
        entries[ident]["id"] = chunk.id
        earlier = earlier or _rewritten(entries[ident]["words"], gone)
        if earlier and earlier.get("id") and earlier["id"] != chunk.id and store.get_chunk(earlier["id"], track=False):
            supersede(store, earlier["id"], chunk.id, reason="changed in Claude Code's auto memory",
                      note=f"replaced {chunk.created[:10]} in Claude Code's auto memory", when=chunk.created)
            result["superseded"].append((earlier["id"], chunk.id))
    return entries


def _rewritten(words: list, gone: dict):
    """The removed entry a new one rewrites: the one sharing most words, at least SIMILAR_NOTE of the shorter."""
    best, best_share, new = None, 0.0, set(words)
    for ident, entry in gone.items():
        old = set(entry.get("words") or ())
        if new and old:
            share = len(new & old) / min(len(new), len(old))
            if share >= SIMILAR_NOTE and share > best_share:
                best, best_share = ident, share
    return gone.pop(best) if best else None


def _words(text: str) -> set:
    return {w.strip(".,;:!?()[]`'\"").lower() for w in text.split() if len(w) > 2}


def _specs(store, rec, project, folder: Path, text_digest: str) -> list:
    """The chunk specs of one entry (a long one in parts of at most 800 tokens)."""
    md = dict(rec.metadata)
    md["kind"] = md.get("kind") or "memory"
    md.update(project=project.id, project_name=project.name,
              provenance={"kind": "artifact", "file": rec.file, "format": FORMAT, "ref": rec.ident[:1000]})
    if md.get("original_type") == "user":  # about the person: recalled in every project
        md["scope"] = "user"
    created = normalize_timestamp(rec.created) if rec.created else None
    pieces = store.engine.chunk(rec.content)
    key = f"{FORMAT}:{folder}:{rec.ident}:{text_digest}"
    return [dict(content=piece, chunk_type=rec.chunk_type, tags=rec.tags, confidence=rec.confidence,
                 source="import", created=created, key=key if len(pieces) == 1 else f"{key}#{i}",
                 metadata=dict(md, part={"index": i, "count": len(pieces)}) if len(pieces) > 1 else md)
            for i, piece in enumerate(pieces, 1)]


def after_sessions(store, reports) -> int:
    """Read the auto memory of the projects whose sessions the capture worker just finished (SessionEnd), once
    each; returns how many memories it added (each report of such a project gets its count in `auto_memory`).
    A failure here loses nothing: the files are read again after the next session."""
    done, added = set(), 0
    for report in reports:
        project = getattr(report, "project", None)
        if not (getattr(report, "final", False) and project) or report.skipped_reason or tuple(project) in done:
            continue
        done.add(tuple(project))
        info = ProjectInfo(project[0], project[1], project[2] if len(project) > 2 else None, "session")
        try:
            result = read_auto_memory(store, info, memory_folders(info.root, report.transcript))
        except Exception as exc:  # noqa: BLE001 - capture itself succeeded; the worker goes on
            report.skipped_reason = f"auto memory not read: {exc}"
            continue
        report.auto_memory = len(result["created"])
        added += report.auto_memory
    return added
