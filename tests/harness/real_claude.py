"""Drive the real Claude Code CLI with rlm-mem installed one of the three ways people install it, offline.

Each `Workspace` is a fresh HOME and a fresh git project; Claude Code's model calls go to a `MessagesAPI` on
127.0.0.1 (tests/harness/messages_api.py), so a test sees exactly what the model would have received. Routes:
- "settings": `rlm-mem install --project` from the bundle's .venv (hooks in the project's settings.local.json);
- "plugin-dir": `claude --plugin-dir BUNDLE` (the working tree itself is the plugin);
- "marketplace": the bundle's files as a fresh repository with no set-up step (no .venv), added with
  `claude plugin marketplace add` and installed with `claude plugin install`.
Claude Code is found through $CLAUDE_BIN, `claude` on PATH, or where .ci/run installs it (.ci/claude-code/).
"""
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

from harness.messages_api import MessagesAPI

from brain.capture.queue import worker_running

BUNDLE_ROOT = Path(__file__).resolve().parents[2]
CI_INSTALL = BUNDLE_ROOT / ".ci" / "claude-code" / "node_modules" / ".bin" / "claude"
VERSION = "2.1.330"  # what .ci/run installs; older ones do not let a skill pre-approve its commands
ROUTES = ("settings", "plugin-dir", "marketplace")
# The MCP server's tools as the model sees them: a plugin's server is "plugin:<plugin>:<server>" in Claude Code
MCP_PREFIX = {"settings": "mcp__rlm-mem__", "plugin-dir": "mcp__plugin_rlm-mem_rlm-mem__",
              "marketplace": "mcp__plugin_rlm-mem_rlm-mem__"}
MCP_SERVER = {"settings": "rlm-mem", "plugin-dir": "plugin:rlm-mem:rlm-mem", "marketplace": "plugin:rlm-mem:rlm-mem"}
PLUGIN_ID = {"plugin-dir": "rlm-mem-inline", "marketplace": "rlm-mem-rlm-mem"}  # Claude Code's data folder names
HOOK_RUN = re.compile(r"Hooks: (\w+)(?::\w+)? \[.*?\](?: \(plugin [^)]*\))? finished with status (\d+) \((\d+)ms\)")
HOOK_TROUBLE = re.compile(r"[Hh]ook[^\n]* error|timed out|status (?:code )?[1-9]")
FENCE = re.compile(r'<rlm-mem-context fence="(\w+)" label="([\w-]+)"[^>]*>(.*?)</rlm-mem-context fence="\1">', re.S)


def find_claude():
    """(path, None) or (None, why not): the one line a skipped test shows."""
    for candidate in (os.environ.get("CLAUDE_BIN"), shutil.which("claude"), str(CI_INSTALL)):
        if candidate and os.access(candidate, os.X_OK):
            try:
                out = subprocess.run([candidate, "--version"], capture_output=True, text=True, timeout=60).stdout
            except (OSError, subprocess.TimeoutExpired) as exc:
                return None, f"Claude Code at {candidate} does not run: {exc}"
            found = tuple(int(n) for n in re.findall(r"\d+", out)[:3])
            if found < tuple(int(n) for n in VERSION.split(".")):
                return None, f"Claude Code {out.strip()} is older than {VERSION}, the version .ci/run installs"
            return candidate, None
    return None, ("Claude Code not found: set CLAUDE_BIN, or install it as .ci/run does "
                  f"(npm install --prefix .ci/claude-code @anthropic-ai/claude-code@{VERSION})")


def bundle_copy(target: Path) -> Path:
    """The bundle's files as git would clone them (tracked and new, never ignored: no .venv), in a new repository."""
    listed = subprocess.run(["git", "-C", str(BUNDLE_ROOT), "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = BUNDLE_ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    _git_init(target)
    return target


def _git_init(folder: Path) -> None:
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.email=e2e@test", "-c", "user.name=e2e", "commit", "-qm",
                                                 "init"]):
        subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True)


def files_under(folder: Path, skip=()) -> dict:
    """{relative path: mtime_ns} of every file under `folder`, leaving out folders named in `skip`."""
    out = {}
    for path, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if d not in skip]
        for name in names:
            full = os.path.join(path, name)
            out[os.path.relpath(full, folder)] = os.lstat(full).st_mtime_ns
    return out


def _strings(value) -> list:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        return [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return [text for item in items for text in _strings(item)]


class Session:
    def __init__(self, name, result, debug_log: str, conversations: list, requests: list = ()):
        self.name, self.result, self.debug_log, self.conversations = name, result, debug_log, conversations
        self.requests = list(requests)  # the whole bodies: system text, tools, messages

    def offered_tools(self) -> set:
        """Every tool name the model was offered: in a request's tools, or named in its text (Claude Code lists
        deferred tools, MCP servers' among them, by name for ToolSearch)."""
        names = {tool.get("name") for body in self.requests for tool in body.get("tools") or []}
        return names | {name for text in _strings(self.requests) for name in re.findall(r"\bmcp__[\w-]+", text)}

    def texts(self) -> list:
        """Every string the model was sent in this session's messages (system entries, prompts, tool results)."""
        return _strings(self.conversations)

    def fences(self, label: str) -> list:
        return [m.group(3) for text in self.texts() for m in FENCE.finditer(text) if m.group(2) == label]

    def tool_results(self) -> list:
        """(text, is_error) of every tool result in the last request."""
        out = []
        for message in self.conversations[-1] if self.conversations else []:
            for block in message.get("content") if isinstance(message.get("content"), list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    content = block.get("content")
                    if isinstance(content, list):
                        content = "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
                    out.append((str(content or ""), bool(block.get("is_error"))))
        return out

    def hook_runs(self) -> list:
        """(event, exit status, milliseconds) of each hook run Claude Code's debug log timed."""
        return [(m.group(1), int(m.group(2)), int(m.group(3))) for m in HOOK_RUN.finditer(self.debug_log)]

    def hook_trouble(self) -> list:
        return [line for line in self.debug_log.splitlines()
                if HOOK_TROUBLE.search(line) and "MCP server" not in line]

    def mcp_connections(self, server: str) -> list:
        """Claude Code's debug lines on connecting to the MCP server named `server` (a plugin's is
        "plugin:<plugin>:<server>")."""
        return [line for line in self.debug_log.splitlines() if f'MCP server "{server}": ' in line
                and ("connected" in line or "Connection failed" in line)]

    def told_still_connecting(self, server: str) -> bool:
        """Whether a request told the model that `server` was still connecting (its tools not listed yet: Claude
        Code's ToolSearch waits for it)."""
        return any("still connecting" in text and server in text for text in _strings(self.requests))


class Workspace:
    def __init__(self, claude: str, tmp: Path, route: str):
        self.claude, self.tmp, self.route = claude, tmp, route
        self.home, self.app = tmp / "home", tmp / "app"
        self.home.mkdir()
        self.app.mkdir()
        (self.app / "README.md").write_text("# app\n")
        _git_init(self.app)
        self.api = MessagesAPI()
        keep = {k: v for k, v in os.environ.items()
                if not k.startswith(("RLM_MEM_", "CLAUDE", "ANTHROPIC_", "XDG_", "PYTHON"))}
        self.env = dict(keep, HOME=str(self.home), ANTHROPIC_BASE_URL=self.api.url, ANTHROPIC_API_KEY="sk-ant-e2e",
                        DISABLE_AUTOUPDATER="1", DISABLE_TELEMETRY="1", DISABLE_ERROR_REPORTING="1",
                        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
                        PIP_CACHE_DIR=os.environ.get("PIP_CACHE_DIR") or str(Path.home() / ".cache" / "pip"))
        self.args, self.plugin_root = [], None
        self.sessions = []
        self._install()

    def _run(self, *args, **kw):
        return subprocess.run(list(args), capture_output=True, text=True, env=self.env, cwd=self.app, timeout=180,
                              **kw)

    def _install(self) -> None:
        if self.route == "settings":
            done = self._run(str(BUNDLE_ROOT / ".venv" / "bin" / "rlm-mem"), "install", "--project", str(self.app))
            assert done.returncode == 0, done.stdout + done.stderr
        elif self.route == "plugin-dir":
            self.args, self.plugin_root = ["--plugin-dir", str(BUNDLE_ROOT)], BUNDLE_ROOT
        else:
            self.plugin_root = bundle_copy(self.tmp / "market")
            for args in (["plugin", "marketplace", "add", str(self.plugin_root)],
                         ["plugin", "install", "rlm-mem@rlm-mem"]):
                done = self._run(self.claude, *args)
                assert done.returncode == 0, done.stdout + done.stderr

    @property
    def memory_root(self) -> Path:
        if self.route == "settings":
            return self.home / ".local" / "share" / "rlm-mem" / "memory"
        return self.home / ".claude" / "plugins" / "data" / PLUGIN_ID[self.route] / "memory"

    def session(self, prompt: str, *steps, reply: str, extra=()) -> Session:
        """One `claude -p PROMPT` run; the model calls the tools in `steps` one by one, then says `reply`."""
        name = f"s{len(self.sessions) + 1}"
        self.api.play(*steps, reply=reply)
        mark = self.api.mark()
        log = self.tmp / f"{name}.debug.log"
        done = self._run(self.claude, "-p", prompt, "--output-format", "json", "--debug-file", str(log),
                         *self.args, *extra)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        session = Session(name, json.loads(done.stdout), log.read_text(encoding="utf-8", errors="replace"),
                          self.api.conversations(since=mark), self.api.bodies(since=mark))
        self.sessions.append(session)
        return session

    def wait_for_capture(self, text: str, timeout: float = 150) -> list:
        """The chunk files holding `text`, once capture has finished (nothing queued, no worker at work)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            queue = self.memory_root / "state" / "queue"
            queued = queue.is_dir() and any(queue.iterdir())
            hits = [p for p in (self.memory_root / "chunks").rglob("*.json") if text in p.read_text()] \
                if (self.memory_root / "chunks").is_dir() else []
            if hits and not queued and not worker_running(self.memory_root):
                return hits
            time.sleep(0.3)
        return []

    def rlm_mem(self, *args) -> subprocess.CompletedProcess:
        """The command line as Claude would run it in this route (the plugin's data folder as the hook gave it)."""
        env = dict(self.env)
        if self.route != "settings":
            env["RLM_MEM_PLUGIN_DATA"] = str(self.memory_root.parent)
        root = self.plugin_root or BUNDLE_ROOT
        return subprocess.run([str(root / "bin" / "rlm-mem"), *args], capture_output=True, text=True, env=env,
                              cwd=self.app, timeout=180)

    def close(self) -> None:
        self.api.close()

