"""The local page in real headless Chromium (issue 18): what a person sees and what their clicks change.

Each test stores memories through the library, starts the page (the server in a thread, or `rlm-mem serve` as a
subprocess where the command is part of what is checked), opens it in Chromium and reads what is shown, then
checks the store with `rlm-mem list`, the library or the chunk files. Screenshots go to tests/screenshots/.
"""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from harness import web

from brain.store.audit import read_audit
from brain.store.lifecycle import supersede

pytestmark = pytest.mark.skipif(web.missing() is not None, reason=web.missing() or "")

SCRIPT = ("Deploy note <script>window.__ran = 'script'; document.title = 'pwned'</script>"
          "<img src=x onerror=\"window.__ran = 'onerror'\"> keep the release branch green")


@pytest.fixture(scope="module")
def browser():
    from selenium.webdriver.support.ui import WebDriverWait  # noqa: F401 - fail here, not mid-test

    profile = web.new_profile()
    driver = web.chromium(profile)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()
    web.remove_profile(profile)


@pytest.fixture
def serve(store):
    """start(): the page served in this process; start(as_command=True): `rlm-mem serve` in a subprocess."""
    started = []

    def start(*args, as_command=False):
        served = web.Served(store.root, *args) if as_command else \
            web.InProcess(store.root, read_only="--read-only" in args)
        started.append(served)
        return served

    yield start
    for served in started:
        err = served.stop()
        assert "Traceback" not in err, err


def visible(driver) -> str:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.TAG_NAME, "body").text


def css(driver, selector):
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, selector)


def wait_for_text(driver, words: str):
    """Until the page shows `words` and has finished loading (a click's navigation may replace the page while it
    is read, and the words near its top can show before the forms below them are parsed). Reading the page while
    Chrome swaps documents can fail with a stale element or with "Node with given id does not belong to the
    document" (a plain WebDriverException); both mean "not yet", so the wait reads again."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 30, ignored_exceptions=(WebDriverException,)).until(
        lambda d: words in visible(d) and d.execute_script("return document.readyState") == "complete")


def test_stored_memories_are_listed_by_day(browser, store, serve):
    store.create_chunk("The staging database listens on port 5433", "fact", created="2026-03-02T10:00:00Z")
    store.create_chunk("We deploy on Thursdays only", "decision", created="2026-03-04T09:30:00Z",
                       metadata={"pinned": True, "scope": "user"})
    store.create_chunk("user: can you run the tests?", "note", created="2026-03-04T09:31:00Z",
                       metadata={"kind": "turn", "role": "user"})
    served = serve()
    browser.get(served.url)
    text = visible(browser)
    assert "The staging database listens on port 5433" in text and "We deploy on Thursdays only" in text
    days = [h.text for h in css(browser, "section.day h3")]
    assert days == ["2026-03-04", "2026-03-02"]  # newest day first
    pinned = css(browser, "li.memory .badge.pinned")
    assert len(pinned) == 1 and "user" in [b.text for b in css(browser, "li.memory .badge.scope")]
    assert "can you run the tests" not in text  # verbatim turns only when asked
    web.screenshot(browser, "memories")
    browser.get(served.url + "?kind=all")
    assert "can you run the tests" in visible(browser)


def test_an_address_with_q_opens_a_search_showing_the_match(browser, store, serve):
    store.create_chunk("The staging database listens on port 5433", "fact")
    store.create_chunk("Lunch is at noon on Fridays", "note")
    served = serve()
    browser.get(served.url + "?q=which+port+does+the+staging+database+use")
    hits = css(browser, "ol.hits li.memory")
    assert [h.find_element("css selector", ".summary").text for h in hits] == [
        "The staging database listens on port 5433"]
    assert "Lunch" not in visible(browser)
    assert browser.find_element("css selector", "nav input[name=q]").get_attribute("value") == ""
    web.screenshot(browser, "search")
    box = browser.find_element("css selector", "nav input[name=q]")  # the search box does the same
    box.send_keys("lunch fridays")
    box.submit()
    wait_for_text(browser, "Search lunch fridays")
    assert "Lunch is at noon on Fridays" in visible(browser)


def test_a_memory_shows_its_links_as_a_graph_with_provenance_and_history(browser, store, serve):
    old = store.create_chunk("Billing uses postgres", "decision",
                             metadata={"provenance": {"kind": "human", "actor": "alice"}}).id
    new = store.create_chunk("Billing moved to sqlite", "decision").id
    supporting = store.create_chunk("sqlite handles our billing load in tests", "fact").id
    supersede(store, old, new, "the load test passed")
    store.link_chunks(supporting, new, "supports")
    served = serve()
    browser.get(served.url + f"memory/{new}")
    nodes = {n.get_attribute("textContent").strip() for n in css(browser, "svg.graph .node title")}
    assert nodes == {new, old, supporting}
    edges = sorted(e.get_attribute("class") for e in css(browser, "svg.graph g.edge"))
    assert edges == ["edge supersedes", "edge supports"]
    rows = [r.text for r in css(browser, "table.links tbody tr")]
    assert any("supersedes" in r and old in r and "superseded" in r for r in rows), rows
    assert any("supports" in r and supporting in r for r in rows), rows
    assert "create" in visible(browser) and "supersedes " + old in visible(browser)  # the audit history
    web.screenshot(browser, "memory-links")
    browser.find_element("css selector", f"svg.graph a[href$='{old}']").click()  # the graph's nodes are links
    wait_for_text(browser, "Billing uses postgres")
    page = visible(browser)
    assert "superseded" in page and "alice" in page and "human" in page  # status and provenance
    assert "the load test passed" in page


def test_a_pin_from_the_page_is_visible_in_rlm_mem_list(browser, store, serve):
    chunk = store.create_chunk("Always run the linter before pushing", "preference")
    served = serve(as_command=True)
    browser.get(served.url + f"memory/{chunk.id}")
    browser.find_element("css selector", "form.tend button[value=pin]").click()
    wait_for_text(browser, "Pinned.")
    web.screenshot(browser, "pinned")
    listed = web.run_cli(store.root, "list")
    assert listed.returncode == 0 and f"{chunk.id}" in listed.stdout
    assert "📌" in next(line for line in listed.stdout.splitlines() if chunk.id in line)
    assert [(e["action"], e["actor"]) for e in read_audit(store.root, chunk.id, "pin")] == [("pin", "web")]
    browser.find_element("css selector", "form.tend button[value=unpin]").click()
    wait_for_text(browser, "Unpinned.")
    assert "📌" not in web.run_cli(store.root, "list").stdout


def test_forget_restore_edit_scope_and_supersede_from_the_page(browser, store, serve):
    old = store.create_chunk("The API lives on port 8000", "fact").id
    chunk = store.create_chunk("The API lives on port 8080", "note").id
    served = serve()
    browser.get(served.url + f"memory/{chunk}")

    def submit(action, **fields):  # on the page shown: each change comes back to the memory's page
        form = css(browser, f"form.tend button[value={action}]")[0].find_element("xpath", "..")
        for name, value in fields.items():
            field = form.find_element("css selector", f"[name={name}]")
            if field.tag_name == "select":
                from selenium.webdriver.support.ui import Select

                Select(field).select_by_value(value)
            else:
                field.clear()
                field.send_keys(value)
        form.find_element("css selector", "button").click()

    submit("edit", content="The API lives on port 8081", type="fact", reason="moved again")
    wait_for_text(browser, "Saved.")
    submit("scope", scope="global")
    wait_for_text(browser, "Scope changed.")
    submit("supersede", old=old[-8:])
    wait_for_text(browser, "Marked as replacing")
    data = json.loads(next(store.root.glob(f"chunks/*/{chunk}.json")).read_text())
    assert (data["content"], data["type"], data["metadata"]["scope"]) == ("The API lives on port 8081", "fact", "global")
    assert old in data["links"]["supersedes"]
    assert store.get_chunk(old, track=False).status == "superseded"
    submit("forget", reason="wrong project")
    wait_for_text(browser, "Forgotten")
    assert "archived" in visible(browser) and next(store.root.glob(f"archive/{chunk}.json"), None)
    web.screenshot(browser, "forgotten")
    browser.find_element("css selector", "form.tend button[value=restore]").click()
    wait_for_text(browser, "Restored.")
    assert store.get_chunk(chunk, track=False) is not None
    actions = [(e["action"], e["actor"]) for e in read_audit(store.root, chunk) if e["actor"] == "web"]
    assert [a for a, _ in actions] == ["update", "update", "scope", "update", "archive", "restore"], actions


class _Attacker(BaseHTTPRequestHandler):
    """Another site (another port is another origin) whose page posts to the memory page by itself."""

    target = ""

    def do_GET(self):
        body = (f'<form method="post" action="{self.target}"><input name="action" value="pin"></form>'
                "<script>document.forms[0].submit()</script>").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.mark.parametrize("with_token", [False, True], ids=["without-token", "with-token-from-elsewhere"])
def test_a_cross_origin_post_is_refused(browser, store, serve, with_token):
    chunk = store.create_chunk("Production credentials rotate monthly", "fact")
    served = serve()
    target = (served.url if with_token else served.origin + "/") + f"memory/{chunk.id}"
    handler = type("Attacker", (_Attacker,), {"target": target})
    attacker = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=attacker.serve_forever, daemon=True).start()
    try:
        browser.get(f"http://127.0.0.1:{attacker.server_address[1]}/")
        wait_for_text(browser, "403 Forbidden")
        web.screenshot(browser, f"cross-origin-{'with' if with_token else 'without'}-token")
    finally:
        attacker.shutdown()
        attacker.server_close()
    assert "refused" in visible(browser) if with_token else "token" in visible(browser)
    assert not store.get_chunk(chunk.id, track=False).pinned


def test_a_stored_script_is_shown_as_text_and_never_runs(browser, store, serve):
    chunk = store.create_chunk(SCRIPT, "note", tags=["<b>tag</b>"])
    served = serve()
    for address in (served.url, served.url + f"memory/{chunk.id}", served.url + "?q=deploy+release+branch"):
        browser.get(address)
        text = visible(browser)
        assert "<script>window.__ran" in text and "onerror=" in text, address
        assert browser.execute_script("return window.__ran === undefined") is True, address
        assert browser.title != "pwned"
        assert css(browser, "main script, main img") == [], address
    browser.get(served.url + f"memory/{chunk.id}")
    assert "<b>tag</b>" in visible(browser)
    assert browser.find_element("css selector", "textarea[name=content]").get_attribute("value") == SCRIPT
    web.screenshot(browser, "script-as-text")


def test_sessions_show_what_each_captured(browser, store, serve):
    specs = [dict(content=f"{'user' if i % 2 == 0 else 'assistant'}: turn {i} about the parser", chunk_type="note",
                  conversation_id="sess-42", created=f"2026-05-01T10:0{i}:00Z",
                  metadata={"kind": "turn", "role": "user" if i % 2 == 0 else "assistant"}) for i in range(4)]
    specs.append(dict(content="Use tree-sitter for the parser", chunk_type="decision", conversation_id="sess-42",
                      created="2026-05-01T10:05:00Z", metadata={"kind": "decision"}))
    specs.append(dict(content="Session (sess-42). Intent: rewrite the parser. Outcome: done.", chunk_type="note",
                      conversation_id="sess-42", created="2026-05-01T10:06:00Z", metadata={"kind": "session"}))
    store.create_many(specs)
    served = serve()
    browser.get(served.url + "sessions")
    row = css(browser, "table.sessions tbody tr")[0].text
    assert "sess-42" in row and "4 turn" in row and "1 decision" in row and "rewrite the parser" in row
    css(browser, "table.sessions a")[0].click()
    wait_for_text(browser, "Session sess-42")
    captured = [li.text for li in css(browser, "ul.memories:not(.turns) li")]
    assert any("Use tree-sitter for the parser" in t for t in captured)
    assert len(css(browser, "ul.turns li")) == 4
    web.screenshot(browser, "session")


def test_the_next_session_page_shows_the_hud_the_brief_and_core(browser, store, serve):
    store.create_chunk("Never force-push to main", "preference", metadata={"pinned": True, "kind": "correction"})
    served = serve()
    browser.get(served.url + "now")
    hud = browser.find_element("css selector", "pre.hud").text
    assert "RLM-MEM LIVEHUD" in hud and "Verbosity" in hud
    assert "Never force-push to main" in browser.find_element("css selector", "pre.brief").text
    assert "Never force-push to main" in browser.find_element("css selector", "section.core").text
    web.screenshot(browser, "next-session")


def test_read_only_offers_no_tending(browser, store, serve):
    chunk = store.create_chunk("The cache is warmed at 6am", "fact")
    served = serve("--read-only", as_command=True)
    browser.get(served.url + f"memory/{chunk.id}")
    assert "The cache is warmed at 6am" in visible(browser)
    assert css(browser, "form.tend") == [] and css(browser, "form[method=post]") == []
