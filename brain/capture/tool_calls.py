"""One tool call of a Claude Code transcript, read from its tool_use block: its name, a one-line summary, the
command, the files, the edits and writes of configuration files, and its result once that arrives.

Every text kept of a call is redacted before it is clipped, joined or summarised; a result is redacted when a
rule first reads it (`ToolUse.result`). brain/capture/transcript.py reads the records these blocks come in.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property

from brain.capture.settings.formats import format_of
from brain.capture.tools.checklists import is_checklist
from brain.safety.redact import redact
from brain.util.text import clip

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


def string_or_none(value) -> str | None:
    """`value` when it is a non-empty string (a transcript's fields may hold any JSON value)."""
    return value if isinstance(value, str) and value else None


def result_text(content) -> str:
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


def shorten_result(text: str) -> str:
    """Head and tail of a tool's output (test summaries and error lines sit at the end, the command's first lines at
    the start), each cut where a line or word ends: a token cut in half no longer looks like one to the redactor."""
    if len(text) <= _RESULT_HEAD + _RESULT_TAIL:
        return text
    head_end = max(text.rfind("\n", 0, _RESULT_HEAD), text.rfind(" ", 0, _RESULT_HEAD))
    tail_start = len(text) - _RESULT_TAIL
    breaks = [i for i in (text.find("\n", tail_start), text.find(" ", tail_start)) if i >= 0]
    tail_start = min(breaks) + 1 if breaks else len(text)
    return text[:max(head_end, 0)] + "\n…\n" + text[tail_start:]


def error_text(text: str) -> str:
    """An error as memory keeps it: redacted first, then clipped (a clipped token would no longer look like one)."""
    text = redact(re.sub(r"</?tool_use_error>", "", text).strip())
    return clip(text, _ERROR_MAX) if text else "(error)"


def _todos(value) -> tuple[Todo, ...]:
    if not isinstance(value, list):
        return ()
    todos = []
    for item in value:
        if isinstance(item, dict):
            content = string_or_none(item.get("content")) or string_or_none(item.get("activeForm"))
            if content:
                todos.append(Todo(clip(redact(content), 300), string_or_none(item.get("status")) or "pending"))
    return tuple(todos)


def tool_use(block: dict) -> ToolUse:
    name = string_or_none(block.get("name")) or "tool"
    tool_input = block.get("input")
    if not isinstance(tool_input, dict):
        tool_input = {}
    # Everything kept of a call is redacted before it is clipped, joined or summarised (a secret cut in half, or
    # moved away from the word that named it, would no longer look like one).
    file_path = _redacted(string_or_none(tool_input.get("file_path")) or string_or_none(tool_input.get("notebook_path")))
    command = _redacted(string_or_none(tool_input.get("command"))) if name == "Bash" else None
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
    # (a TODO.md's text too: its open items are the session record's follow-ups, capture/tools/checklists.py)
    configured = name in _SHOWS_FILES and (format_of(file_path) is not None or is_checklist(file_path))
    whole = name != "Read" or not (tool_input.get("offset") or tool_input.get("limit"))  # a part read is no file
    written = tool_input.get("content") if name == "Write" else None
    # a small file written whole: its lines (a large one is not read: its gist would be empty)
    lines = (redact(written) if len(written) < _EDIT_MAX else written[:_EDIT_MAX]) if isinstance(written, str) else None
    gist = _edit_gist(("", lines) if lines is not None else edit)
    if gist:
        summary = f"{summary} → {gist}"
    return ToolUse(
        id=string_or_none(block.get("id")),
        name=name,
        summary=summary,
        file_path=file_path or string_or_none(tool_input.get("path")),
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
    return (cell_id if isinstance(cell_id, str) else "", source, string_or_none(tool_input.get("edit_mode")) or "replace")


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


def with_file_text(use: ToolUse, output: str, details) -> ToolUse:
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
