"""Claude Code hook handlers: stdin JSON in, hook output out. They fail open.

Whatever happens, a hook exits 0 within its time limit with at most one line on stderr, and never blocks the
person's work. The one exception is the protocol's: when SessionEnd cannot save memories, it exits 2 so that
Claude Code shows the MEMORY_CANDIDATES (on stderr) to the person, and nothing is claimed as saved.

Only stdlib modules load at import; each handler imports what it needs. No pathlib, dataclasses or logging
on this path: each costs milliseconds, and SessionStart / UserPromptSubmit must stay near a bare interpreter.
"""
import os
import sys

try:  # the C module: `signal` wraps it in enums, and importing `enum` costs ~3 ms of a hook's start
    import _signal as signal
except ImportError:  # pragma: no cover - other interpreters
    import signal

from brain.hud.sliders import COMMAND_WORDS
from brain.store.sensitivity import limit_from_env
from brain.util import fastjson

MAX_STDIN = 16 * 1024 * 1024
CANDIDATES_TAIL_BYTES = 2 * 1024 * 1024
CONTEXT_CAP = 9_500  # Claude Code replaces additionalContext over 10,000 characters by a preview
TIME_LIMITS = {"session-start": 8.0, "user-prompt-submit": 8.0, "stop": 8.0, "pre-compact": 8.0,
               "session-end": 1.2}
EVENT_NAMES = {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit", "stop": "Stop",
               "pre-compact": "PreCompact", "session-end": "SessionEnd"}


class HookInput:
    """The event JSON, parsed once; missing or mistyped fields become empty strings."""

    FIELDS = ("session_id", "transcript_path", "cwd", "source", "prompt", "reason")
    __slots__ = ("event",) + FIELDS

    def __init__(self, event: str, **fields):
        self.event = event
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
        if not inp.cwd:
            inp.cwd = os.environ.get("CLAUDE_PROJECT_DIR", "")
        return inp


class HookInputError(ValueError):
    pass


def envelope(event: str, context: str) -> str:
    if len(context) > CONTEXT_CAP:
        context = context[: CONTEXT_CAP - 40].rstrip() + "\n[rlm-mem: context trimmed to fit]"
    return fastjson.dumps({"hookSpecificOutput": {"hookEventName": EVENT_NAMES[event], "additionalContext": context}})


# ---------------------------------------------------------------- shared helpers
def _memory_root():
    from brain.context.location import remember_plugin_location, resolve_memory_root

    root, _ = resolve_memory_root()
    plugin_data = os.environ.get("CLAUDE_PLUGIN_DATA")
    if plugin_data and os.fspath(root) == os.path.join(plugin_data, "memory"):
        remember_plugin_location(root)  # only the plugin's own folder: never a project's or an explicit one
    return os.fspath(root)


def _project(inp: HookInput):
    from brain.context.project import memory_disabled, project_id

    project = project_id(inp.cwd or os.getcwd())
    disabled = project.root is not None and memory_disabled(project.root)
    return project, disabled


def context_use(transcript_path: str, window: int = 200_000) -> str:
    """'NN%' of the context window used, from the last assistant usage in the transcript tail; 'Stable' if unknown."""
    try:
        with open(transcript_path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - 256 * 1024))
            tail = fh.read().decode("utf-8", errors="replace").splitlines()
    except (OSError, TypeError, ValueError):
        return "Stable"
    for line in reversed(tail):
        if '"usage"' not in line:
            continue
        try:
            usage = fastjson.loads(line)["message"]["usage"]
            used = sum(int(usage.get(k) or 0) for k in ("input_tokens", "cache_read_input_tokens",
                                                        "cache_creation_input_tokens"))
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
        if used:
            return f"{min(99, round(100 * used / window))}%"
    return "Stable"


def _queue_capture(root, inp: HookInput, *, final: bool) -> None:
    from brain.capture.queue import enqueue, spawn_worker, worker_running

    if inp.transcript_path:
        enqueue(root, inp.session_id or os.path.basename(inp.transcript_path)[:-6], inp.transcript_path,
                cwd=inp.cwd, final=final)
    if not worker_running(root):
        spawn_worker(root)


# ---------------------------------------------------------------- handlers
def session_start(inp: HookInput):
    from brain.session.brief import build_session_context

    root = _memory_root()
    project, disabled = _project(inp)
    if disabled:
        return None
    return envelope("session-start", build_session_context(root, project, inp, max_sensitivity=limit_from_env()))


def user_prompt_submit(inp: HookInput):
    root = _memory_root()
    project, disabled = _project(inp)
    if disabled or not inp.prompt.strip():
        return None
    parts, changed = [], False
    lowered = inp.prompt.lower()
    if any(word in lowered for word in COMMAND_WORDS):  # import the HUD only for prompts that may move a slider
        from brain.hud.state import apply_prompt_commands

        try:
            changed = apply_prompt_commands(root, inp.prompt)
        except OSError:
            changed = False
    if changed:
        from brain.session.brief import current_brief, hud_text

        brief = current_brief(root, project, max_sensitivity=limit_from_env())
        parts.append("LiveHud sliders changed by this prompt; current LiveHud:\n"
                      + hud_text(root, inp, active=True, brief=brief))
    from brain.recall.recall import recall

    result = recall(root, inp.prompt, project=project.id, max_sensitivity=limit_from_env())
    body = result.render() if result.items else ""
    if body:
        from brain.safety.fence import fence

        parts.append(fence(body, label="recall"))
    return envelope("user-prompt-submit", "\n\n".join(parts)) if parts else None


def stop(inp: HookInput):
    root = _memory_root()
    _, disabled = _project(inp)
    if not disabled:
        _queue_capture(root, inp, final=False)
    return None


def session_end(inp: HookInput):
    root = _memory_root()
    _, disabled = _project(inp)
    if disabled:
        return None
    try:
        _queue_capture(root, inp, final=True)
    except OSError as exc:
        _RUN["queue_failed"] = True
        raise MemoryUnwritable(str(exc)) from exc
    return None


_RUN = {"queue_failed": False}  # what the timeout handler may truthfully say


class MemoryUnwritable(Exception):
    pass


HANDLERS = {"session-start": session_start, "user-prompt-submit": user_prompt_submit, "stop": stop,
            "pre-compact": stop, "session-end": session_end}


def _candidates_block(inp: HookInput) -> str:
    """SessionEnd could not queue: mine the transcript now and hand the memories to the person."""
    from brain.capture.ingest import candidates_for, keep_candidates, memory_specs
    from brain.capture.candidates import format_candidates
    from brain.capture.extract import extract_memories
    from brain.context.project import project_id
    from brain.capture.transcript import parse_transcript

    # The tail is what matters and all that fits in SessionEnd's 1.5 s (the parser skips a cut first line).
    size = os.path.getsize(inp.transcript_path)
    parsed = parse_transcript(inp.transcript_path, start_offset=max(0, size - CANDIDATES_TAIL_BYTES))
    project = project_id(inp.cwd or os.getcwd())
    specs = memory_specs(extract_memories(parsed.turns), session_id=inp.session_id or "session", project=project,
                         transcript_path=inp.transcript_path, fallback_time="")
    cands = candidates_for(specs)
    if not cands:
        return ""
    text = format_candidates(cands)
    kept = keep_candidates(text, inp.session_id or "session")
    if kept:
        text += f"\n(kept in {kept}; save them with `rlm-mem import --format candidates {kept}`)\n"
    return text


def _stderr_line(message: str) -> None:
    try:
        sys.stderr.write("rlm-mem: " + " ".join(str(message).split())[:300] + "\n")
        sys.stderr.flush()
    except Exception:
        pass


def main(argv) -> int:
    """Entry for scripts/hook.py: `hook.py EVENT` with the event JSON on stdin."""
    event = argv[0] if argv else ""
    if event not in HANDLERS:
        _stderr_line(f"unknown hook event {event!r}; expected one of {', '.join(HANDLERS)}")
        return 0
    try:
        limit = float(os.environ.get("RLM_MEM_HOOK_TIMEOUT", TIME_LIMITS[event]))
    except ValueError:
        limit = TIME_LIMITS[event]
    if not 0 < limit < 3600:
        limit = TIME_LIMITS[event]

    def out_of_time(signum, frame):
        if _RUN["queue_failed"]:
            _stderr_line(f"could not save this session's memories (memory folder unwritable) and ran out of time "
                         f"listing them; the transcript is {getattr(inp, 'transcript_path', '') or 'unknown'}")
        else:
            _stderr_line(f"{event} gave up after {limit:g}s (memory work stays queued)")
        os._exit(0)

    if hasattr(signal, "setitimer"):
        signal.signal(signal.SIGALRM, out_of_time)
        signal.setitimer(signal.ITIMER_REAL, limit)
    inp = None
    try:
        raw = sys.stdin.buffer.read(MAX_STDIN + 1) if sys.stdin is not None else b""
        if len(raw) > MAX_STDIN:
            raise HookInputError(f"stdin is larger than {MAX_STDIN // (1024 * 1024)} MB")
        inp = HookInput.parse(event, raw)
        output = HANDLERS[event](inp)
        if output:
            sys.stdout.write(output + "\n")
            sys.stdout.flush()
        return 0
    except MemoryUnwritable as exc:
        try:
            block = _candidates_block(inp) if inp and inp.transcript_path else ""
        except Exception:
            block = ""
        if block:
            sys.stderr.write(f"rlm-mem could not save this session's memories ({exc}); nothing was saved.\n\n{block}")
            sys.stderr.flush()
            return 2  # SessionEnd: Claude Code shows stderr to the person
        _stderr_line(f"memory folder unwritable ({exc}); nothing to save from this session")
        return 0
    except BaseException as exc:  # fail open: one line, exit 0
        if isinstance(exc, KeyboardInterrupt):
            return 0
        _stderr_line(f"{event} skipped: {type(exc).__name__}: {exc}")
        return 0
    finally:
        if hasattr(signal, "setitimer"):
            signal.setitimer(signal.ITIMER_REAL, 0)
