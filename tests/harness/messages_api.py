"""A local stand-in for the Anthropic Messages API, so the real Claude Code CLI can run offline in tests.

The server listens on 127.0.0.1 (a free port) in a thread of the test process, keeps every request it receives,
and answers `POST /v1/messages` the way the API does (server-sent events when the request asks to stream, one
JSON message otherwise). What "the model" says is a script set per session with `play()`: zero or more tool
calls, one per reply, then a text. A tool call's input may be a function of the conversation so far, the way
the model reads a tool's result before it writes the next call (for instance the command a skill's text gives).
Which step comes next is counted from the tool results in the request that answer this script's own calls, so
an earlier session carried along by `--continue` does not move the script on.
"""
import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Tool:
    """One tool call by the model: `name`, and `input` as a dict or as a function of the request's messages."""

    def __init__(self, name: str, input):
        self.name, self.input = name, input


class MessagesAPI:
    def __init__(self):
        self.requests = []  # every request body (dict), in arrival order
        self.failures = []  # a scripted tool input that could not be made (the reply says so, too)
        self._lock = threading.Lock()
        self._steps, self._reply, self._issued = [], "OK.", set()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def play(self, *steps: Tool, reply: str) -> None:
        """The next session's script: each step is one reply holding a tool call, then `reply` as text."""
        with self._lock:
            self._steps, self._reply, self._issued = list(steps), reply, set()

    def mark(self) -> int:
        """A position in the request log: `conversations(since=mark)` lists what came after it."""
        with self._lock:
            return len(self.requests)

    def conversations(self, since: int = 0) -> list:
        """The `messages` of each model request after `since` (requests to other endpoints left out)."""
        with self._lock:
            return [r["messages"] for r in self.requests[since:] if isinstance(r.get("messages"), list)]

    def bodies(self, since: int = 0) -> list:
        """The whole body of each model request after `since`."""
        with self._lock:
            return [r for r in self.requests[since:] if isinstance(r.get("messages"), list)]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    # --- what the model says -------------------------------------------------------------------------------

    def _next(self, body: dict) -> dict:
        """The content block of the reply to this request, and the script moved on by one step if it is a call."""
        messages = body.get("messages") or []
        with self._lock:
            answered = sum(1 for block in _blocks(messages)
                           if block.get("type") == "tool_result" and block.get("tool_use_id") in self._issued)
            if answered >= len(self._steps):
                return {"type": "text", "text": self._reply}
            step = self._steps[answered]
            call_id = "toolu_" + uuid.uuid4().hex[:20]
            self._issued.add(call_id)
        try:
            tool_input = step.input(messages) if callable(step.input) else step.input
        except Exception as exc:  # a script that cannot go on ends the session with a reply saying why
            self.failures.append(f"{step.name}: {type(exc).__name__}: {exc}")
            return {"type": "text", "text": f"(the test's script failed: {exc})"}
        return {"type": "tool_use", "id": call_id, "name": step.name, "input": tool_input}


def _blocks(messages):
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            yield from (block for block in content if isinstance(block, dict))


def tool_results(messages) -> list:
    """The text of every tool result in a conversation, oldest first."""
    out = []
    for block in _blocks(messages):
        if block.get("type") != "tool_result":
            continue
        content = block.get("content")
        if isinstance(content, list):
            content = "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
        out.append(str(content or ""))
    return out


def _handler_for(api: MessagesAPI):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # the test's output is not the place for an access log
            pass

        def _send_json(self, value) -> None:
            data = json.dumps(value).encode("utf-8")
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):  # anything Claude Code asks besides the model (settings, quotas): an empty answer
            self._send_json({})

        def do_POST(self):
            length = int(self.headers.get("content-length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                body = {}
            path = self.path.split("?")[0]
            if path.endswith("/count_tokens"):
                return self._send_json({"input_tokens": 100})
            if path != "/v1/messages" or not isinstance(body, dict):
                return self._send_json({})
            with api._lock:
                api.requests.append(body)
            block = api._next(body)
            message = {"id": "msg_" + uuid.uuid4().hex[:20], "type": "message", "role": "assistant",
                       "model": body.get("model", "claude"), "content": [block],
                       "stop_reason": "tool_use" if block["type"] == "tool_use" else "end_turn",
                       "stop_sequence": None, "usage": {"input_tokens": 100, "output_tokens": 20}}
            if body.get("stream"):
                self._stream(message)
            else:
                self._send_json(message)

        def _stream(self, message: dict) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("connection", "close")
            self.end_headers()
            block = message["content"][0]
            if block["type"] == "tool_use":
                start = dict(block, input={})
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            else:
                start, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": block["text"]}
            events = [
                ("message_start", {"message": dict(message, content=[], stop_reason=None)}),
                ("content_block_start", {"index": 0, "content_block": start}),
                ("content_block_delta", {"index": 0, "delta": delta}),
                ("content_block_stop", {"index": 0}),
                ("message_delta", {"delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                                   "usage": {"output_tokens": 20}}),
                ("message_stop", {}),
            ]
            for name, data in events:
                self.wfile.write(f"event: {name}\ndata: {json.dumps(dict(data, type=name))}\n\n".encode("utf-8"))
            self.wfile.flush()
            self.close_connection = True

    return Handler
