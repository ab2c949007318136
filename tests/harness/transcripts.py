"""Write Claude Code session transcripts in the real JSONL shape, from a compact description.

A session is a list of turns: `User("text")`, `Assistant("text", tools=[...])` with tool calls `Bash(command,
output, ok)`, `Edit(path, old, new)`, `MultiEdit(path, [(old, new), ...])`, `Write(path, content)`,
`NotebookEdit(path, cell_id, source, mode)`, `Read(path, output)`, `Todo([(content, status), ...])`. The writer
emits what Claude Code 2.1.x writes: user and assistant records chained by `parentUuid`, assistant text and each
`tool_use` as their own records, each tool result as a user record holding a `tool_result` block (and
`toolUseResult`), with `sessionId`, `cwd`, `gitBranch`, `version` and timestamps a few seconds apart.
Used by tests and by bench/coding_memory.py.
"""
import hashlib
import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

VERSION = "2.1.197"
MODEL = "claude-sonnet-4-5"
NOTEBOOK_RESULTS = {"replace": "Updated cell {cell} with {source}", "insert": "Inserted cell {cell} with {source}",
                    "delete": "Deleted cell {cell}"}


class User:
    def __init__(self, text: str):
        self.text = text


class Assistant:
    def __init__(self, text: str = "", tools=()):
        self.text, self.tools = text, list(tools)


class Tool:
    name = "tool"

    def __init__(self, tool_input: dict, output: str = "", ok: bool = True):
        self.input, self.output, self.ok = tool_input, output, ok

    def outcome(self, files: dict) -> tuple:
        """(the tool_result's text, the record's toolUseResult) as Claude Code gives them, given `files`: the
        project's file texts as the tools left them, which a Write, a Read or an edit updates. A Write's and an
        edit's toolUseResult carry `originalFile` when the text before the call is known."""
        if not self.ok:
            return self.output, f"Error: {self.output}"
        if "old_string" in self.input or "edits" in self.input:
            return _edited(self, files)
        return self.output, {"stdout": self.output, "stderr": "", "interrupted": False}


class Bash(Tool):
    name = "Bash"

    def __init__(self, command: str, output: str = "", ok: bool = True):
        super().__init__({"command": command, "description": command[:60]}, output, ok)

    def outcome(self, files: dict) -> tuple:
        """A `sed -i 's/old/new/[g]' FILE` of a literal text changes the file on disk, as a later Read's or
        edit's text (originalFile) then shows."""
        if self.ok:
            for m in _SED_IN_PLACE.finditer(self.input["command"]):
                old, new, flags, path = m.group("old"), m.group("new"), m.group("flags"), m.group("path")
                if path in files and old and not any(ch in old for ch in "\\^$[]*+?"):
                    files[path] = "".join(line.replace(old, new) if "g" in flags else line.replace(old, new, 1)
                                          for line in files[path].splitlines(keepends=True))
        return super().outcome(files)


_SED_IN_PLACE = re.compile(r"""\bsed\s+-i\S*\s+(['"])s/(?P<old>[^/'"]*)/(?P<new>[^/'"]*)/(?P<flags>g?)\1\s+"""
                           r"""(?P<path>[\w./-]+)""")


class Edit(Tool):
    name = "Edit"

    def __init__(self, path: str, old: str = "", new: str = ""):
        super().__init__({"file_path": path, "old_string": old, "new_string": new},
                         f"The file {path} has been updated.")


class MultiEdit(Tool):
    """Several replacements in one file, applied in order (Claude Code's MultiEdit input: file_path, edits)."""

    name = "MultiEdit"

    def __init__(self, path: str, edits=()):
        pairs = list(edits)
        replaced = "".join(f'\n{n}. Replaced "{old[:50]}" with "{new[:50]}"' for n, (old, new) in enumerate(pairs, 1))
        edits = [{"old_string": old, "new_string": new} for old, new in pairs]
        super().__init__({"file_path": path, "edits": edits},
                         f"Applied {len(edits)} edit{'s' if len(edits) != 1 else ''} to {path}:{replaced}")


class NotebookEdit(Tool):
    """One notebook cell replaced, inserted or deleted (Claude Code's NotebookEdit input: notebook_path, cell_id,
    new_source, cell_type, edit_mode)."""

    name = "NotebookEdit"

    def __init__(self, path: str, cell_id: str, source: str = "", mode: str = "replace", cell_type: str = "code"):
        super().__init__({"notebook_path": path, "cell_id": cell_id, "new_source": source, "cell_type": cell_type,
                          "edit_mode": mode}, NOTEBOOK_RESULTS[mode].format(cell=cell_id, source=source))


class Write(Tool):
    name = "Write"

    def __init__(self, path: str, content: str = ""):
        super().__init__({"file_path": path, "content": content}, f"File created successfully at: {path}")

    def outcome(self, files: dict) -> tuple:
        path, content = self.input["file_path"], self.input["content"]
        before = files.get(path)
        files[path] = content
        if before is None:
            return self.output, {"type": "create", "filePath": path, "content": content, "structuredPatch": [],
                                 "originalFile": None}
        return f"The file {path} has been updated successfully.", {
            "type": "update", "filePath": path, "content": content, "structuredPatch": [], "originalFile": before}


class Read(Tool):
    name = "Read"

    def __init__(self, path: str, output: str = ""):
        super().__init__({"file_path": path}, output)

    def outcome(self, files: dict) -> tuple:
        """`output` is the file's text; Claude Code shows it numbered line by line (`     1→text`)."""
        path, text = self.input["file_path"], self.output
        lines = text.splitlines()
        files[path] = text
        numbered = "\n".join(f"{n:>6}\u2192{line}" for n, line in enumerate(lines, 1))
        return numbered, {"type": "text", "file": {"filePath": path, "content": text, "numLines": len(lines),
                                                   "startLine": 1, "totalLines": len(lines)}}


class Todo(Tool):
    name = "TodoWrite"

    def __init__(self, items):
        todos = [{"content": c, "status": s, "activeForm": c} for c, s in items]
        super().__init__({"todos": todos}, "Todos have been modified successfully.")


def write_session(path, session_id: str, cwd, start: datetime, turns, *, step_seconds: int = 20,
                  branch: str = "main", files: dict | None = None) -> Path:
    """Write one session's transcript to `path` (Claude Code's JSONL shape); returns the path. `files`: the
    project's file texts as the tools left them (Tool.outcome), kept across a history's sessions by a caller that
    passes the same dict, as the disk would keep them."""
    path = Path(path)
    files = {} if files is None else files
    records, parent, clock = [], None, start.astimezone(timezone.utc)
    base = {"isSidechain": False, "userType": "external", "cwd": str(cwd), "sessionId": session_id,
            "version": VERSION, "gitBranch": branch}

    def emit(kind: str, message: dict, **extra) -> None:
        nonlocal parent, clock
        uuid = f"{session_id}-{len(records):04d}"
        clock += timedelta(seconds=step_seconds)
        records.append(dict(base, type=kind, uuid=uuid, parentUuid=parent,
                            timestamp=clock.strftime("%Y-%m-%dT%H:%M:%S.000Z"), message=message, **extra))
        parent = uuid

    for turn in turns:
        if isinstance(turn, User):
            emit("user", {"role": "user", "content": turn.text})
            continue
        if turn.text:
            emit("assistant", _assistant([{"type": "text", "text": turn.text}], "end_turn" if not turn.tools else None))
        for n, tool in enumerate(turn.tools):
            use_id = f"toolu_{session_id}_{len(records):04d}_{n}"
            emit("assistant", _assistant([{"type": "tool_use", "id": use_id, "name": tool.name, "input": tool.input}],
                                         "tool_use"))
            text, details = tool.outcome(files)
            result = {"type": "tool_result", "tool_use_id": use_id, "content": text or "(no output)"}
            if not tool.ok:
                result["is_error"] = True
            emit("user", {"role": "user", "content": [result]}, toolUseResult=details)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _assistant(content: list, stop_reason) -> dict:
    # from the content's digest, not hash(): the same history writes the same transcript in every run
    digest = int.from_bytes(hashlib.sha256(json.dumps(content).encode()).digest()[:8], "big")
    return {"id": f"msg_{digest % 10**12:012d}", "type": "message", "role": "assistant",
            "model": MODEL, "content": content, "stop_reason": stop_reason, "stop_sequence": None,
            "usage": {"input_tokens": 1200, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 8000,
                      "output_tokens": 150, "service_tier": "standard"}}


def _edited(tool, files: dict) -> tuple:
    """An Edit's or MultiEdit's outcome: the file's text after its replacements, in order, when the text before is
    known and each applies (else no longer known)."""
    path, before = tool.input["file_path"], files.get(tool.input["file_path"])
    edits = tool.input.get("edits") or [tool.input]
    after = before
    for edit in edits:
        old, new = edit["old_string"], edit["new_string"]
        after = after.replace(old, new, 1) if after is not None and old in after else None
    if after is None:
        files.pop(path, None)
    else:
        files[path] = after
    details = {"filePath": path, "originalFile": before, "structuredPatch": [], "userModified": False}
    if "edits" in tool.input:
        details["edits"] = tool.input["edits"]
    else:
        details.update(oldString=tool.input["old_string"], newString=tool.input["new_string"], replaceAll=False)
    return tool.output, details
