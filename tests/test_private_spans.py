"""`<private>…</private>` spans are never on disk, whichever way text comes in: `remember`, `update --content`,
`--tags`, a title, the library calls the MCP server and the web page make (brain/session/actions.py), and the
page's own edit form. Capture strips them (tests/test_hooks.py); the redaction boundary takes any other."""
import http.client
import threading

import pytest
from click.testing import CliRunner

from brain.cli.main import cli
from brain.context.project import ProjectInfo
from brain.mcp.tools import MemoryTools
from brain.safety.redact import redact
from brain.store.chunk_store import ChunkStore
from brain.web.server import MemoryServer

PROJECT = ProjectInfo("demo", "demo", None, "test")


def on_disk(root, word: str) -> list:
    """Every file under the memory root holding `word` (chunk files, logs, state, the SQLite index)."""
    return [p for p in root.rglob("*") if p.is_file() and word.encode() in p.read_bytes()]


def cli_ok(root, *args):
    result = CliRunner().invoke(cli, ["--dir", str(root), *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_remember_update_and_tags_through_the_command_line(tmp_path):
    root = tmp_path / "mem"
    first = cli_ok(root, "remember", "The lab door code is <private>4711-lab-door</private> on weekdays",
                   "--tags", "lab,<private>hidden-tag-word</private>").split()[0]
    second = cli_ok(root, "remember", "The release train leaves on Fridays").split()[0]
    cli_ok(root, "update", second, "--content", "The train leaves <PRIVATE reason=x>unclosed-secret-words and more")
    cli_ok(root, "update", first, "--tags", "<private>other-hidden-tag</private>,door")
    cli_ok(root, "reindex")
    for word in ("4711-lab-door", "hidden-tag-word", "unclosed-secret-words", "other-hidden-tag", "<private",
                 "<PRIVATE"):
        assert on_disk(root, word) == [], word
    shown = cli_ok(root, "get", first, "--json")
    assert "[REDACTED:private]" in shown and '"door"' in shown and "on weekdays" in shown
    assert "weekdays" in cli_ok(root, "recall", "lab door code")
    empty = CliRunner().invoke(cli, ["--dir", str(root), "remember", "<private>only this</private>"])
    assert empty.exit_code != 0 and "never stored" in empty.output


def test_the_library_calls_the_mcp_server_and_the_web_page_make(tmp_path):
    store = ChunkStore(tmp_path / "mem", actor="test")
    tools = MemoryTools(store, PROJECT)
    made = tools.remember("The backup key sits in <private>drawer-number-nine</private> of the desk",
                          tags="backup,<private>tagged-privately</private>")
    chunk_id = made.structured_content["ids"][0]
    tools.update(chunk_id, content="The backup key moved <private>to-the-blue-box</private>")
    title = store.create_chunk("A note", metadata={"title": "Title with <private>title-secret</private>"})
    for word in ("drawer-number-nine", "tagged-privately", "to-the-blue-box", "title-secret", "<private"):
        assert on_disk(store.root, word) == [], word
    assert store.get_chunk(title.id).metadata["title"] == "Title with [REDACTED:private]"


@pytest.fixture
def page(tmp_path):
    store = ChunkStore(tmp_path / "mem", actor="test")
    server = MemoryServer(store.root, PROJECT, port=0)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield store, server
    server.shutdown()
    server.server_close()


def test_the_web_pages_edit_form(page):
    store, server = page
    chunk = store.create_chunk("The VPN profile is on the shared drive")
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    conn.request("POST", f"{server.view.base}/memory/{chunk.id}",
                 body="action=edit&content=The+VPN+profile+%3Cprivate%3Evpn-password-here%3C%2Fprivate%3E+moved",
                 headers={"Host": f"127.0.0.1:{server.port}", "Origin": f"http://127.0.0.1:{server.port}",
                          "Content-Type": "application/x-www-form-urlencoded"})
    status = conn.getresponse().status
    conn.close()
    assert status in (200, 303), status
    assert "moved" in store.get_chunk(chunk.id).content
    assert on_disk(store.root, "vpn-password-here") == [] and on_disk(store.root, "<private") == []


@pytest.mark.parametrize("text, kept", [
    ("a <private>x</private> b", "a [REDACTED:private] b"),
    ("a <Private class='y'>x</PRIVATE > b", "a [REDACTED:private] b"),
    ("unclosed <private>runs to the end", "unclosed [REDACTED:private]"),
    ("half-typed <private", "half-typed [REDACTED:private]"),
    ("a secret marked already <private>[REDACTED:token] and x</private>", "a secret marked already "
                                                                            "[REDACTED:private]"),
    ("new Map<privateKey, string>() is a word of code", None),
    # (an element named like a key and closed, `<privateKey>…</private>`, is a credential file's line: redacted)
    ("a lone </private> closes nothing", None),
])
def test_the_redactor_takes_every_span(text, kept):
    assert redact(text) == (text if kept is None else kept)
    assert redact(redact(text)) == redact(text)
