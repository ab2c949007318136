"""What each Claude Code hook does: stdin's HookInput in, the hook's output (or None) out.

Every handler resolves its context once (brain/context/resolve.py: project, config, off switch, memory root) and
hands the work to the library. Modules load inside the handler that needs them: SessionStart and UserPromptSubmit
must stay near a bare interpreter start, so neither pays for what only the other (or a writer) uses.
`exiting`: the process leaves through os._exit once the handler returns (scripts/hook.py's reading hooks), so what
a handler only reads from may be left open; the writers close what they open whatever it says.
"""
import os

from brain.context.dependencies import ENV_PLUGIN_DATA, ENV_TRANSCRIPT
from brain.context.resolve import resolve
from brain.hooks.io import envelope
from brain.store.sensitivity import limit_from_env

# brain/hud/sliders.py's COMMAND_WORDS, written out: importing the slider table for them put brain.hud and its
# slider types on every prompt's path (~0.2 ms). tests/test_hud.py checks that the two agree.
COMMAND_WORDS = (" mode", "_amp", "_boost", "_compass", "_depth", "_filter", "_pulse", "creativity", "creativity_pulse",
                 "directness", "directness_filter", "humor", "humor_amp", "morality", "morality_compass", "slider",
                 "tech_depth", "technicality", "verbosity", "verbosity_boost")

# The session's last part, mined for candidates when memory is unwritable: 128 KB take ~0.2 s of CPU (512 KB took
# 0.6 s, more than SessionEnd's 1.5 s as soon as the machine is busy; bench/trust.py measures it under load).
CANDIDATES_TAIL_BYTES = 128 * 1024


class MemoryUnwritable(Exception):
    """SessionEnd could not queue this session for capture: nothing was saved."""


def _quoted(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def _share_with_bash(inp) -> None:
    """Tell the commands Claude runs (its Bash tool gets no plugin variables) where the plugin's data folder is,
    and which transcript is this session's (`rlm-mem hud` draws the session's own task and tools from it):
    Claude Code sources what a SessionStart hook appends to CLAUDE_ENV_FILE before each of them."""
    env_file = os.environ.get("CLAUDE_ENV_FILE")
    if not env_file:
        return
    data = os.environ.get("CLAUDE_PLUGIN_DATA")
    lines = f"export {ENV_PLUGIN_DATA}={_quoted(data)}\n" if data else ""
    if inp.transcript_path:
        lines += f"export {ENV_TRANSCRIPT}={_quoted(inp.transcript_path)}\n"
    if not lines:
        return
    try:
        with open(env_file, "a", encoding="utf-8") as fh:
            fh.write(lines)
    except OSError:
        pass  # the command line then says which folder it uses (`rlm-mem where`)


def session_start(inp, exiting=False):
    from brain.session.brief import build_session_context  # the brief, the HUD and the worker start

    _share_with_bash(inp)
    context = resolve(inp.project_dir or None)
    if context.disabled:
        return None
    return envelope("session-start", build_session_context(context.root, context.project, inp,
                                                           max_sensitivity=limit_from_env()))


def user_prompt_submit(inp, exiting=False):
    context = resolve(inp.project_dir or None)
    if context.disabled or not inp.prompt.strip():
        return None
    root, parts, changed = context.root, [], False
    if any(word in inp.prompt.lower() for word in COMMAND_WORDS):
        from brain.hud.state import apply_prompt_commands  # the command parser (with `re`) only when it may match

        try:
            changed = apply_prompt_commands(root, inp.prompt)
        except OSError:
            changed = False
    if changed:
        from brain.session.brief import current_brief, hud_text  # the HUD is redrawn only when a slider moved

        brief = current_brief(root, context.project, max_sensitivity=limit_from_env())
        parts.append("LiveHud sliders changed by this prompt; current LiveHud:\n"
                     + hud_text(root, inp, active=True, brief=brief))
    from brain.recall.recall import recall  # not loaded by the other hooks

    result = recall(root, inp.prompt, project=context.project.id, max_sensitivity=limit_from_env(),
                    exiting=exiting, typed=True)
    if result.items:
        from brain.safety.fence import fence  # only when something was recalled

        parts.append(fence(result.render(), label="recall"))
    return envelope("user-prompt-submit", "\n\n".join(parts)) if parts else None


def stop(inp, exiting=False):
    from brain.session.background import queue_capture  # writers' modules stay off the reading hooks' path

    context = resolve(inp.project_dir or None)
    if not context.disabled:
        queue_capture(context.root, inp.session_id, inp.transcript_path, project=context.project, final=False)
    return None


def session_end(inp, exiting=False):
    from brain.session.background import queue_capture  # writers' modules stay off the reading hooks' path

    context = resolve(inp.project_dir or None)
    if context.disabled:
        return None
    try:
        queue_capture(context.root, inp.session_id, inp.transcript_path, project=context.project, final=True)
    except OSError as exc:
        raise MemoryUnwritable(str(exc)) from exc
    return None


HANDLERS = {"session-start": session_start, "user-prompt-submit": user_prompt_submit, "stop": stop,
            "pre-compact": stop, "session-end": session_end}


def candidates_block(inp) -> str:
    """SessionEnd could not queue: mine the transcript's tail now and hand its memories to the person."""
    from brain.capture.candidates import format_candidates, keep_candidates  # only when memory is unwritable
    from brain.capture.extract import extract_memories  # only when memory is unwritable
    from brain.capture.ingest import candidates_for, memory_specs  # only when memory is unwritable
    from brain.capture.transcript import parse_transcript  # only when memory is unwritable

    # The tail is what matters and all that fits in SessionEnd's 1.5 s (the parser skips a cut first line).
    size = os.path.getsize(inp.transcript_path)
    parsed = parse_transcript(inp.transcript_path, start_offset=max(0, size - CANDIDATES_TAIL_BYTES))
    project = resolve(inp.project_dir or None).project
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
