"""Capture: from a Claude Code transcript to memories.

Hooks only queue work (`enqueue`, a small file per session in state/queue/) and start a detached worker; the worker
(`ingest`) parses each transcript from the byte offset it reached last time and stores:
- the conversation's own words, verbatim and chunked, one chunk per turn (kind "turn"; tool calls summarised in a
  line; tool output not stored), linked by conversation and time;
- typed memories from the protocol's auto-persist triggers (extract.py);
- one record per session (intent, files, commands, outcome, follow-ups) when the session is over.
Ids derive from (session, transcript entry, part), so capturing twice, or a transcript that grew, stores each thing
once. Timestamps come from the transcript. When the store cannot be written, nothing is claimed as saved: the typed
memories come back as a MEMORY_CANDIDATES block (and are kept in a fallback folder when one is writable).
A queued transcript that cannot be captured (gone, not a regular file, unreadable) leaves the queue at its first
failure, with one line in state/capture-failures.log: the worker never retries it forever.
"""
import hashlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from brain.capture.candidates import MemoryCandidate, slug_filename
from brain.capture.causal import link_causes
from brain.capture.currency import (TOOLS_LINE, Change, left_to_tools, resolve_open_changes, session_changes,
                                    supersede_stale)
from brain.capture.echoes import commits_with_values, without_echoes
from brain.capture.extract import extract_memories
from brain.capture.layers import session_layers
from brain.capture.novelty import Recalled, restated
from brain.capture.queue import INGEST_LOCK, captured_offset, end_session, pending, save_offset, seen_session
from brain.capture.rules.tool_events import runs_tests, tests_passed
from brain.capture.scopes import PROJECT
from brain.capture.session_record import session_record
from brain.capture.tools.latest import load_known, settle
from brain.capture.tools.observe import observe_session
from brain.capture.tools.records import earlier_change_memories, memorable, memory_text, value_pairs
from brain.capture.transcript import parse_transcript, start_cwd
from brain.context.project import ProjectInfo, memory_disabled, project_id
from brain.index.search_index import connect
from brain.recall.depth import summary_line
from brain.safety.redact import redact_value, redact_with_line
from brain.store.build import key_hash
from brain.store.chunk import new_chunk_id
from brain.store.episodes import append_episode
from brain.store.lifecycle import find_duplicate, own_store_beside, reinforce, retract, supersede
from brain.util.errors import RlmMemError, StoreBusy, StoreUnwritable
from brain.util.files import append_line, ensure_dir, owner_lock, read_json, remove_if_present, try_acquire
from brain.util.text import sentences
from brain.util.timestamps import normalize_timestamp

FAILURES_LOG = "capture-failures.log"  # in state/: one line per queued transcript dropped after a failure
TURN_CONFIDENCE = 0.7
SESSION_CONFIDENCE = 0.8
MAX_TOOL_SUMMARIES = 8
CHANGE_CONFIDENCE = 0.9  # a value a tool call changed: what the transcript shows, not what was said about it


# ---------------------------------------------------------------- turning a transcript into chunk specs
@dataclass
class CaptureReport:
    session_id: str
    turns: int = 0
    memories: int = 0
    created: int = 0
    session_record: str | None = None
    skipped_reason: str | None = None
    candidates: list = field(default_factory=list)  # MemoryCandidate, when the store could not be written
    project: list | None = None  # [id, name, root] the session was filed under
    transcript: str | None = None
    final: bool = False  # the session ended: its project's auto memory is read next (interop/auto_memory.py)
    auto_memory: int = 0  # memories read from Claude Code's auto memory after it

    def to_dict(self) -> dict:
        return {"session_id": self.session_id, "turns": self.turns, "memories": self.memories,
                "created": self.created, "session_record": self.session_record, "skipped": self.skipped_reason,
                "candidates": len(self.candidates)}


def _use_line(use) -> str:
    """A tool call as the turn's [tools] line names it: failed, or for a test run that passed, how many passed."""
    if use.ok is False:
        return use.summary + " (failed)"
    passed = tests_passed(use.result) if use.ok and use.command and runs_tests(use.command) else None
    return f"{use.summary} ({passed} passed)" if passed and passed.isdigit() else use.summary


def _turn_content(turn) -> str:
    text = (turn.text or "").strip()
    uses = [_use_line(u) for u in turn.tool_uses if u.summary]
    uses = uses[:MAX_TOOL_SUMMARIES]
    if uses:
        more = len(turn.tool_uses) - len(uses)
        line = TOOLS_LINE + "; ".join(uses) + (f" (+{more} more)" if more > 0 else "")
        text = redact_with_line(text, line) if text else line  # (text is redacted already: a memo lookup)
    return text


def _turn_files(turn) -> list:
    return sorted({u.file_path for u in turn.tool_uses if u.file_path})[:50]


_FILLER_WORDS = 4  # "Thanks!", "Great, that works." before a question state nothing worth a fact


def _is_question(text: str) -> bool:
    """A turn that only asks: it ends with a question, and every sentence before it is a question too or filler
    of a few words. ("I went hiking with my family. Have you been?" still states where it went.)"""
    parts = sentences(text)
    if not parts or not parts[-1].rstrip(" )\"'*_").endswith("?"):
        return False
    return all(p.rstrip(" )\"'*_").endswith("?") or len(p.split()) < _FILLER_WORDS for p in parts)


def _turn_marks(turn, recalled: Recalled) -> tuple:
    """(chunk type or None to detect it, tags) of a turn's chunk: a question is no fact, and an answer that repeats
    what rlm-mem recalled into the session is a note (the memory it repeats is the fact)."""
    if turn.text and _is_question(turn.text):
        return "note", ["question"]
    if turn.role == "assistant" and turn.text and recalled.echoes(turn.text):
        return "note", ["recalled"]
    return None, []


def turn_specs(turns, *, session_id, project, transcript_path, fallback_time, engine, recalled=()) -> list:
    """One spec per turn part. A turn of a branch the conversation was rewound past is kept as the record of what
    was said, retracted: never recalled, never shown as current."""
    specs = []
    recalled = Recalled(recalled)
    for turn in turns:
        if turn.is_sidechain or turn.is_compact_summary:
            continue  # subagent traffic and Claude's own compaction summaries are not the conversation
        content = _turn_content(turn)
        if not content:
            continue
        ref = turn.uuid or f"offset-{turn.offset}"
        chunk_type, tags = _turn_marks(turn, recalled)
        pieces = engine.chunk(content)
        for i, piece in enumerate(pieces, 1):
            md = {"kind": "turn", "role": turn.role if turn.role in ("user", "assistant") else "mixed",
                  "project": project.id, "project_name": project.name,
                  "provenance": {"kind": "event", "ref": f"{session_id}/{ref}", "file": str(transcript_path)}}
            files = _turn_files(turn)
            if files:
                md["files"] = files
            if len(pieces) > 1:
                md["part"] = {"index": i, "count": len(pieces), "group": ref}
            if turn.abandoned:
                md["status"] = "retracted"
                md["extra"] = {"abandoned": "the conversation was rewound past this turn"}
            specs.append({"content": piece, "conversation_id": session_id, "confidence": TURN_CONFIDENCE,
                          "created": turn.timestamp or fallback_time, "metadata": md, "chunk_type": chunk_type,
                          "tags": tags, "key": f"turn:{session_id}:{ref}:{i}"})
    return specs


def memory_specs(candidates, *, session_id, project, transcript_path, fallback_time, turn_ids=None) -> list:
    """One spec per typed memory. `turn_ids` ({turn uuid: id of its chunk}): a memory links the turn it was said in
    (`links.derived_from`), so the words around it are one step away and recall can show one of the two."""
    specs = []
    for cand in candidates:
        digest = hashlib.sha1(cand.content.encode("utf-8")).hexdigest()[:10]
        md = {"kind": cand.kind, "category": cand.category, "project": project.id, "project_name": project.name,
              "provenance": {"kind": "event", "ref": f"{session_id}/{cand.source_uuid or ''}",
                             "file": str(transcript_path)}}
        if cand.scope != PROJECT:
            md["scope"] = cand.scope
        source = (turn_ids or {}).get(cand.source_uuid)
        specs.append({"content": cand.content, "chunk_type": cand.chunk_type, "conversation_id": session_id,
                      "confidence": cand.confidence, "tags": list(cand.tags),
                      "created": cand.timestamp or fallback_time, "metadata": md,
                      "key": f"{cand.kind}:{session_id}:{cand.source_uuid}:{digest}",
                      "links": {"derived_from": [source]} if source else None})
    return specs


def turn_chunk_ids(specs) -> dict:
    """{turn uuid: the id of the turn's (first) chunk} for turn specs (ids derive from key and date: see
    store/chunk.new_chunk_id)."""
    out = {}
    for spec in specs:
        md = spec["metadata"]
        if md.get("part", {}).get("index", 1) == 1:
            ref = md["provenance"]["ref"].split("/", 1)[-1]
            out[ref] = new_chunk_id(normalize_timestamp(spec["created"]), spec["key"])
    return out


def candidates_for(specs) -> list:
    """MEMORY_CANDIDATES for memory specs that could not be stored."""

    out = []
    for spec in specs:
        category = spec["metadata"].get("category") or "present"
        out.append(MemoryCandidate(filename=slug_filename(spec["content"]), category=category,
                                   tags=tuple(spec.get("tags") or ()) or (spec["metadata"].get("kind", "memory"),),
                                   content=spec["content"]))
    return out


def session_project(root, session_id: str, transcript_path, cwd=None, state=None) -> ProjectInfo:
    """The project a session is filed under, whatever folders its lines name: the one its earlier capture used,
    else the folder rlm-mem saw it start in (its record in state/sessions/), else `cwd` (the hook's session
    folder), else the folder its transcript starts in, else the working directory."""
    for source in ((state or {}).get("project"), seen_session(root, session_id).get("project")):
        if isinstance(source, list) and len(source) >= 2 and all(isinstance(x, str) for x in source[:2]):
            return ProjectInfo(source[0], source[1], source[2] if len(source) > 2 else None, "session")
    return project_id(cwd or start_cwd(transcript_path) or os.getcwd())


def capture_transcript(store, transcript_path, *, session_id: str | None = None, cwd: str | None = None,
                       final: bool = False, full: bool = False) -> CaptureReport:
    """Capture what is new in one transcript (everything with full=True). Idempotent."""
    transcript_path = Path(os.path.realpath(transcript_path))  # the hook's path and a person's relative one agree
    sid = session_id or transcript_path.stem
    report = CaptureReport(session_id=sid)
    state = {} if full else captured_offset(store.root, sid)
    known = state.get("path")
    same_file = known is None or os.path.realpath(known) == str(transcript_path)
    start = state.get("offset", 0) if same_file else 0
    parsed = parse_transcript(transcript_path, start_offset=start, known_leaf=state.get("leaf") if start else None)
    project = session_project(store.root, sid, transcript_path, cwd, state if same_file else None)
    filed = [project.id, project.name, project.root]
    report.project, report.transcript, report.final = filed, str(transcript_path), final
    if project.root is not None and memory_disabled(project.root):
        report.skipped_reason = "memory is switched off for this project"
        save_offset(store.root, sid, transcript_path, parsed.end_offset, leaf=parsed.leaf, project=filed)
        return report
    fallback_time = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(transcript_path.stat().st_mtime))
    turns = turn_specs(parsed.turns, session_id=sid, project=project, transcript_path=transcript_path,
                       fallback_time=fallback_time, engine=store.engine, recalled=parsed.recalled)
    live = [t for t in parsed.turns if not t.abandoned]
    kept, setting_changes = _tool_settings(store.root, project, live)
    changed = _change_specs(memorable(setting_changes), live, sid, project, transcript_path, fallback_time)
    found = extract_memories(parsed.turns, parsed.recalled)
    found = without_echoes(commits_with_values(found, setting_changes, live),
                           [(change, spec["content"]) for change, spec in changed], live)
    memories = memory_specs(found, session_id=sid, project=project, transcript_path=transcript_path,
                            fallback_time=fallback_time, turn_ids=turn_chunk_ids(turns))
    report.turns, report.memories = len(turns), len(memories)
    try:
        fresh = _keep_apart(store, _new_memories(store, memories, project.id, sid), sid)
        said = session_changes(live)
        changes = left_to_tools(resolve_open_changes(store.root, project.id, said), said, setting_changes, live)
        _record_settings(turns, kept, sid)
        pairs = [Change(old, new, c.turn.timestamp, c.turn) for c in setting_changes for old, new in value_pairs(c)]
        _record_changes(turns, changes + pairs, sid)
        specs, record_id = turns + fresh + [spec for _, spec in changed], None
        if final:
            full = parsed if start == 0 else parse_transcript(transcript_path)
            whole = full.turns
            record = session_record(whole)
            if record is not None:
                # A new record joins the turns' write session: every write session loads and saves the JSON
                # indexes, ~2 s at 100k chunks (bench/run.py).
                layers = session_layers(record, whole, branch=full.git_branch, recalled=full.recalled,
                                        found=found if start == 0 else None)
                record_spec, record_id = _session_record_spec(store, record, sid, project, transcript_path,
                                                              fallback_time, layers)
                if record_spec is not None:
                    specs.append(record_spec)
        added = []
        stored = store.create_many(specs, reason=f"captured from session {sid}", bulk=True, added=added)
        _supersede_by_change_memories(store, project.id, changed, stored)
        replaced = _supersede_changed_values(store, project.id, changes, stored, sid)
        try:  # causal links between what is stored now: a failure here must never lose the capture
            link_causes(store, whole if final else parsed.turns, specs, stored, sid=sid, fallback_time=fallback_time,
                        record_id=record_id, final=final, replaced=replaced)
        except RlmMemError:
            pass
        _retract_rewound(store, sid, parsed.rewound)
        report.created = sum(1 for c in added if c.id != record_id)
        report.session_record = record_id
        _episode_entries(store.root, [c for c in added if c.kind != "turn" and c.id != record_id])
    except (StoreUnwritable, StoreBusy, PermissionError) as exc:
        report.skipped_reason = str(exc)
        report.candidates = candidates_for(memories)
        return report
    save_offset(store.root, sid, transcript_path, parsed.end_offset, leaf=parsed.leaf, project=filed)
    if final:
        end_session(store.root, sid)
    return report


def _new_memories(store, specs, project_id: str, sid: str) -> list:
    """The memory specs that say something new. One that says again what an active memory of this project (or
    of the person) says, in the same words or with all its values and most of its words, reinforces that memory
    instead: stated again in another session, or the assistant repeating it. A commit is an event: one naming the
    values changes stated before still happened (only the same words make it a duplicate)."""
    fresh = []
    conn = connect(store.root, readonly=True)
    try:
        for spec in specs:
            own_id = new_chunk_id(normalize_timestamp(spec["created"]), spec["key"])
            event = "git" in spec["tags"]  # a commit
            same = find_duplicate(store, spec["content"], project_id) or \
                (None if event else restated(conn, spec["content"], project_id))
            if same and same != own_id:
                reinforce(store, same, spec["confidence"], reason=f"stated again in session {sid}")
            else:
                fresh.append(spec)
    finally:
        if conn is not None:
            conn.close()
    return fresh


def _keep_apart(store, specs, sid: str) -> list:
    """The specs to store here. In a project's shared memory, those about the person (scope user) go to their own
    store instead (store/lifecycle.own_store_beside): a team never receives them."""
    own = own_store_beside(store) if any(s["metadata"].get("scope") == "user" for s in specs) else None
    if own is None:
        return specs
    added = []
    own.create_many([s for s in specs if s["metadata"].get("scope") == "user"],
                    reason=f"captured from session {sid} (about you: kept out of the project's shared memory)",
                    added=added)
    _episode_entries(own.root, added)
    return [s for s in specs if s["metadata"].get("scope") != "user"]


def _retract_rewound(store, sid: str, uuids) -> None:
    """What this session stored from a branch it was later rewound past (turns, memories) is retracted: kept for
    the record, never recalled or shown as current again."""
    if not uuids:
        return
    refs = {f"{sid}/{uuid}" for uuid in uuids}
    for chunk in store.list_chunks(conversation_id=sid):
        if chunk.status == "active" and (chunk.metadata.get("provenance") or {}).get("ref") in refs:
            retract(store, chunk.id, reason="the conversation was rewound past it")


def _turn_key(sid: str, turn) -> str:
    """The key of a turn's first chunk (turn_specs): its id derives from it."""
    return f"turn:{sid}:{turn.uuid or f'offset-{turn.offset}'}:1"


def _tool_settings(root, project, turns) -> tuple:
    """(the settings to keep on each turn, the changes) the session's tool calls made (capture/tools)."""
    observations = observe_session(turns, project.root)
    return settle(observations, load_known(root, project.id, observations))


def _record_settings(specs, kept, sid: str) -> None:
    """What each turn's tool calls set or showed that was news is kept on its chunk (metadata.extra.settings):
    search.db derives the latest value of each key from it for later sessions' capture."""
    by_key = {spec["key"]: spec for spec in specs}
    for turn, settings in kept:
        spec = by_key.get(_turn_key(sid, turn))
        if spec is not None:
            extra = spec["metadata"].setdefault("extra", {})
            extra.setdefault("settings", []).extend({"path": path, "key": key, "value": value}
                                                    for path, key, value in settings)


def _change_specs(changes, turns, sid, project, transcript_path, fallback_time) -> list:
    """(change, create_many spec) of a typed memory for each (change, the same change seen elsewhere) the tools
    made: "KEY = NEW (was OLD) in PATH", derived from the turn that made it (capture/tools/records)."""
    out = []
    for change, also in changes:
        created = change.turn.timestamp or fallback_time
        turn_id = new_chunk_id(normalize_timestamp(created), _turn_key(sid, change.turn))
        ref = change.turn.uuid or f"offset-{change.turn.offset}"
        md = {"kind": "change", "category": "present", "project": project.id, "project_name": project.name,
              "provenance": {"kind": "event", "ref": f"{sid}/{ref}", "file": str(transcript_path)}}
        out.append((change, {"content": memory_text(change, turns, also), "chunk_type": "fact", "conversation_id": sid,
                             "confidence": CHANGE_CONFIDENCE, "tags": ["change"], "created": created,
                             "metadata": md, "links": {"derived_from": [turn_id]},
                             "key": f"change:{sid}:{ref}:{change.path}:{change.key}"}))
    return out


def _supersede_by_change_memories(store, project_id: str, changed, stored) -> None:
    """Each change memory supersedes the project's earlier ones stating its key (exactly: the same key, set in
    the same file or its family) and the older typed memories stating a value it replaced."""
    if not changed:
        return
    by_key = {(c.metadata.get("provenance") or {}).get("hash"): c.id for c in stored}
    memory_of = {id(change): by_key.get(key_hash(spec["key"])) for change, spec in changed}
    conn = connect(store.root, readonly=True)
    try:
        for change, spec in changed:
            new_id, when = memory_of[id(change)], normalize_timestamp(spec["created"])
            for old_id in earlier_change_memories(conn, project_id, change, when, new_id) if new_id else ():
                note = f"replaced {when[:10]}: {change.key} = {change.old} -> {change.new}"
                supersede(store, old_id, new_id, reason=f"{change.key} changed to {change.new}", note=note, when=when)
    finally:
        if conn is not None:
            conn.close()
    pairs = [(Change(old, new, spec["created"], change.turn), memory_of[id(change)])
             for change, spec in changed for old, new in value_pairs(change)]
    memory_for = {id(pair): memory for pair, memory in pairs}
    supersede_stale(store, project_id, [pair for pair, _ in pairs], lambda pair: memory_for.get(id(pair)),
                    spare=("change",))


def _record_changes(specs, changes, sid: str) -> None:
    """Each value change is kept on the chunk of the turn that made it (metadata.extra.changes): the search index
    derives from it which older memories state a replaced value."""
    by_key = {spec["key"]: spec for spec in specs}
    for change in changes:
        spec = by_key.get(_turn_key(sid, change.turn))
        if spec is not None:
            recorded = spec["metadata"].setdefault("extra", {}).setdefault("changes", [])
            if {"old": change.old, "new": change.new} not in recorded:  # two rules can find one pair
                recorded.append({"old": change.old, "new": change.new})


def _supersede_changed_values(store, project_id: str, changes, stored, sid: str) -> list:
    """Values this session changed make the older memories (not turns) that still state them superseded. Returns
    (old id, new id, ...) of each."""
    if not changes:
        return []
    by_key = {(c.metadata.get("provenance") or {}).get("hash"): c.id for c in stored}

    def chunk_of_turn(change):  # the turn's first chunk (ids derive from keys: see turn_specs)
        return by_key.get(key_hash(_turn_key(sid, change.turn)))

    # A change memory is replaced by a later change of its key in its file or family (_supersede_by_change_memories):
    # `max_length = 128` edited in conf/model/deberta.yaml is no change of roberta.yaml's. A value without its key
    # (`0 5 * * *` -> `30 4 * * *`, a package swapped for another) still replaces it, whatever the key is called now.
    keyed = [change for change in changes if " = " in (change.old or "")]
    unkeyed = [change for change in changes if " = " not in (change.old or "")]
    return supersede_stale(store, project_id, keyed, chunk_of_turn, spare=("change",)) + \
        supersede_stale(store, project_id, unkeyed, chunk_of_turn)


def _session_record_spec(store, record, sid, project, transcript_path, fallback_time, layers=None) -> tuple:
    """(create_many spec of a new session record or None, its id). A stored record is updated here. `layers`:
    seed 002's five layers (capture/layers), kept in metadata.layers beside the text."""

    text = record.to_text()
    created = record.started or fallback_time
    key = f"session:{sid}"
    cid = new_chunk_id(created, key)
    existing = store.get_chunk(cid, track=False)
    piece = store.engine.chunk(text)[0]
    structure = redact_value({"layers": layers, "ended": record.ended}) if layers else {}  # as stored, to compare
    if existing is not None:
        if existing.content != piece or any(existing.metadata.get(k) != v for k, v in structure.items()):
            store.revise_chunk(cid, content=piece, reason="session record updated", **structure)
        return None, cid
    md = {"kind": "session", "category": "past", "project": project.id, "project_name": project.name,
          "title": f"Session: {record.intent[:120]}" if record.intent else "Session record",
          "files": list(record.files_edited)[:200],
          "provenance": {"kind": "outcome", "ref": sid, "file": str(transcript_path)}, **structure}
    return dict(content=piece, chunk_type="note", conversation_id=sid, confidence=SESSION_CONFIDENCE,
                created=created, metadata=md, key=key, tags=["session"]), cid


def _episode_entries(root, chunks) -> None:
    for chunk in chunks:
        append_episode(root, chunk.created, summary_line(chunk.to_dict(), 80), chunk.id, chunk.kind, chunk.tags,
                       summary_line(chunk.to_dict(), 160))


# ---------------------------------------------------------------- the worker
def ingest(store, *, wait: bool = True, timeout: float = 900, max_passes: int = 5, after_pass=None) -> list:
    """Capture everything queued. With wait=False (a detached worker) it leaves at once if another worker runs.

    A few passes pick up what hooks queued while the worker ran; what still fails stays queued for next time.
    `after_pass(store, reports)`: called with each pass's reports while the worker still holds its lock (the
    CLI reads Claude Code's auto memory of the sessions that ended: interop/auto_memory.py).
    """

    ensure_dir(Path(store.root) / "state")
    lock = owner_lock(Path(store.root) / "state" / INGEST_LOCK, timeout if wait else 0)
    reports, seen = [], {}
    for attempt in range(max_passes):
        if not try_acquire(lock):
            return reports  # another worker is on it and re-checks the queue before it leaves
        try:
            if not wait and attempt == 0:
                # The detached worker also rebuilds an index an older rlm-mem made (session start asks for it:
                # too long for a hook), under its lock so that hooks see it running and start no other.
                store.sync_derived()
            todo = [(p, e) for p, e in pending(store.root) if seen.get(p) != e.get("enqueued")]
            done = []
            for path, entry in todo:
                seen[path] = entry.get("enqueued")
                done.append(_capture_entry(store, path, entry))
            reports += done
            if after_pass is not None and done:
                after_pass(store, done)
        finally:
            lock.release()
        if not todo:
            break
    return reports


def _capture_entry(store, queue_file: Path, entry: dict) -> CaptureReport:
    transcript = Path(entry["transcript_path"])
    sid = entry.get("session_id") or transcript.stem
    try:
        size_before = transcript.stat().st_size
    except OSError:
        return _give_up(store, queue_file, sid, transcript, "transcript not found")
    try:
        report = capture_transcript(store, transcript, session_id=sid, cwd=entry.get("cwd"),
                                    final=bool(entry.get("final")))
    except Exception as exc:  # one bad transcript must not stop the others, nor be tried again forever
        return _give_up(store, queue_file, sid, transcript, f"{type(exc).__name__}: {exc}")
    if report.candidates:
        return report  # keep the queue entry: nothing was saved
    try:
        if transcript.stat().st_size == size_before and read_json(queue_file).get("enqueued") == entry.get("enqueued"):
            remove_if_present(queue_file)  # nothing arrived meanwhile
    except (OSError, ValueError):
        pass
    return report


def _give_up(store, queue_file: Path, sid: str, transcript: Path, why: str) -> CaptureReport:
    """Drop a queue entry that failed, saying so once in state/capture-failures.log."""
    remove_if_present(queue_file)
    line = f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} dropped {sid} ({transcript}): {why}"
    try:
        append_line(Path(store.root) / "state" / FAILURES_LOG, " ".join(line.split())[:1000])
    except OSError:
        pass  # the report still says it; a log that cannot be written must not stop the worker
    return CaptureReport(session_id=sid, skipped_reason=f"{why} (dropped from the queue)")


# ---------------------------------------------------------------- older transcripts, on request
_SLUG_KEEP = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def transcripts_folder(project_root) -> Path:
    """Where Claude Code keeps a project's transcripts: ~/.claude/projects/<the folder's path, every character
    other than a letter or digit made "-"> ($CLAUDE_CONFIG_DIR instead of ~/.claude when set)."""
    config = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")
    slug = "".join(ch if ch in _SLUG_KEEP else "-" for ch in os.path.realpath(project_root))
    return Path(config) / "projects" / slug


def backfill(store, paths, *, since: float | None = None) -> list:
    """Capture transcripts rlm-mem did not see (sessions from before it was installed, or that it never saw
    start): each file in `paths`, or each *.jsonl in a folder of them, last changed at or after `since` (epoch
    seconds), that has something not yet captured. Each is filed under the folder its session started in."""
    found = []
    for path in paths:
        path = Path(path)
        found += sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    reports = []
    for path in found:
        try:
            info = path.stat()
        except OSError:
            continue
        if since is not None and info.st_mtime < since:
            continue
        state = captured_offset(store.root, path.stem)
        if state.get("offset", 0) >= info.st_size and not seen_session(store.root, path.stem):
            continue  # captured to its end already
        reports.append(capture_transcript(store, path, final=True))
    return reports
