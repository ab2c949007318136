"""Play Claude Code's part: fire the bundle's hooks from hooks/hooks.json with JSON on stdin, as Claude Code does.

Used by the demo, the tests and the benchmarks (Claude Code itself is not needed). Commands run under `bash -c`
with ${CLAUDE_PLUGIN_ROOT} substituted; a hook's stdout is read back and its additionalContext extracted.
"""
import json
import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

BUNDLE_ROOT = Path(__file__).resolve().parents[2]
MATCH_FIELD = {"SessionStart": "source", "SessionEnd": "reason", "PreCompact": "trigger"}


@dataclass
class HookRun:
    event: str
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def context(self) -> str:
        text = self.stdout.strip()
        if not text:
            return ""
        if text.startswith("{"):
            try:
                return (json.loads(text).get("hookSpecificOutput") or {}).get("additionalContext") or ""
            except ValueError:
                return ""
        return text


def _matches(matcher: str, value) -> bool:
    if not matcher or matcher == "*" or value is None:
        return True
    if re.fullmatch(r"[A-Za-z0-9_ ,|-]+", matcher):
        return value in {m.strip() for m in re.split(r"[|,]", matcher)}
    return re.search(matcher, value) is not None


def hook_commands(event: str, payload: dict, bundle_root: Path = BUNDLE_ROOT) -> list:
    spec = json.loads((Path(bundle_root) / "hooks" / "hooks.json").read_text(encoding="utf-8"))
    hooks = spec.get("hooks", spec)
    out = []
    for group in hooks.get(event, []):
        if not _matches(group.get("matcher", ""), payload.get(MATCH_FIELD.get(event, ""))):
            continue
        for hook in group.get("hooks", []):
            if hook.get("type", "command") == "command":
                command = hook["command"].replace("${CLAUDE_PLUGIN_ROOT}", str(bundle_root))
                out.append((command, hook.get("timeout", 60)))
    return out


def fire(event: str, payload: dict, *, env: dict | None = None, bundle_root: Path = BUNDLE_ROOT,
         stdin: bytes | None = None, prefix=()) -> list:
    """Run every matching hook for `event`; returns one HookRun per command. `prefix`: a command the hook runs
    under (such as /usr/bin/time)."""
    runs = []
    full_env = dict(os.environ if env is None else env, CLAUDE_PLUGIN_ROOT=str(bundle_root))
    data = stdin if stdin is not None else json.dumps(dict(payload, hook_event_name=event)).encode("utf-8")
    for command, timeout in hook_commands(event, payload, bundle_root):
        t0 = time.perf_counter()
        try:
            p = subprocess.run([*prefix, "bash", "-c", command], input=data, capture_output=True, env=full_env,
                               timeout=timeout, cwd=payload.get("cwd") or None)
            runs.append(HookRun(event, p.returncode, p.stdout.decode("utf-8", "replace"),
                                p.stderr.decode("utf-8", "replace"), time.perf_counter() - t0))
        except subprocess.TimeoutExpired:
            runs.append(HookRun(event, -1, "", "timeout", time.perf_counter() - t0))
    return runs
