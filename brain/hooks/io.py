"""A hook's input and output: the event JSON parsed once, the JSON envelope Claude Code reads, one stderr line.

Stdlib only (the C JSON scanner through fastjson): every hook imports this module first. Stdin is read up to
MAX_STDIN; a transcript_path that names something other than a regular file (/dev/zero, /dev/urandom, a FIFO, a
folder) is refused before anything opens it (`transcript_problem`).
"""
import os
import stat
import sys

from brain.util import fastjson

MAX_STDIN = 16 * 1024 * 1024
CONTEXT_CAP = 9_500  # Claude Code replaces additionalContext over 10,000 characters by a preview
EVENT_NAMES = {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit", "stop": "Stop",
               "pre-compact": "PreCompact", "session-end": "SessionEnd"}


class HookInputError(ValueError):
    pass


class HookInput:
    """The event JSON, parsed once; missing or mistyped fields become empty strings. `project_dir` is the session's
    folder: $CLAUDE_PROJECT_DIR (it stays at the session's root while `cwd` follows Claude into subfolders and
    worktrees), else `cwd`."""

    FIELDS = ("session_id", "transcript_path", "cwd", "source", "prompt", "reason")
    __slots__ = ("event", "project_dir") + FIELDS

    def __init__(self, event: str, **fields):
        self.event = event
        self.project_dir = ""
        for name in self.FIELDS:
            value = fields.get(name)
            setattr(self, name, value if isinstance(value, str) else "")

    @classmethod
    def parse(cls, event: str, raw: bytes) -> "HookInput":
        try:
            data = fastjson.loads(raw.decode("utf-8", errors="replace")) if raw.strip() else {}
        except ValueError:
            raise HookInputError("stdin is not JSON") from None
        if not isinstance(data, dict):
            raise HookInputError("stdin JSON is not an object")
        inp = cls(event, **{k: data.get(k) for k in cls.FIELDS})
        inp.project_dir = os.environ.get("CLAUDE_PROJECT_DIR", "") or inp.cwd
        if not inp.cwd:
            inp.cwd = inp.project_dir
        return inp


def read_input(event: str, stream) -> HookInput:
    raw = stream.buffer.read(MAX_STDIN + 1) if stream is not None else b""
    if len(raw) > MAX_STDIN:
        raise HookInputError(f"stdin is larger than {MAX_STDIN // (1024 * 1024)} MB")
    return HookInput.parse(event, raw)


def transcript_problem(path: str) -> str | None:
    """Why this hook must not touch its transcript_path (it exists and is not a regular file), or None. A stat,
    never an open: opening a FIFO would wait for a writer, reading a device would never end."""
    if not path:
        return None
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None  # not there (yet): the hook carries on without it
    if stat.S_ISREG(mode):
        return None
    return f"transcript_path {path[:200]} is not a regular file; rlm-mem ignored this event"


def envelope(event: str, context: str) -> str:
    """The output Claude Code adds to the conversation (hookSpecificOutput.additionalContext), within its cap."""
    if len(context) > CONTEXT_CAP:
        context = context[: CONTEXT_CAP - 40].rstrip() + "\n[rlm-mem: context trimmed to fit]"
    return fastjson.dumps({"hookSpecificOutput": {"hookEventName": EVENT_NAMES[event], "additionalContext": context}})


def stderr_line(message: str) -> None:
    """One line on stderr (what a failing-open hook says), never more; redacted before it is cut (a message may quote
    a path or an error that holds a token)."""
    try:
        text = " ".join(str(message).split())
        from brain.safety.triggers import may_hold_secret  # only when something is said: a hook that works says nothing

        if may_hold_secret(text):
            from brain.safety.redact import redact  # (with `re`) only for a message that may hold a secret

            text = redact(text)
        sys.stderr.write("rlm-mem: " + text[:300] + "\n")
        sys.stderr.flush()
    except Exception:
        pass
