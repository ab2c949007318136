"""Where the session stands, read from the tail of its transcript for the LiveHud: how much of Claude's context
window it has used (Context), the task the person gave last (Present) and what its tools are doing (Tools).
Stdlib and fastjson only: session start shows it."""
import os

from brain.util import fastjson
from brain.util.files import open_regular

TAIL_BYTES = 256 * 1024


# Commands that check work rather than do it: their run is "Verifying" in the Tools gauge.
_CHECKS = ("pytest", "test", "lint", "ruff", "mypy", "tsc", "check", "vet", "clippy", "eslint", "flake8")


def _read_tail(transcript_path: str) -> list:
    try:
        with open(open_regular(transcript_path), "rb") as fh:  # never a FIFO or a device
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - TAIL_BYTES))
            return fh.read(TAIL_BYTES).decode("utf-8", errors="replace").splitlines()
    except (OSError, TypeError, ValueError):
        return []


def _prompt_text(content) -> str:
    """A person's words in a user record's content ("" for tool results, Claude Code's own command wrappers and
    reminders)."""
    if isinstance(content, list):
        content = " ".join(b.get("text") or "" for b in content if isinstance(b, dict) and b.get("type") == "text")
    if not isinstance(content, str):
        return ""
    text = content.split("<system-reminder>", 1)[0].strip()
    return "" if text.startswith("<") or text.startswith("Caveat:") else text


def _context_share(record, window: int) -> str:
    try:
        usage = record["message"]["usage"]
        used = sum(int(usage.get(k) or 0) for k in ("input_tokens", "cache_read_input_tokens",
                                                    "cache_creation_input_tokens"))
    except (KeyError, TypeError, AttributeError, ValueError):
        return ""
    return f"{min(99, round(100 * used / window))}%" if used else ""


def session_view(transcript_path: str, window: int = 200_000) -> dict:
    """{"context": "NN%" of the context window the last answer used ("Stable" if unknown), "task": the person's
    last prompt ("" before the first), "tools": what the tools do for it} from the transcript's tail, read
    backwards. Tools: Executing (a call still without its result), Verifying (that call runs tests, a linter or a
    type check), Blocked (the last result was an error), Active (tools used since the prompt), Standby (none yet)."""
    context, task, last_result, used, waiting, answered = "", None, None, False, [], set()
    for line in reversed(_read_tail(transcript_path)):
        if task is not None and (context or '"usage"' not in line):
            if context:
                break
            continue  # the task is known: only the context share is still looked for
        if '"type"' not in line or ('"user"' not in line and '"assistant"' not in line):
            continue
        try:
            record = fastjson.loads(line)
            content = (record.get("message") or {}).get("content")
        except (ValueError, AttributeError):
            continue
        if record.get("isSidechain") is True or record.get("isMeta") is True:
            continue
        blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
        if record.get("type") == "assistant":
            context = context or _context_share(record, window)
            if task is None:
                for block in blocks:
                    if block.get("type") == "tool_use":
                        used = True
                        if block.get("id") not in answered:
                            command = (block.get("input") or {}).get("command") if block.get("name") == "Bash" else ""
                            waiting.append(command if isinstance(command, str) else "")
            continue
        if task is not None:
            continue
        results = [b for b in blocks if b.get("type") == "tool_result"]
        for block in results:
            answered.add(block.get("tool_use_id"))
            last_result = block.get("is_error") is True if last_result is None else last_result
        if not results and _prompt_text(content):
            task = _prompt_text(content)
    if waiting:
        checking = any(word in command for command in waiting for word in _CHECKS)
        tools = "Verifying" if checking else "Executing"
    else:
        tools = "Blocked" if last_result else "Active" if used else "Standby"
    return {"context": context or "Stable", "task": task or "", "tools": tools}
