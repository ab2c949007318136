"""Read Claude Code session transcripts (JSONL) into cleaned conversation turns.

The transcript format is internal to Claude Code and changes between versions, so this parser is defensive:
anything it does not understand is skipped, and nothing in the file's content can make it raise. It reads
incrementally: callers keep `end_offset` and pass it back as `start_offset` next time. The file must be a regular
file (a device such as /dev/zero or a FIFO is refused before anything is read) and one call reads at most
MAX_READ bytes of it: a larger transcript is taken in turns.

Stdlib and brain/safety only: capture hooks import this module. Every text it keeps is redacted as it is read,
before anything clips, joins or summarises it.
"""
from __future__ import annotations

import json
import re
from bisect import bisect_left
from dataclasses import dataclass, field, replace
from functools import cached_property

from brain.capture.settings.formats import format_of
from brain.safety import private
from brain.safety.redact import redact, redact_joined
from brain.util.files import open_regular
from brain.util.text import clip
from brain.util.timestamps import timestamp_or_none

# Tools whose input names a file that was changed, and the one that only reads.
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
READ_TOOLS = frozenset({"Read"})

_SUMMARY_MAX = 120
_RESULT_HEAD = 400
_RESULT_TAIL = 1200
_ERROR_MAX = 300
_EDIT_MAX = 2000
# An edit that adds a few short lines names them in its summary ("Edit: values.yaml → maxReplicas: 8"): a value
# changed in a file is often said nowhere else in the conversation ("Raise the ceiling to 8", "bump Node to 20").
# A block of code is not a value: more lines, or longer ones, and the summary names the file only.
_EDIT_GIST_LINES = 3
_EDIT_GIST_MAX = 160
_SKIPPED_TYPES = frozenset({"attachment", "progress", "file-history-snapshot", "summary", "system"})
_FENCE_MARK = "<rlm-mem-context"
MAX_READ = 256 * 1024 * 1024  # bytes one parse reads at most; the next one continues from its end_offset
# A configuration file's text kept from a tool call (a Write, a Read's output, an edit's old and new text), so
# that capture can read the settings it sets; a longer one is data, not configuration, and is not kept.
MAX_FILE_TEXT = 64 * 1024
_SHOWS_FILES = frozenset({"Read", "Write", "Edit", "MultiEdit"})


@dataclass(frozen=True)
class Todo:
    content: str
    status: str  # "pending" | "in_progress" | "completed" (whatever the transcript says)


@dataclass(frozen=True)
class ToolUse:
    """One tool call made by the assistant, with the outcome of its result when the result was seen."""

    id: str | None
    name: str
    summary: str  # one line, e.g. "Bash: pytest -q" or "Edit: src/app.py"
    file_path: str | None = None
    command: str | None = None
    todos: tuple[Todo, ...] = ()  # TodoWrite only
    ok: bool | None = None  # None: no tool_result seen in the parsed range
    output: str = ""  # the shortened result (head and tail) as the tool printed it: read `result`, not this
    edit: tuple[str, str] | None = None  # (old text, new text) of an Edit/MultiEdit: what the change replaced
    # Of a configuration file (settings/formats.format_of), what the call shows of it, each at most MAX_FILE_TEXT:
    edits: tuple = ()  # an Edit's or MultiEdit's replacements, in order: (old, new, replace_all)
    content: str | None = None  # the whole file after the call: a Write's content, a whole-file Read's output
    original: str | None = None  # the whole file before an Edit or Write (Claude Code's toolUseResult.originalFile)
    cell: tuple | None = None  # NotebookEdit: (cell id, new source, edit mode)
    shows_file: bool = False  # a call on a configuration file whose result shows its text (a whole-file Read...)

    @cached_property
    def result(self) -> str:
        """The shortened result, redacted; for heuristics, never stored as memory whole. Redacted when first read:
        most outputs are never read (a rule looks at a call's command first), and they are most of what capture
        would otherwise scan for secrets."""
        return redact(self.output)


@dataclass(frozen=True)
class Turn:
    uuid: str | None
    offset: int  # byte offset of the record's line in the file: unique and stable across incremental parses
    role: str  # "user" | "assistant"
    text: str  # cleaned text: no tool output, no injected context, no private spans
    timestamp: str | None  # ISO-8601 UTC ending in "Z"
    session_id: str | None
    is_sidechain: bool = False
    is_compact_summary: bool = False
    tool_uses: tuple[ToolUse, ...] = ()
    tool_errors: tuple[str, ...] = ()  # short texts of failed tool results for this turn's tool calls
    abandoned: bool = False  # on a branch the conversation was rewound past (off the active parentUuid chain)


@dataclass
class ParsedTranscript:
    turns: list[Turn]
    end_offset: int
    session_id: str | None = None
    cwd: str | None = None  # the latest seen (Claude follows worktrees)
    git_branch: str | None = None  # the latest seen
    errors: int = 0  # lines that were not JSON objects, user/assistant records without a usable message
    compactions: int = 0  # compact_boundary records seen
    compact_timestamps: list[str] = field(default_factory=list)
    recalled: list[str] = field(default_factory=list)  # lines of rlm-mem's context injected into the session
    leaf: str | None = None  # uuid of the active branch's last record (Claude Code's last-prompt leafUuid)
    rewound: set = field(default_factory=set)  # uuids before start_offset that a rewind has since abandoned


# --- cleaning -------------------------------------------------------------------------------------------------

_SYSTEM_REMINDER_OPEN = re.compile(r"<system-reminder\b[^>\n]*>?", re.IGNORECASE)
_SYSTEM_REMINDER_CLOSE = re.compile(r"</system-reminder\s*>", re.IGNORECASE)
_FENCE_OPEN = re.compile(r"<rlm-mem-context([^>\n]*)>?", re.IGNORECASE)
_FENCE_CLOSE = re.compile(r"</rlm-mem-context([^>\n]*)>?[^\n]*", re.IGNORECASE)  # to the end of the closing line
# Slash-command wrappers and their output: the whole block goes; bash-input keeps the command, loses the tags.
_WRAPPER_OPEN = re.compile(r"<(command-[a-z-]+|local-command-[a-z-]+|bash-stdout|bash-stderr|"
                           r"user-prompt-submit-hook)>", re.IGNORECASE)
_WRAPPER_TAG = re.compile(
    r"</?(?:command-[a-z-]+|local-command-[a-z-]+|bash-stdout|bash-stderr|bash-input|user-prompt-submit-hook)>",
    re.IGNORECASE,
)
_CAVEAT_LINE = re.compile(
    r"^[ \t]*Caveat: The messages below were generated by the user while running local commands[^\n]*\n?",
    re.MULTILINE,
)
_INTERRUPTED = re.compile(r"\[Request interrupted by user[^\]\n]*\]")
_TRAILING_SPACE = re.compile(r"(?<![ \t])[ \t]+\n")
_MANY_NEWLINES = re.compile(r"\n{3,}")
# Opening markers that must never survive cleaning, whatever the input looked like.
_FORBIDDEN_OPEN = (_SYSTEM_REMINDER_OPEN, private.OPEN, _FENCE_OPEN)


def _remove_spans(text: str, open_re: re.Pattern, close_re: re.Pattern) -> str:
    """Remove every span from an opening match to its closing match; an unclosed span removes the rest."""
    out = []
    pos = 0
    while True:
        m = open_re.search(text, pos)
        piece = text[pos:m.start()] if m else text[pos:]
        if pos and out and out[-1].endswith(" ") and piece.startswith(" "):
            piece = piece[1:]  # "a <private>x</private> b" becomes "a b", not "a  b"
        out.append(piece)
        if not m:
            break
        cm = close_re.search(text, m.end())
        if not cm:
            break  # unclosed: drop the rest of this text
        pos = cm.end()
    return "".join(out)


def _remove_fences(text: str) -> str:
    """Remove rlm-mem's own injected context, from `<rlm-mem-context...` to the end of its closing line.

    A closing tag with the same attributes (the fence id) is preferred over the first closing tag, so text
    inside the fence cannot end it early; closings are indexed once, keeping this linear on hostile input.
    """
    closings = [(c.start(), c.end(), c.group(1).strip().lower()) for c in _FENCE_CLOSE.finditer(text)]
    starts = [c[0] for c in closings]
    by_attrs: dict[str, tuple[list[int], list[int]]] = {}  # attrs -> (closing starts, closing indexes)
    for index, (start, _, attrs) in enumerate(closings):
        same_starts, same_indexes = by_attrs.setdefault(attrs, ([], []))
        same_starts.append(start)
        same_indexes.append(index)
    out = []
    pos = 0
    while True:
        m = _FENCE_OPEN.search(text, pos)
        piece = text[pos:m.start()] if m else text[pos:]
        out.append(piece)
        if not m:
            break
        attrs = m.group(1).strip().lower()
        index = None
        if attrs in by_attrs and attrs:
            same_starts, same_indexes = by_attrs[attrs]
            k = bisect_left(same_starts, m.end())
            index = same_indexes[k] if k < len(same_indexes) else None
        if index is None:
            index = bisect_left(starts, m.end())
        if index >= len(closings):
            break  # unclosed: drop the rest of this text
        pos = closings[index][1]
    return "".join(out)


def _remove_wrappers(text: str) -> str:
    """Remove <command-...>...</command-...> style blocks in one pass (a regex with a backreference is quadratic
    on many unclosed tags); an unclosed tag loses only itself."""
    out = []
    pos = 0
    unclosed: set[str] = set()  # names with no closing tag after some point: no need to search again
    while True:
        m = _WRAPPER_OPEN.search(text, pos)
        if not m:
            out.append(text[pos:])
            break
        out.append(text[pos:m.start()])
        closing = f"</{m.group(1)}>"
        end = -1 if closing in unclosed else text.find(closing, m.end())
        if end < 0:
            unclosed.add(closing)
            pos = m.end()
        else:
            pos = end + len(closing)
    return _WRAPPER_TAG.sub("", "".join(out))


def clean_text(text: str) -> str:
    """Strip what is not the speaker's own words: system reminders, private spans, rlm-mem's injected context,
    slash-command wrappers and their output. Returns tidy text (possibly empty)."""
    if not isinstance(text, str) or not text:
        return ""
    # Hostile input can rebuild a marker out of the pieces around a removed span ("<priv<private>x</private>ate>"),
    # so repeat until nothing changes; each pass only shortens the text.
    for _ in range(8):
        before = text
        text = _remove_spans(text, _SYSTEM_REMINDER_OPEN, _SYSTEM_REMINDER_CLOSE)
        text = _remove_fences(text)
        text = _remove_spans(text, private.OPEN, private.CLOSE)
        if "<" in text:
            text = _remove_wrappers(text)
        if "Caveat:" in text:
            text = _CAVEAT_LINE.sub("", text)
        if "[Request interrupted" in text:
            text = _INTERRUPTED.sub("", text)
        if text == before:
            break
    for pattern in _FORBIDDEN_OPEN:  # last resort: cut at any marker still left
        m = pattern.search(text)
        if m:
            text = text[:m.start()]
    text = _TRAILING_SPACE.sub("\n", text)
    text = _MANY_NEWLINES.sub("\n\n", text)
    return _valid_unicode(text.strip())


def _valid_unicode(text: str) -> str:
    # JSON can carry lone surrogates ("\ud800"), which cannot be written as UTF-8 later.
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


# --- small field readers (every one tolerates any JSON value) ------------------------------------------------

def _str(value) -> str | None:
    return value if isinstance(value, str) and value else None


def _result_text(content) -> str:
    """Text of a tool_result's content: a string, or a list of text blocks (images and the like are skipped)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and isinstance(block.get("text"), str):
                parts.append(block["text"])
        return "\n".join(parts)
    return ""


def _shorten_result(text: str) -> str:
    """Head and tail of a tool's output (test summaries and error lines sit at the end, the command's first lines at
    the start), each cut where a line or word ends: a token cut in half no longer looks like one to the redactor."""
    if len(text) <= _RESULT_HEAD + _RESULT_TAIL:
        return text
    head_end = max(text.rfind("\n", 0, _RESULT_HEAD), text.rfind(" ", 0, _RESULT_HEAD))
    tail_start = len(text) - _RESULT_TAIL
    breaks = [i for i in (text.find("\n", tail_start), text.find(" ", tail_start)) if i >= 0]
    tail_start = min(breaks) + 1 if breaks else len(text)
    return text[:max(head_end, 0)] + "\n…\n" + text[tail_start:]


def _error_text(text: str) -> str:
    """An error as memory keeps it: redacted first, then clipped (a clipped token would no longer look like one)."""
    text = redact(re.sub(r"</?tool_use_error>", "", text).strip())
    return clip(text, _ERROR_MAX) if text else "(error)"


def _todos(value) -> tuple[Todo, ...]:
    if not isinstance(value, list):
        return ()
    todos = []
    for item in value:
        if isinstance(item, dict):
            content = _str(item.get("content")) or _str(item.get("activeForm"))
            if content:
                todos.append(Todo(clip(redact(content), 300), _str(item.get("status")) or "pending"))
    return tuple(todos)


def _tool_use(block: dict) -> ToolUse:
    name = _str(block.get("name")) or "tool"
    tool_input = block.get("input")
    if not isinstance(tool_input, dict):
        tool_input = {}
    # Everything kept of a call is redacted before it is clipped, joined or summarised (a secret cut in half, or
    # moved away from the word that named it, would no longer look like one).
    file_path = _redacted(_str(tool_input.get("file_path")) or _str(tool_input.get("notebook_path")))
    command = _redacted(_str(tool_input.get("command"))) if name == "Bash" else None
    todos = _todos(tool_input.get("todos")) if name == "TodoWrite" else ()
    if command:
        detail = command
    elif file_path:
        detail = file_path
    elif name == "TodoWrite":
        detail = f"{len(todos)} todos"
    else:
        # First short string argument says enough: a pattern, a url, a query, a description.
        detail = redact(next((v for k, v in tool_input.items() if isinstance(v, str) and v.strip()), ""))
    summary = clip(f"{name}: {detail}" if detail else name, _SUMMARY_MAX)
    edit = _edit_texts(name, tool_input)
    configured = name in _SHOWS_FILES and format_of(file_path) is not None
    whole = name != "Read" or not (tool_input.get("offset") or tool_input.get("limit"))  # a part read is no file
    written = tool_input.get("content") if name == "Write" else None
    # a small file written whole: its lines (a large one is not read: its gist would be empty)
    lines = (redact(written) if len(written) < _EDIT_MAX else written[:_EDIT_MAX]) if isinstance(written, str) else None
    gist = _edit_gist(("", lines) if lines is not None else edit)
    if gist:
        summary = f"{summary} → {gist}"
    return ToolUse(
        id=_str(block.get("id")),
        name=name,
        summary=summary,
        file_path=file_path or _str(tool_input.get("path")),
        command=command,
        todos=todos,
        edit=edit,
        edits=_replacements(name, tool_input) if configured else (),
        content=_bounded(written) if configured else None,
        cell=_cell(tool_input) if name == "NotebookEdit" else None,
        shows_file=configured and whole,
    )


def _bounded(text):
    return text if isinstance(text, str) and len(text) <= MAX_FILE_TEXT else None


def _replacements(name: str, tool_input: dict) -> tuple:
    """(old, new, replace_all) of each replacement an Edit or MultiEdit makes, in order; () when one is too long
    to keep (then none can be applied to a known text in order)."""
    edits = tool_input.get("edits") if name == "MultiEdit" else [tool_input] if name == "Edit" else None
    out = []
    for edit in edits if isinstance(edits, list) else ():
        if not isinstance(edit, dict):
            return ()
        old, new = _bounded(edit.get("old_string")), _bounded(edit.get("new_string"))
        if old is None or new is None:
            return ()
        out.append((old, new, edit.get("replace_all") is True))
    return tuple(out)


def _cell(tool_input: dict):
    source, cell_id = tool_input.get("new_source"), tool_input.get("cell_id")
    if not isinstance(source, str) or len(source) > MAX_FILE_TEXT:
        return None
    return (cell_id if isinstance(cell_id, str) else "", source, _str(tool_input.get("edit_mode")) or "replace")


# A Read's output: each line numbered as `cat -n` does (older Claude Code: "     1→text"; newer: "     1\ttext").
_NUMBERED_LINE = re.compile(r"^ *(\d+)(?:\u2192|\t)(.*)$")


def read_output_text(output: str):
    """The file text a Read's output shows (line numbers taken off, Claude Code's reminder after it dropped), or
    None when its lines are not numbered from 1 one after another (a partial read, an error, an empty file)."""
    at = output.find("<system-reminder>")
    if at >= 0:
        output = output[:at]
    lines = output.rstrip("\n").split("\n")
    text = []
    for expected, line in enumerate(lines, 1):
        m = _NUMBERED_LINE.match(line)
        if not m or int(m.group(1)) != expected:
            return None
        text.append(m.group(2))
    return "\n".join(text) + "\n" if text else None


def _edit_gist(edit) -> str:
    """The lines an edit added, when it added a few short ones; else empty (see _EDIT_GIST_LINES). Nothing for a
    text cut at _EDIT_MAX (its lines would not be the edit's), and control characters are blanked (a terminal
    shows what recall prints)."""
    if not edit or len(edit[0]) >= _EDIT_MAX or len(edit[1]) >= _EDIT_MAX:
        return ""
    old, new = edit
    before = {line.strip() for line in old.splitlines()}
    added = [line.strip() for line in new.splitlines() if line.strip() and line.strip() not in before]
    gist = "; ".join(added)
    if not 0 < len(added) <= _EDIT_GIST_LINES or len(gist) > _EDIT_GIST_MAX:
        return ""
    return "".join(ch if ch.isprintable() else " " for ch in gist)


def _edit_texts(name: str, tool_input: dict):
    """(old, new) text of an edit, bounded: the replaced value is read from it; of the text itself only the few
    short lines it adds are stored, in the call's summary (_edit_gist)."""
    if name == "Edit":
        old, new = tool_input.get("old_string"), tool_input.get("new_string")
        pairs = [(old, new)]
    elif name == "MultiEdit" and isinstance(tool_input.get("edits"), list):
        pairs = [(e.get("old_string"), e.get("new_string")) for e in tool_input["edits"] if isinstance(e, dict)]
    else:
        return None
    pairs = [(o, n) for o, n in pairs if isinstance(o, str) and isinstance(n, str) and o != n]
    if not pairs:
        return None
    old, new = "\n".join(o for o, _ in pairs), "\n".join(n for _, n in pairs)
    # redacted before they are cut; a text past _EDIT_MAX is cut and never kept whole (_edit_gist gives nothing)
    return (redact(old) if len(old) < _EDIT_MAX else old[:_EDIT_MAX],
            redact(new) if len(new) < _EDIT_MAX else new[:_EDIT_MAX])


def _redacted(text):
    return redact(text) if text else text


# --- records ---------------------------------------------------------------------------------------------------

@dataclass
class _Pending:
    """A turn under construction: tool results arrive in later records and are attached at the end."""

    record: dict
    offset: int
    role: str
    pieces: list[str]  # the reply's text blocks, cleaned; redacted together when the turn is finished
    tool_uses: list[ToolUse]


def _content_parts(content) -> tuple[list[str], list[dict], list[dict]]:
    """Split message content into (texts, tool_use blocks, tool_result blocks)."""
    if isinstance(content, str):
        return [content], [], []
    texts, uses, results = [], [], []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, str):
                texts.append(block)
            elif isinstance(block, dict):
                kind = block.get("type")
                if kind == "text" and isinstance(block.get("text"), str):
                    texts.append(block["text"])
                elif kind == "tool_use":
                    uses.append(block)
                elif kind == "tool_result":
                    results.append(block)
    return texts, uses, results


def _iter_lines(data: bytes, base: int):
    pos = 0
    size = len(data)
    while pos < size:
        nl = data.find(b"\n", pos)
        if nl < 0:
            nl = size
        yield base + pos, data[pos:nl]
        pos = nl + 1


def _is_whole_record(tail: bytes) -> bool:
    # A prefix of a JSON object is never itself a valid object, so this cannot take a half-written line.
    tail = tail.strip()
    if not tail.startswith(b"{") or not tail.endswith(b"}"):
        return False
    try:
        return isinstance(json.loads(tail.decode("utf-8", "replace")), dict)
    except (ValueError, RecursionError):
        return False


def _read_complete(path, start: int, max_bytes: int | None) -> tuple[bytes, int, int]:
    """Bytes of the complete lines from start, the offset after them, and how many oversized lines were skipped.
    NotRegularFile (an OSError) for anything but a regular file; never more than MAX_READ bytes."""
    limit = MAX_READ if max_bytes is None else max(1, min(max_bytes, MAX_READ))
    with open(open_regular(path), "rb") as f:
        f.seek(start)
        data = f.read(limit)
        at_eof = len(data) < limit
        cut = data.rfind(b"\n")
        if at_eof and _is_whole_record(data[cut + 1:]):
            return data, start + len(data), 0  # a final record without its newline is complete all the same
        if cut >= 0:
            return data[: cut + 1], start + cut + 1, 0
        if at_eof:
            return b"", start, 0  # only a half-written line: leave it for next time
        # One line longer than max_bytes: skip past it so the caller still makes progress.
        pos = start + len(data)
        while True:
            block = f.read(1 << 20)
            if not block:
                return b"", start, 0  # the long line is still being written
            nl = block.find(b"\n")
            if nl >= 0:
                return b"", pos + nl + 1, 1
            pos += len(block)


def parse_transcript(path, start_offset: int = 0, max_bytes: int | None = None, *,
                     known_leaf: str | None = None) -> ParsedTranscript:
    """Parse complete JSONL lines from byte `start_offset` (at most about `max_bytes`) into cleaned turns.

    Stops at the last newline, so a line still being written is left for the next call (a final line that is
    already a whole JSON object is taken). Raises OSError only when the file cannot be opened or read; content
    never makes it raise. If `start_offset` is past the end (the file was replaced), nothing is read and
    `end_offset == start_offset`. A tool call whose result lies beyond the parsed range keeps `ok=None`.

    Rewinds: Claude Code keeps a branch the person rewound past in the file, off the active `parentUuid` chain.
    Turns on such a branch come back with `abandoned=True`. `known_leaf` is the `leaf` an earlier call returned
    for the part before `start_offset`: when the new records continue from it, that part is not read again;
    otherwise (a rewind into it) it is scanned, and the uuids of its records now abandoned are in `rewound`.
    """
    start = max(0, int(start_offset or 0))
    data, end_offset, oversized = _read_complete(path, start, max_bytes)
    parsed = ParsedTranscript(turns=[], end_offset=end_offset, errors=oversized)
    pending: list[_Pending] = []
    results: dict[str, tuple[bool, str]] = {}
    shown: dict = {}  # tool use id -> (its whole output, its toolUseResult): calls on configuration files only
    nodes: dict[str, tuple] = {}  # uuid -> (parent uuid, is a prompt), main chain only, in file order

    for offset, line in _iter_lines(data, start):
        if not line.strip():
            continue
        try:
            record = json.loads(line.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            parsed.errors += 1
            continue
        if not isinstance(record, dict):
            parsed.errors += 1
            continue
        try:
            _take_node(record, nodes)
            _take_record(record, offset, parsed, pending, results, shown)
        except Exception:  # a record shape nobody anticipated must not stop capture of the rest
            parsed.errors += 1

    abandoned = _abandoned(path, start, nodes, known_leaf, parsed)
    parsed.turns = [_finish(p, results, abandoned, shown) for p in pending]
    return parsed


def start_cwd(path, max_lines: int = 50) -> str | None:
    """The folder the session started in: the first `cwd` among the transcript's first lines (None if none)."""
    try:
        with open(open_regular(path), "rb") as f:  # never a FIFO or a device
            for _ in range(max_lines):
                line = f.readline(1 << 20)
                if not line:
                    break
                if b'"cwd"' not in line:
                    continue
                try:
                    record = json.loads(line.decode("utf-8", "replace"))
                except (ValueError, RecursionError):
                    continue
                if isinstance(record, dict) and _str(record.get("cwd")):
                    return record["cwd"]
    except OSError:
        return None
    return None


# --- the active branch ------------------------------------------------------------------------------------------

def _take_node(record: dict, nodes: dict) -> None:
    """Remember where a main-chain record hangs (a compaction boundary continues from its logical parent)."""
    uuid = _str(record.get("uuid"))
    if uuid is None or record.get("isSidechain") is True:
        return
    parent = _str(record.get("parentUuid")) or _str(record.get("logicalParentUuid"))
    nodes[uuid] = (parent, _is_prompt(record))


def _is_prompt(record: dict) -> bool:
    """A person's message (not a tool result, not Claude Code's own meta text)."""
    if record.get("type") != "user" or record.get("isMeta") is True:
        return False
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return bool(content.strip())
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "text" for b in content)


def _scan_nodes(path, end: int) -> dict:
    """The chain links of every record before byte `end` (only read when a rewind reaches back there)."""
    nodes: dict[str, tuple] = {}
    with open(open_regular(path), "rb") as f:
        data = f.read(end)
    for _, line in _iter_lines(data, 0):
        if b'"uuid"' not in line:
            continue
        try:
            record = json.loads(line.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            continue
        if isinstance(record, dict):
            try:
                _take_node(record, nodes)
            except Exception:  # same tolerance as the main parse
                continue
    return nodes


def _walk_back(nodes: dict, leaf) -> tuple[set, str | None]:
    """(uuids on the chain from `leaf` back to its root, the uuid where the walk left `nodes` or None)."""
    chain, current = set(), leaf
    while current in nodes and current not in chain:
        chain.add(current)
        current = nodes[current][0]
    return chain, current


def _off_branch(nodes: dict, chain: set) -> set:
    """Records in a subtree that forks off the active chain and holds a prompt of its own: a rewound branch.
    (A fork without a prompt, such as a tool result beside its sibling, is not a branch anyone left.)"""
    children: dict[str, list] = {}
    for uuid, (parent, _) in nodes.items():
        if parent is not None:
            children.setdefault(parent, []).append(uuid)
    left = set()
    for node in chain:
        for child in children.get(node, ()):
            if child in chain:
                continue
            subtree, todo = set(), [child]
            while todo:
                current = todo.pop()
                if current not in subtree:
                    subtree.add(current)
                    todo.extend(children.get(current, ()))
            if any(nodes[u][1] for u in subtree):
                left |= subtree
    return left


def _abandoned(path, start: int, nodes: dict, known_leaf, parsed: ParsedTranscript) -> set:
    """Uuids of this range's records that are off the active branch; fills `parsed.leaf` and `parsed.rewound`."""
    if not nodes:
        parsed.leaf = known_leaf
        return set()
    parsed.leaf = next(reversed(nodes))  # records are appended to the branch in use: the last one is its end
    chain, left_at = _walk_back(nodes, parsed.leaf)
    if start and left_at is not None and left_at != known_leaf:
        older = _scan_nodes(path, start)  # the new records hang below an earlier one: a rewind reached back
        everything = {**older, **nodes}
        chain, _ = _walk_back(everything, parsed.leaf)
        left = _off_branch(everything, chain)
        parsed.rewound = {uuid for uuid in left if uuid in older and uuid not in nodes}
        return left - parsed.rewound
    return _off_branch(nodes, chain)


# --- one record ---------------------------------------------------------------------------------------------------

def _fenced_lines(text: str) -> list:
    """The item lines of rlm-mem's own injected context in `text`, without their id and date marks."""
    out, inside = [], False
    for line in text.splitlines():
        if _FENCE_MARK in line:
            inside = True
            continue
        if "</rlm-mem-context" in line:
            inside = False
            continue
        line = line.strip()
        if not inside or not line.startswith("- "):
            continue
        if line.startswith("- [") and "] " in line:
            line = line.split("] ", 1)[1]
        elif " · " in line:
            line = line.rsplit(" · ", 1)[1]
        else:
            line = line[2:]
        if line:
            out.append(line)
    return out


def _take_record(record: dict, offset: int, parsed: ParsedTranscript, pending: list, results: dict,
                 shown: dict) -> None:
    parsed.session_id = parsed.session_id or _str(record.get("sessionId"))
    parsed.cwd = _str(record.get("cwd")) or parsed.cwd
    parsed.git_branch = _str(record.get("gitBranch")) or parsed.git_branch

    kind = record.get("type")
    if kind == "attachment":
        attachment = record.get("attachment")
        if isinstance(attachment, dict) and attachment.get("type") == "hook_additional_context":
            content = attachment.get("content")  # a list of the hooks' texts; a string in some versions
            for text in content if isinstance(content, list) else (content,):
                if isinstance(text, str) and _FENCE_MARK in text:
                    parsed.recalled.extend(_fenced_lines(text))
        return
    if kind == "system" and record.get("subtype") == "compact_boundary":
        parsed.compactions += 1
        ts = timestamp_or_none(record.get("timestamp"), millis=True)
        if ts:
            parsed.compact_timestamps.append(ts)
        return
    if kind in _SKIPPED_TYPES or kind not in ("user", "assistant") or record.get("isMeta") is True:
        return
    message = record.get("message")
    if not isinstance(message, dict):
        parsed.errors += 1
        return
    texts, uses, tool_results = _content_parts(message.get("content"))

    for block in tool_results:
        use_id = _str(block.get("tool_use_id"))
        if use_id:
            text = _result_text(block.get("content"))
            results[use_id] = (block.get("is_error") is True, _shorten_result(text))  # (errors are kept)
            if use_id in shown:  # one result a record: its toolUseResult is this call's
                shown[use_id] = (text[:MAX_FILE_TEXT + 4096], record.get("toolUseResult") if len(tool_results) == 1
                                 else None)

    if kind == "user":
        for raw in texts:  # older Claude Code versions put a hook's context into the prompt itself
            if _FENCE_MARK in raw:
                parsed.recalled.extend(_fenced_lines(raw))
    pieces = [t for t in map(clean_text, texts) if t]
    tool_uses = [_tool_use(b) for b in uses] if kind == "assistant" else []
    for use in tool_uses:
        if use.id and use.shows_file:
            shown[use.id] = ("", None)  # its result is kept when it comes (see _with_file_text)
    if not pieces and not tool_uses:
        return  # tool output, command noise or an empty record: not anyone's words
    last = pending[-1] if pending else None
    if last is not None and kind == "assistant" and last.role == "assistant" and _same_thread(last.record, record):
        # Claude Code writes each block of a reply (text, every tool call) as its own record: one reply is one turn
        last.pieces.extend(pieces)
        last.tool_uses.extend(tool_uses)
        return
    pending.append(_Pending(record, offset, kind, pieces, tool_uses))


def _with_file_text(use: ToolUse, output: str, details) -> ToolUse:
    """`use` with the configuration file's text its result shows: a whole-file Read's text (Claude Code's
    toolUseResult.file, else its numbered output), the text before an Edit or a Write over a file
    (toolUseResult.originalFile)."""
    details = details if isinstance(details, dict) else {}
    if use.name == "Read":
        shown = details.get("file") if isinstance(details.get("file"), dict) else {}
        whole = shown.get("startLine", 1) == 1 and shown.get("numLines") == shown.get("totalLines")
        content = _bounded(shown.get("content")) if whole and "content" in shown else None
        return replace(use, content=content if content is not None else _bounded(read_output_text(output)))
    return replace(use, original=_bounded(details.get("originalFile")))


def _same_thread(first: dict, record: dict) -> bool:
    """Whether two records belong to one reply: same sidechain-ness and the same compaction status."""
    return (first.get("isSidechain") is True) == (record.get("isSidechain") is True) and \
        (first.get("isCompactSummary") is True) == (record.get("isCompactSummary") is True)


def _finish(p: _Pending, results: dict, abandoned: set, shown: dict) -> Turn:
    uses = []
    errors = []
    for use in p.tool_uses:
        outcome = results.get(use.id) if use.id else None
        if outcome is not None:
            is_error, output = outcome
            use = replace(use, ok=not is_error, output=output)
            if is_error:
                errors.append(_error_text(use.result))
            elif use.id in shown:
                use = _with_file_text(use, *shown[use.id])
        uses.append(use)
    record = p.record
    return Turn(
        uuid=_str(record.get("uuid")),
        offset=p.offset,
        role=p.role,
        text=redact_joined(p.pieces, "\n\n"),  # (redacted before anything reads, cuts or lower-cases it)
        timestamp=timestamp_or_none(record.get("timestamp"), millis=True),
        session_id=_str(record.get("sessionId")),
        is_sidechain=record.get("isSidechain") is True,
        is_compact_summary=record.get("isCompactSummary") is True,
        tool_uses=tuple(uses),
        tool_errors=tuple(errors),
        abandoned=_str(record.get("uuid")) in abandoned,
    )
