"""The local page's share of seeds 002-004 (issue 36), over real HTTP: chapters as a timeline with the project's
wisdom, a memory's relations (strength, context) and causal chain, contested and retracted marks, and the
contest / retract / reinstate forms (audited as "web")."""
import re

from test_web_http import PROJECT, get, post, server  # noqa: F401 - the server fixture, used by name

from brain.store.audit import read_audit


def session_record(store, sid, when, goal, files):
    return store.create_chunk(f"Session {when[:16]} UTC ({sid}). Intent: {goal} Outcome: Done.", chunk_type="note",
                              conversation_id=sid, created=when,
                              metadata={"kind": "session", "project": PROJECT.id, "files": files,
                                        "layers": {"intent": {"goal": goal, "task_type": "feature_add"},
                                                   "actions": {"files_changed": files},
                                                   "outcome": {"summary": "Done.", "success": True}}})


def test_chapters_are_a_timeline_with_the_projects_wisdom(server, store):  # noqa: F811
    session_record(store, "a1", "2026-03-02T09:00:00Z", "Fix the auth interceptor refresh", ["src/auth/interceptor.ts"])
    session_record(store, "a2", "2026-03-02T11:00:00Z", "Interceptor retries once", ["src/auth/interceptor.ts"])
    session_record(store, "b1", "2026-03-03T09:00:00Z", "Add <b>CSV</b> export of invoices", ["billing/export.py"])
    srv = server()
    status, _, text = get(srv, "chapters")
    assert status == 200
    assert text.count('<li class="chapter"') == 2 and "2 sessions" in text
    assert text.index("Add &lt;b&gt;CSV&lt;/b&gt; export") < text.index("Fix the auth interceptor refresh")  # newest first
    assert "2026-03-02 09:00 – 11:00" in text and "Wisdom" in text and "2 chapters" in text
    assert f'href="{srv.view.base}/chapters"' in get(srv)[2]  # in the navigation


def test_a_memory_shows_its_relations_causal_chain_and_layers(server, store):  # noqa: F811
    error = store.create_chunk("Bash: pytest -q (failed): AssertionError in test_dates")
    fix = store.create_chunk("Edit: parser.py → return date.isoformat()")
    store.link_chunks(fix.id, error.id, "solves", strength=0.9, context="ISO dates make the test pass")
    record = session_record(store, "a1", "2026-03-02T09:00:00Z", "Fix the date test", ["parser.py"])
    srv = server()
    _, _, text = get(srv, f"memory/{fix.id}")
    assert "solves" in text and "(strength 0.9, ISO dates make the test pass)" in text
    assert "Why: causes and effects" in text and "Because of" in text and error.id[-8:] in text
    _, _, from_error = get(srv, f"memory/{error.id}")
    assert "Led to" in from_error and fix.id[-8:] in from_error
    _, _, shown = get(srv, f"memory/{record.id}")
    assert "Structure" in shown and "intent: Fix the date test (task_type feature_add)" in shown
    assert "actions: changed parser.py" in shown


def test_contest_retract_and_reinstate_from_the_page_are_marked_and_audited(server, store):  # noqa: F811
    chunk = store.create_chunk("The staging database listens on port 5433", "fact")
    srv = server()
    status, headers, _ = post(srv, chunk.id, "action=contest&reason=logs+say+6432")
    assert status == 303 and headers["Location"].endswith("done=contest")
    _, _, text = get(srv, f"memory/{chunk.id}?done=contest")
    assert 'class="badge status contested"' in text and "always marked contested" in text
    assert 'value="reinstate"' in text and 'value="contest"' not in text
    assert re.search(r'class="badge status contested">contested</span>', get(srv, "?status=contested")[2])
    post(srv, chunk.id, "action=retract&reason=wrong")
    _, _, text = get(srv, f"memory/{chunk.id}")
    assert 'class="badge status retracted"' in text and "never recalled or injected" in text
    assert 'value="retract"' not in text
    post(srv, chunk.id, "action=reinstate")
    assert store.get_chunk(chunk.id, track=False).status == "active"
    trail = [(e["action"], e["actor"]) for e in read_audit(store.root, chunk.id)
             if e["action"] in ("contest", "retract", "reinstate")]
    assert trail == [("contest", "web"), ("retract", "web"), ("reinstate", "web")]
