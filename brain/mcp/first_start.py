"""The MCP server's first start on a machine where its packages are not installed yet (an installed plugin: no
set-up step ever ran in its copy). Standard library only.

An agent starts the server and gives it a connection timeout (Claude Code: 30 s), but installing the packages
(brain/setup/provision.py: into the cache folder, one installer at a time, often the capture worker that the
SessionStart hook started a moment earlier) may take longer on a slow network. So the server answers at once:
while the packages install in a thread, this stand-in speaks just enough MCP (the initialize handshake, ping,
the tool list from brain/mcp/catalog.py, names and descriptions without argument schemas, every tool call
answered with an error result saying it is installing, try again in a moment); it never makes the agent wait.
The first request after the packages are ready is handed to the real server (the SDK), in this same process, on
the same stdin and stdout: the handshake the stand-in answered is replayed to it (its answer to that is dropped,
the client has one already) and then that request, so the call that found the packages ready is answered by the
real tool; the client is told the tool list changed, so it fetches the real one, schemas and all. Clients that probe the newer,
handshake-free protocol first (`server/discover`) are told the method is unknown and fall back to the handshake.
"""
import importlib
import io
import json
import sys
import threading

from brain.context.dependencies import ready
from brain.mcp.catalog import INSTALLING, INSTRUCTIONS, RESOURCES, SERVER_NAME, TOOLS
from brain.setup.provision import ProvisionError, provision

POLL = 0.5  # seconds between looks while another process installs the packages
HANDSHAKE = ("initialize", "notifications/initialized")
METHOD_NOT_FOUND, INVALID_REQUEST, PARSE_ERROR, INTERNAL_ERROR = -32601, -32600, -32700, -32603
PROTOCOL_VERSION = "2025-06-18"  # answered when the client names none
LIST_CHANGED = b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n'


class Installer:
    """The packages installed in a thread; `state()` is "ready", "installing" or the error that stopped it."""

    def __init__(self, bundle_root):
        self.bundle_root, self.error, self._thread = bundle_root, None, None
        self.closed = threading.Event()  # the client went away: stop waiting for another process's install
        self.start()

    def start(self) -> None:
        self.error = None
        # not a daemon: when the client closes stdin mid-install, the install finishes before the process leaves
        self._thread = threading.Thread(target=self._run, name="rlm-mem-install")
        self._thread.start()

    def _run(self) -> None:
        while not ready(self.bundle_root):
            try:
                provision(self.bundle_root, background=True)  # at once when another process is installing
            except ProvisionError as exc:
                self.error = str(exc)
                return
            except Exception as exc:  # noqa: BLE001 - an unwritable cache folder: said by the tools, no traceback
                self.error = f"cannot install its packages: {exc}"
                return
            if not ready(self.bundle_root) and self.closed.wait(POLL):
                return

    def state(self) -> str:
        if ready(self.bundle_root):
            return "ready"
        if self.error and not self._thread.is_alive():
            return self.error
        return "installing"

    def retry(self) -> None:
        """After a failure was reported: try again (provision itself waits RETRY_AFTER after pip failed)."""
        if self.error and not self._thread.is_alive():
            self.start()


def serve_while_installing(bundle_root, start_server, stdin=None, stdout=None) -> int:
    """Answer MCP on stdin/stdout until the packages are ready, then hand the connection to `start_server()`
    (which runs the real server on sys.stdin/sys.stdout). Returns the exit status."""
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    installer = Installer(bundle_root)
    handshake = []
    while True:
        line = stdin.readline()
        if not line:
            installer.closed.set()
            return 0
        message = _parse(line)
        if isinstance(message, dict) and installer.state() == "ready":
            importlib.invalidate_caches()  # the packages' folder did not exist when the import system first looked
            if handshake:  # the stand-in answered initialize: now the client may hear that the tools changed
                stdout.write(LIST_CHANGED)  # it asks again, and gets the real server's argument schemas
                stdout.flush()
            _hand_over(handshake, line, stdin, stdout)
            start_server()
            return 0
        if isinstance(message, dict) and message.get("method") in HANDSHAKE:
            handshake.append(line)
        reply = _answer(message, installer)
        if reply is not None:
            stdout.write(json.dumps(reply, separators=(",", ":")).encode("utf-8") + b"\n")
            stdout.flush()


def _parse(line: bytes):
    try:
        return json.loads(line)
    except ValueError:
        return None


def _answer(message, installer: Installer):
    """The stand-in's reply to one message (None for a notification)."""
    if not isinstance(message, dict):
        return _error(None, PARSE_ERROR if message is None else INVALID_REQUEST, "not a JSON-RPC message")
    if "id" not in message:
        return None  # a notification: nothing to answer
    method, params, ident = message.get("method"), message.get("params") or {}, message["id"]
    if method == "initialize":
        version = params.get("protocolVersion") if isinstance(params, dict) else None
        return _result(ident, {"protocolVersion": version if isinstance(version, str) else PROTOCOL_VERSION,
                               "capabilities": {"tools": {"listChanged": True}, "resources": {}},
                               "serverInfo": {"name": SERVER_NAME, "version": "installing"},
                               "instructions": INSTRUCTIONS})
    if method == "ping":
        return _result(ident, {})
    if method == "tools/list":
        return _result(ident, {"tools": [{"name": name, "description": text, "inputSchema": {"type": "object"}}
                                         for name, text in TOOLS.items()]})
    if method == "resources/list":
        return _result(ident, {"resources": [{"uri": uri, "name": name, "description": text, "mimeType":
                                              "text/markdown"} for uri, (name, text) in RESOURCES.items()]})
    if method == "resources/templates/list":
        return _result(ident, {"resourceTemplates": []})
    if method in ("tools/call", "resources/read"):
        state = installer.state()
        if state == "installing":
            text = INSTALLING
        else:
            text = f"rlm-mem cannot start its server: {state}"
            installer.retry()
        if method == "resources/read":
            return _error(ident, INTERNAL_ERROR, text)
        return _result(ident, {"content": [{"type": "text", "text": text}], "isError": True})
    return _error(ident, METHOD_NOT_FOUND, f"{method} is not available while rlm-mem installs its packages")


def _result(ident, result: dict) -> dict:
    return {"jsonrpc": "2.0", "id": ident, "result": result}


def _error(ident, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}


def _hand_over(handshake: list, pending: bytes, stdin, stdout) -> None:
    """sys.stdin reads the handshake again, then `pending`, then the rest of the client's stdin; sys.stdout drops
    the real server's answer to the replayed `initialize` (the client has the stand-in's already)."""
    replay = b"".join(handshake) + pending
    initialize = next((_parse(line) for line in handshake if b'"initialize"' in line), None)
    drop = initialize.get("id") if isinstance(initialize, dict) and "id" in initialize else _NOTHING
    sys.stdin = io.TextIOWrapper(io.BufferedReader(_Replayed(replay, stdin)), encoding="utf-8", errors="replace")
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(_DropAnswer(drop, stdout)), encoding="utf-8",
                                  line_buffering=True)


_NOTHING = object()


class _Replayed(io.RawIOBase):
    """Bytes given first, then what `rest` (a buffered binary stream) reads."""

    def __init__(self, first: bytes, rest):
        self.first, self.rest = first, rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self.first[:len(buffer)] if self.first else self.rest.read1(len(buffer))
        self.first = self.first[len(data):] if self.first else b""
        buffer[:len(data)] = data
        return len(data)


class _DropAnswer(io.RawIOBase):
    """Writes whole lines to `out`, leaving out the first answer to request `ident`."""

    def __init__(self, ident, out):
        self.ident, self.out, self.pending = ident, out, b""

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self.pending += bytes(data)
        while b"\n" in self.pending:
            line, self.pending = self.pending.split(b"\n", 1)
            message = _parse(line) if self.ident is not _NOTHING else None
            if isinstance(message, dict) and message.get("id") == self.ident and "method" not in message:
                self.ident = _NOTHING
                continue
            self.out.write(line + b"\n")
            self.out.flush()
        return len(data)
