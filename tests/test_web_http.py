"""The local page's server over plain HTTP (issue 18): the token, Host and Origin checks, read-only, plain error
pages, escaping in the HTML sent, security headers, paging at the store's size. The server is the real one, run
in a thread on 127.0.0.1 (the browser tests run it as `rlm-mem serve`)."""
import http.client
import re
import socket
import threading
from urllib.parse import urlsplit

import pytest
from harness import web

from brain.context.project import ProjectInfo
from brain.web.server import MemoryServer

PROJECT = ProjectInfo("demo", "demo", None, "test")


@pytest.fixture
def server(store):
    started = []

    def start(read_only=False):
        srv = MemoryServer(store.root, PROJECT, port=0, read_only=read_only)
        threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        started.append(srv)
        return srv

    yield start
    for srv in started:
        srv.shutdown()
        srv.server_close()


def request(srv, method, path, *, body=None, headers=None, host=None):
    """(status, headers, text) of one request; `path` is taken as it is (it carries the token or not)."""
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
    sent = {"Host": host or f"127.0.0.1:{srv.port}"}
    if body is not None:
        sent["Content-Type"] = "application/x-www-form-urlencoded"
    sent.update(headers or {})
    conn.request(method, path, body=body, headers=sent)
    response = conn.getresponse()
    text = response.read().decode("utf-8")
    conn.close()
    return response.status, response.headers, text


def get(srv, path="", **kw):
    return request(srv, "GET", srv.view.base + "/" + path, **kw)


def post(srv, chunk_id, body, origin="self", **kw):
    headers = kw.pop("headers", {})
    if origin == "self":
        headers["Origin"] = f"http://127.0.0.1:{srv.port}"
    elif origin:
        headers["Origin"] = origin
    return request(srv, "POST", f"{srv.view.base}/memory/{chunk_id}", body=body, headers=headers, **kw)


def test_the_server_listens_on_loopback_only_with_a_fresh_token(server):
    first, second = server(), server()
    assert first.server_address[0] == "127.0.0.1" and first.url.startswith("http://127.0.0.1:")
    assert urlsplit(first.url).path == f"/{first.token}/" and len(first.token) >= 32
    assert first.token != second.token


def test_serve_prints_the_address_first_and_refuses_a_taken_port(isolated_memory):
    served = web.Served(isolated_memory, "--read-only")
    served.stop()
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/[\w-]{32}/", served.url)
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        result = web.run_cli(isolated_memory, "serve", "--port", str(port))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"Error: port {port} is in use" in result.stderr


def test_without_the_token_nothing_is_shown(server, store):
    store.create_chunk("The deploy key lives in the vault", "fact")
    srv = server()
    for path in ("/", "/sessions", f"/{srv.token[:-1]}/", f"/{srv.token}x/", f"/x/{srv.token}/"):
        status, _, text = request(srv, "GET", path)
        assert status == 403 and "vault" not in text and srv.token not in text, path
        assert "token" in text


def test_a_request_naming_another_host_is_refused(server, store):
    store.create_chunk("The deploy key lives in the vault", "fact")
    srv = server()
    status, _, text = get(srv, host=f"attacker.example:{srv.port}")  # DNS rebinding: the name, not the address
    assert status == 403 and "vault" not in text
    assert get(srv, host=f"localhost:{srv.port}")[0] == 200


def test_posts_from_another_origin_or_none_are_refused(server, store):
    chunk = store.create_chunk("Rotate the API key monthly", "fact")
    srv = server()
    for origin in ("http://attacker.example", f"http://127.0.0.1:{srv.port + 1}", "null", None):
        status, _, text = post(srv, chunk.id, "action=pin", origin=origin)
        assert status == 403 and "refused" in text, origin
    status, _, _ = post(srv, chunk.id, "action=pin", origin=None,
                        headers={"Referer": "http://attacker.example/page"})
    assert status == 403
    assert not store.get_chunk(chunk.id, track=False).pinned
    status, headers, _ = post(srv, chunk.id, "action=pin", origin=None,  # a browser that sends only a Referer
                              headers={"Referer": f"http://127.0.0.1:{srv.port}{srv.view.base}/"})
    assert status == 303 and headers["Location"].endswith(f"/memory/{chunk.id}?done=pin")
    assert store.get_chunk(chunk.id, track=False).pinned


def test_read_only_refuses_every_change(server, store):
    chunk = store.create_chunk("Rotate the API key monthly", "fact")
    srv = server(read_only=True)
    for body in ("action=pin", "action=forget", "action=edit&content=x", "action=scope&scope=user"):
        status, _, text = post(srv, chunk.id, body)
        assert status == 403 and "read-only" in text
    status, _, text = get(srv, f"memory/{chunk.id}")
    assert status == 200 and "<form method=\"post\"" not in text
    assert store.get_chunk(chunk.id, track=False).to_dict() == chunk.to_dict()


@pytest.mark.parametrize("path, status, message", [
    ("memory/chunk-2026-13-40-zzzzzzzz", 404, "invalid chunk id"),
    ("memory/chunk-2026-01-01-0000abcd", 404, "no memory"),
    ("memory/deadbeef", 404, "no chunk ends in deadbeef"),
    ("memory/", 404, "invalid chunk id"),
    ("nothing-here", 404, "no such page"),
    ("?type=poem", 400, "unknown type"),
    ("?status=gone", 400, "unknown status"),
    ("?scope=team", 400, "unknown scope"),
    ("?before=yesterday", 400, "page position"),
    ("?kind=" + "k" * 50, 400, "cannot exist"),
    ("?q=port&budget=lots", 400, "budget"),
    ("?q=port&budget=0", 400, "budget"),
    ("?q=%ff%fe", 400, "cannot be read"),
    ("sessions?offset=-1", 400, "offset"),
    ("session", 400, "id=..."),
    ("session?id=nobody", 404, "no such session"),
    ("now?project=" + "p" * 300, 400, "no project"),
])
def test_unknown_ids_and_bad_parameters_get_a_plain_error_page(server, store, path, status, message):
    store.create_chunk("The staging database listens on port 5433", "fact")
    srv = server()
    got, headers, text = get(srv, path)
    assert (got, headers["Content-Type"]) == (status, "text/html; charset=utf-8")
    assert message in text and "Traceback" not in text and "File \"" not in text


def test_bad_forms_get_a_plain_error_page_and_change_nothing(server, store):
    chunk = store.create_chunk("The staging database listens on port 5433", "fact")
    srv = server()
    cases = [("action=launch", 400, "unknown action"), ("action=edit&content=", 400, "content is empty"),
             ("action=edit&content=The+staging+database+listens+on+port+5433", 400, "nothing changed"),
             ("action=scope&scope=team", 400, "unknown scope"), ("action=supersede&old=nope", 404, "invalid chunk id"),
             (f"action=supersede&old={chunk.id}", 400, "cannot replace itself"),
             ("action=restore", 404, "no archived chunk"), ("action=edit&type=poem&content=x", 400, "unknown type"),
             ("action=edit&content=" + "word+" * 5000, 400, "tokens")]
    for body, status, message in cases:
        got, _, text = post(srv, chunk.id, body)
        assert (got, message in text, "Traceback" in text) == (status, True, False), (body, text[-300:])
    got, _, text = post(srv, chunk.id, "action=pin", headers={"Content-Type": "application/json"})
    assert got == 400 and "form" in text
    got, _, _ = post(srv, chunk.id, "action=pin", headers={"Content-Length": "5000000"})
    assert got == 413
    assert store.get_chunk(chunk.id, track=False).to_dict() == chunk.to_dict()


def test_a_damaged_index_is_a_plain_page_not_a_traceback(server, store):
    store.create_chunk("The staging database listens on port 5433", "fact")
    srv = server()
    for suffix in ("", "-wal", "-shm"):
        (store.root / "index" / f"search.db{suffix}").unlink(missing_ok=True)
    (store.root / "index" / "search.db").write_bytes(b"not a database" * 100)
    status, _, text = get(srv)
    assert status == 503 and "rlm-mem reindex" in text and "Traceback" not in text


def test_every_response_forbids_scripts_and_frames(server, store):
    chunk = store.create_chunk(
        "Deploy <script>alert(1)</script><img src=x onerror=alert(2)> \"quoted\" 'single' & more", "note",
        tags=["<svg onload=alert(3)>"])
    srv = server()
    for path in ("", f"memory/{chunk.id}", "?q=deploy+quoted", "sessions", "now", "nope"):
        status, headers, text = get(srv, path)
        assert status == (404 if path == "nope" else 200), path
        assert "script-src" not in headers["Content-Security-Policy"]  # default-src 'none' covers scripts
        assert headers["Content-Security-Policy"].startswith("default-src 'none'")
        assert headers["X-Frame-Options"] == "DENY" and headers["X-Content-Type-Options"] == "nosniff"
        lowered = text.lower()
        assert "<script" not in lowered and "<img" not in lowered and "<svg onload" not in lowered, path
        assert not re.search(r"<[^>]*\son\w+=", lowered), path  # no tag carries an event handler
    text = get(srv, f"memory/{chunk.id}")[2]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;" in text
    assert "&lt;svg onload=alert(3)&gt;" in text


def test_the_list_pages_by_key_through_every_memory_once(server, store):
    specs = [dict(content=f"Memory number {i} about topic {i % 7}", chunk_type="fact",
                  created=f"2026-0{1 + i % 6}-{1 + i % 27:02d}T{i % 24:02d}:{i % 60:02d}:00Z") for i in range(130)]
    made = [c.id for c in store.create_many(specs)]
    srv = server()
    seen, path, pages = [], "", 0
    while path is not None:
        status, _, text = request(srv, "GET", path or srv.view.base + "/")
        assert status == 200
        seen += re.findall(r'data-id="(chunk-[\w-]+)"', text)
        found = re.search(r'<a href="([^"]+)" rel="next">', text)
        path = found.group(1).replace("&amp;", "&") if found else None
        pages += 1
    assert pages == 3 and sorted(seen) == sorted(made) and len(seen) == len(set(seen))
    created = {c["id"]: c["metadata"]["created"] for c in (store.get_chunk(i, track=False).to_dict() for i in made)}
    assert [created[i] for i in seen] == sorted((created[i] for i in seen), reverse=True)


def test_archived_memories_are_listed_and_shown(server, store):
    kept = store.create_chunk("Kept memory", "fact")
    gone = store.create_chunk("Forgotten memory", "fact")
    store.delete_chunk(gone.id)
    srv = server()
    text = get(srv, "?status=archived")[2]
    assert "Forgotten memory" in text and "Kept memory" not in text
    assert "Forgotten memory" not in get(srv)[2]
    text = get(srv, f"memory/{gone.id}")[2]
    assert "archived" in text and 'value="restore"' in text and 'value="pin"' not in text
    assert kept.id in get(srv)[2]


def test_sensitive_memories_show_their_text_only_when_asked(server, store):
    secret = store.create_chunk("My therapist appointment is on Tuesday", "fact", metadata={"sensitivity": "high"})
    srv = server()
    listed = get(srv)[2]
    assert secret.id in listed and "therapist" not in listed and "high sensitivity" in listed
    page = get(srv, f"memory/{secret.id}")[2]
    assert "therapist" not in page and "Show the text" in page
    assert "therapist" in get(srv, f"memory/{secret.id}?reveal=1")[2]


def test_a_search_counts_as_no_use_of_the_memories_shown(server, store):
    chunk = store.create_chunk("The staging database listens on port 5433", "fact")
    srv = server()
    text = get(srv, "?q=staging+database+port")[2]
    assert chunk.id in text
    assert not (store.root / "index" / "access_log.jsonl").exists()
