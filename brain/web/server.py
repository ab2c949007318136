"""The local page's HTTP server: the standard library's threading server on 127.0.0.1, one token per run.

Every address is under `/<token>/`, a random value printed once by `rlm-mem serve`: another site (or another
user of the machine) cannot read memory or change it without it. Each request must also name this server in its
Host header (a page on another name resolved to 127.0.0.1 is refused), and each POST must come from this page
(Origin, or Referer when a browser sends no Origin). Responses forbid scripts, frames and outside resources
(Content-Security-Policy), so a memory's text can only ever be text. Errors are plain pages; the traceback, if
any, goes to the terminal that runs the server, and only with RLM_MEM_DEBUG=1.
"""
import hmac
import os
import secrets
import sys
import traceback
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from brain.cpython.fast import sqlite3
from brain.store.chunk_store import ChunkStore
from brain.util.errors import ChunkNotFound, InvalidChunkId, RlmMemError, StoreBusy, StoreUnwritable
from brain.web import lists, narrative_page
from brain.web.html import el, href, page
from brain.web.memory_page import DONE, find, memory
from brain.web.next_session import next_session
from brain.web.parts import PageError, View, memory_href
from brain.web.tending import apply

HOST = "127.0.0.1"
MAX_FORM_BYTES = 1_000_000
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
                               "frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",  # a same-origin POST still carries its Origin; nothing leaves the page
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cache-Control": "no-store",
}
STYLESHEET = Path(__file__).with_name("page.css")
GET_PAGES = {"": lists.home, "sessions": lists.sessions, "session": lists.session, "now": next_session,
             "chapters": narrative_page.chapters}


class MemoryServer(ThreadingHTTPServer):
    """The server, with what its handlers need: the view pages are made in and the names it answers to."""

    daemon_threads = True

    def __init__(self, root, project, *, port: int = 0, read_only: bool = False):
        super().__init__((HOST, port), Handler)
        self.port = self.server_address[1]
        self.token = secrets.token_urlsafe(24)
        self.view = View(Path(root), f"/{self.token}", read_only, project,
                         ChunkStore(root, actor=os.environ.get("RLM_MEM_ACTOR") or "web"))
        self.hosts = {f"{HOST}:{self.port}", f"localhost:{self.port}"}
        self.origins = {f"http://{h}" for h in self.hosts}
        self.stylesheet = STYLESHEET.read_bytes()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}{self.view.base}/"


class Handler(BaseHTTPRequestHandler):
    server: MemoryServer
    server_version = "rlm-mem"
    sys_version = ""
    error_content_type = "text/plain; charset=utf-8"
    error_message_format = "%(code)d %(message)s\n"

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass  # addresses carry the token: nothing per request on the terminal

    # ---------------------------------------------------------------- requests
    def do_GET(self):
        self._answer(self._get)

    def do_POST(self):
        self._answer(self._post)

    def _answer(self, handle):
        view = self.server.view
        host_ok, token_ok = self._host_ok(), self._token_ok()
        base = view.base if host_ok and token_ok else None  # error pages link nowhere otherwise
        try:
            if not host_ok:
                raise PageError(403, "this server answers only to 127.0.0.1 and localhost on its own port")
            if not token_ok:
                raise PageError(403, "this address needs the token `rlm-mem serve` printed: open the address it "
                                     "printed")
            handle(view, *self._path_and_query())
        except PageError as exc:
            self._error(exc.status, str(exc), base)
        except RlmMemError as exc:
            self._error(_status_of(exc), str(exc), base)
        except sqlite3.Error as exc:
            self._error(503, f"the search index cannot be read ({exc}); `rlm-mem reindex` rebuilds it", base)
        except Exception as exc:  # a plain page for the person; the details on the server's terminal
            sys.stderr.write(f"rlm-mem serve: {type(exc).__name__}: {exc}\n")
            if os.environ.get("RLM_MEM_DEBUG"):
                traceback.print_exc()
            self._error(500, f"something went wrong ({type(exc).__name__}); the terminal running "
                             "`rlm-mem serve` says more", base)

    def _host_ok(self) -> bool:
        """The Host header names this server (a page on another name resolved to 127.0.0.1 gets nothing)."""
        return self.headers.get("Host", "") in self.server.hosts

    def _token_ok(self) -> bool:
        prefix = urlsplit(self.path).path[:len(self.server.view.base) + 1]
        return hmac.compare_digest(prefix.encode(), (self.server.view.base + "/").encode())

    def _path_and_query(self) -> tuple:
        """(the path after the token, the query parameters: the last value of each)."""
        parts = urlsplit(self.path)
        rest = unquote(parts.path[len(self.server.view.base) + 1:])
        try:
            query = parse_qs(parts.query, keep_blank_values=True, max_num_fields=40, errors="strict")
        except ValueError:
            raise PageError(400, "the address's parameters cannot be read") from None
        return rest, {name: values[-1] for name, values in query.items()}

    def _get(self, view: View, rest: str, params: dict):
        if rest == "static/page.css":
            return self._send(200, self.server.stylesheet, "text/css; charset=utf-8")
        if rest.startswith("memory/"):
            title, body = memory(view, rest[len("memory/"):], params)
        elif rest in GET_PAGES:
            title, body = GET_PAGES[rest](view, params)
        else:
            raise PageError(404, "no such page here")
        notice = DONE.get(params.get("done", ""))
        self._send(200, page(title, view.base, body, notice=notice))

    def _post(self, view: View, rest: str, params: dict):
        origin = self.headers.get("Origin") or _origin_of(self.headers.get("Referer", ""))
        if origin not in self.server.origins:
            raise PageError(403, "refused: changes are accepted only from this page (the request came from "
                                 f"{origin or 'an unknown page'})")
        if view.read_only:
            raise PageError(403, "this page was started with --read-only: nothing can be changed from it")
        if not rest.startswith("memory/"):
            raise PageError(404, "no such form here")
        data, _ = find(view, rest[len("memory/"):])
        form = self._form()
        done = apply(view.store, data["id"], form)
        self.send_response(303)
        self.send_header("Location", memory_href(view, data["id"], done=done))
        self.send_header("Content-Length", "0")
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)
        self.end_headers()

    def _form(self) -> dict:
        if self.headers.get_content_type() != "application/x-www-form-urlencoded":
            raise PageError(400, "send the page's form as it is (application/x-www-form-urlencoded)")
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            raise PageError(411, "a form needs its Content-Length") from None
        if not 0 <= length <= MAX_FORM_BYTES:
            raise PageError(413, f"a form of {length:,} bytes is more than the page ever sends")
        try:
            body = self.rfile.read(length).decode("utf-8")
            fields = parse_qs(body, keep_blank_values=True, max_num_fields=20, errors="strict")
        except ValueError:
            raise PageError(400, "the form cannot be read (not UTF-8, or too many fields)") from None
        return {name: values[-1] for name, values in fields.items()}

    # ---------------------------------------------------------------- responses
    def _send(self, status: int, body: bytes, content_type: str = "text/html; charset=utf-8"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _error(self, status: int, message: str, base: str | None):
        """A plain error page; without the token (base None) it links nowhere and loads nothing."""
        phrase = HTTPStatus(status).phrase
        body = [el("h1", {}, f"{status} {phrase}"), el("p", {"class": "error"}, message)]
        if base:
            body.append(el("p", {}, el("a", {"href": href(base)}, "Back to the memories")))
        self._send(status, page(phrase, base, body))


def _origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def _status_of(exc: RlmMemError) -> int:
    if isinstance(exc, (ChunkNotFound, InvalidChunkId)):
        return 404
    if isinstance(exc, (StoreBusy, StoreUnwritable)):
        return 503
    return 400
