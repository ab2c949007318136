"""Run one hook as Claude Code does (`python -I -S scripts/hook.py EVENT`, the event JSON on stdin), failing open.

Whatever happens, a hook exits 0 within its time limit with at most one line on stderr, and never blocks the
person's work. The one exception is the protocol's: when SessionEnd cannot save memories, it exits 2 so that
Claude Code shows the MEMORY_CANDIDATES (on stderr) to the person, and nothing is claimed as saved.
No pathlib, dataclasses or logging on this path: each costs milliseconds of a budget of two interpreter starts.
"""
import os
import sys

from brain.cpython.fast import signal  # the C module: `signal` wraps it in enums (~3 ms of a hook's start)
from brain.hooks.handlers import HANDLERS, MemoryUnwritable, candidates_block
from brain.hooks.io import read_input, stderr_line, transcript_problem

# Seconds each hook may take before it gives up (SessionEnd: Claude Code gives all SessionEnd hooks 1.5 s).
TIME_LIMITS = {"session-start": 8.0, "user-prompt-submit": 8.0, "stop": 8.0, "pre-compact": 8.0,
               "session-end": 1.2}


def _limit(event: str) -> float:
    try:
        limit = float(os.environ.get("RLM_MEM_HOOK_TIMEOUT", TIME_LIMITS[event]))
    except ValueError:
        return TIME_LIMITS[event]
    return limit if 0 < limit < 3600 else TIME_LIMITS[event]


def main(argv, *, exiting: bool = False) -> int:
    """`hook.py EVENT` with the event JSON on stdin. Returns the exit code. `exiting`: the caller leaves through
    os._exit right after (see brain/hooks/handlers.py)."""
    event = argv[0] if argv else ""
    if event not in HANDLERS:
        stderr_line(f"unknown hook event {event!r}; expected one of {', '.join(HANDLERS)}")
        return 0
    limit = _limit(event)
    state = {"input": None, "unwritable": False}  # what the timeout handler may truthfully say

    def out_of_time(signum, frame):
        if state["unwritable"]:
            path = getattr(state["input"], "transcript_path", "") or "unknown"
            stderr_line(f"could not save this session's memories (memory folder unwritable) and ran out of time "
                        f"listing them; the transcript is {path}")
        else:
            stderr_line(f"{event} gave up after {limit:g}s (memory work stays queued)")
        os._exit(0)

    if hasattr(signal, "setitimer"):
        signal.signal(signal.SIGALRM, out_of_time)
        signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        state["input"] = inp = read_input(event, sys.stdin)
        problem = transcript_problem(inp.transcript_path)
        if problem:
            stderr_line(problem)
            return 0
        output = HANDLERS[event](inp, exiting=exiting)
        if output:
            sys.stdout.write(output + "\n")
            sys.stdout.flush()
        return 0
    except MemoryUnwritable as exc:
        state["unwritable"] = True
        return _hand_out_candidates(state["input"], exc)
    except BaseException as exc:  # fail open: one line, exit 0
        if not isinstance(exc, KeyboardInterrupt):
            stderr_line(f"{event} skipped: {type(exc).__name__}: {exc}")
        return 0
    finally:
        if hasattr(signal, "setitimer"):
            signal.setitimer(signal.ITIMER_REAL, 0)


def _hand_out_candidates(inp, exc) -> int:
    try:
        block = candidates_block(inp) if inp and inp.transcript_path else ""
    except Exception:  # noqa: BLE001 - the transcript may be gone or unreadable: say so in one line instead
        block = ""
    if block:
        sys.stderr.write(f"rlm-mem could not save this session's memories ({exc}); nothing was saved.\n\n{block}")
        sys.stderr.flush()
        return 2  # SessionEnd: Claude Code shows stderr to the person
    stderr_line(f"memory folder unwritable ({exc}); nothing to save from this session")
    return 0
