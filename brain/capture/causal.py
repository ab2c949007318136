"""Seed 002's causal links, made at capture from what the transcript shows, without a model.

- An error and the change that fixed it: a command fails (a test run, a build), files are edited, the same command
  then succeeds. The turn holding each edit `solves` the turn where the error was seen (when they are two turns)
  and the person's turn that reported the problem ("the date test fails"); those lead to it (`led_to`). The
  learning capture drew from it is `caused_by` the error's turn (a passing test run is the session record's, not
  a memory of its own).
- A decision and what it replaced: a decision said in the turn that changed a value (or in the request just before
  it) `supersedes` the older memories capture found stating the old value (the changing turn already does).
- A task and what blocked it: when a session ends with a command still failing, its record (the session's task)
  and the request that started that work are `blocked_by` the turn where it failed.
Turns are the unit a transcript gives (one assistant turn holds every call between two prompts), so an error
fixed inside the same turn links that turn to the person's report of it and to what was learned. Links are added
to chunks already stored (`ChunkStore.link_many`, one write session); adding them again changes nothing.
"""
from dataclasses import dataclass, field

from brain.capture.tool_calls import EDIT_TOOLS
from brain.store.build import key_hash
from brain.store.chunk import new_chunk_id
from brain.util.errors import RlmMemError
from brain.util.text import clip
from brain.util.timestamps import normalize_timestamp

# Words of a person's turn that report a problem: what the edits that followed were meant to solve.
_PROBLEM_WORDS = ("fail", "error", "broken", "bug", "crash", "exception", "traceback", "doesn't work",
                  "does not work", "not working", "wrong", "regress")
# A failed call the person caused or a tool refused: nothing to fix in the code.
_NOT_A_FAULT = ("rejected", "interrupted", "permission denied by user", "doesn't want to proceed")
_RUNNERS = frozenset({"npm", "npx", "yarn", "pnpm", "bun", "deno", "go", "cargo", "make", "python", "python3", "uv",
                      "poetry", "bundle", "dotnet", "mvn", "gradle", "./gradlew", "mix", "rake", "tox", "nox"})
MAX_BLOCKERS = 3


@dataclass
class Fixed:
    """An error and what made it go away."""

    error_turn: object  # capture.transcript.Turn
    closing_turn: object
    fix_turns: list = field(default_factory=list)
    report_turn: object = None  # the person's turn that named the problem (before the error, or before the fix)
    error: str = ""  # the line of the failed command's output that says what failed
    files: list = field(default_factory=list)  # the files edited before it passed

    def learning(self) -> str:
        return f"Error: {self.error} — fixed by: editing {', '.join(self.files[:4])}"


_ERROR_MARKS = ("error", "failed", "fail:", "exception", "panic", "cannot", "not found", "no such", "undefined")


def error_line(output: str) -> str:
    """The line of a failed command's output that names what failed (a FAILED test, an ...Error: line), else its
    last line; at most 200 characters."""
    lines = [line.strip() for line in (output or "").splitlines() if line.strip()]
    named = [line for line in lines if any(mark in line.lower() for mark in _ERROR_MARKS)]
    return clip((named or lines or ["the command failed"])[0], 200)


def command_key(command: str) -> str:
    """The program a command runs ("pytest", "npm test", "go test"), from its last `&&` / `;` part before a pipe:
    runs of one program count as the same check."""
    main = command.replace("&&", ";").split(";")[-1].split("|")[0]
    words = [w for w in main.split() if "=" not in w and not w.startswith("-")]
    if not words:
        return ""
    program = words[0].rsplit("/", 1)[-1] if not words[0].startswith("./") else words[0]
    return f"{program} {words[1]}" if program in _RUNNERS and len(words) > 1 else program


def _reports_problem(text: str) -> bool:
    lowered = (text or "").lower()
    return any(word in lowered for word in _PROBLEM_WORDS)


def trace(turns) -> tuple:
    """(errors fixed, errors still open at the end) over the main chain of `turns`, in order. An error is a failed
    command; it is fixed by the edits made before the same command next succeeds (a success with no edit between
    is a flaky run, not a fix)."""
    fixed, open_errors, last_user = [], {}, None
    for turn in turns:
        if turn.is_sidechain or turn.abandoned:
            continue
        if turn.role == "user" and turn.text and not turn.is_compact_summary:
            last_user = turn
        for use in turn.tool_uses:
            if use.name in EDIT_TOOLS:
                for error in open_errors.values():
                    if turn not in error.fix_turns:
                        error.fix_turns.append(turn)
                    if use.file_path and use.file_path not in error.files:
                        error.files.append(use.file_path)
                    if error.report_turn is None and last_user is not None and _reports_problem(last_user.text):
                        error.report_turn = last_user  # "the date test is failing, fix it", said after the run
                continue
            if not use.command or use.ok is None:
                continue
            key = command_key(use.command)
            if use.ok is False:
                if key and key not in open_errors and not any(p in use.result.lower() for p in _NOT_A_FAULT):
                    report = last_user if last_user is not None and _reports_problem(last_user.text) else None
                    open_errors[key] = Fixed(turn, None, [], report, error_line(use.result))
            elif key in open_errors:
                error = open_errors.pop(key)
                if error.fix_turns:
                    error.closing_turn = turn
                    fixed.append(error)
    return fixed, list(open_errors.values())


class Ids:
    """Chunk ids of a session's turns and memories, as capture made them (ids derive from keys): those written by
    this capture (by their key's hash), then those an earlier capture of the session wrote (their file exists)."""

    def __init__(self, store, sid: str, stored, fallback_time: str):
        self.store, self.sid, self.fallback = store, sid, fallback_time
        self.by_hash = {(c.metadata.get("provenance") or {}).get("hash"): c.id for c in stored}

    def of_key(self, key: str, created) -> str | None:
        found = self.by_hash.get(key_hash(key))
        if found:
            return found
        try:
            chunk_id = new_chunk_id(normalize_timestamp(created or self.fallback), key)
        except (ValueError, RlmMemError):
            return None
        return chunk_id if self.store.layout.chunk_path(chunk_id).is_file() else None  # live only

    def of_turn(self, turn) -> str | None:
        return self.of_key(f"turn:{self.sid}:{turn.uuid or f'offset-{turn.offset}'}:1", turn.timestamp)


def _memories_of(specs, kind: str, uuids, ids: Ids) -> list:
    """Ids of this capture's memories of `kind` taken from the turns `uuids` (by provenance ref)."""
    refs = {f"{ids.sid}/{uuid}" for uuid in uuids if uuid}
    out = []
    for spec in specs:
        md = spec["metadata"]
        if md.get("kind") == kind and (md.get("provenance") or {}).get("ref") in refs:
            chunk_id = ids.by_hash.get(key_hash(spec["key"]))
            if chunk_id:
                out.append(chunk_id)
    return out


def causal_links(turns, specs, ids: Ids, *, record_id=None, final: bool = False, replaced=()) -> list:
    """(source, link type, target) triples: what this capture's turns and memories say caused what."""
    fixed, still_open = trace(turns)
    links = []

    def both(effect, link, cause):  # the effect holds `link`; the cause `led_to` the effect
        if effect and cause and effect != cause:
            links.append((effect, link, cause))
            links.append((cause, "led_to", effect))

    for error in fixed:
        error_id = ids.of_turn(error.error_turn)
        fix_ids = [i for i in map(ids.of_turn, error.fix_turns) if i]
        report_id = ids.of_turn(error.report_turn) if error.report_turn is not None else None
        for fix_id in fix_ids:
            both(fix_id, "solves", error_id)
            both(fix_id, "solves", report_id)
        involved = [error.error_turn.uuid, error.closing_turn.uuid] + [t.uuid for t in error.fix_turns]
        for learning in _memories_of(specs, "learning", involved, ids):
            both(learning, "caused_by", error_id)
    position = {ids.of_turn(t): i for i, t in enumerate(turns)}
    for old_id, turn_id, *_ in replaced:
        if turn_id not in position:
            continue
        at = position[turn_id]
        asked = _preceding_user(turns, turns[at])
        # the decision is said in the turn that changed the value, in the request before it, or agreed after it
        near = [turns[at].uuid, asked.uuid if asked else None] + [t.uuid for t in turns[at + 1:at + 2]]
        for decision in _memories_of(specs, "decision", near, ids):
            if decision != old_id:
                links.append((decision, "supersedes", old_id))
    if final:
        for error in still_open[-MAX_BLOCKERS:]:
            blocker = ids.of_turn(error.error_turn)
            asked = _preceding_user(turns, error.error_turn)
            tasks = [record_id] + _memories_of(specs, "request", [asked.uuid] if asked else [], ids)
            links += [(task, "blocked_by", blocker) for task in tasks if task and blocker]
    return list(dict.fromkeys(links))


def _preceding_user(turns, turn):
    """The person's turn at or before `turn` (the prompt the work answered)."""
    last = None
    for other in turns:
        if other.role == "user" and other.text and not other.is_sidechain:
            last = other
        if other is turn:
            return last if last is not turn else None
    return None


def link_causes(store, turns, specs, stored, *, sid: str, fallback_time: str, record_id=None, final: bool = False,
                replaced=()) -> int:
    """Make the causal links of one capture pass; returns how many triples were asked for."""
    ids = Ids(store, sid, stored, fallback_time)
    links = causal_links(turns, specs, ids, record_id=record_id, final=final, replaced=replaced)
    if links:
        store.link_many(links, reason=f"causal link captured from session {sid}")
    return len(links)
