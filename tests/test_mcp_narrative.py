"""Issue 36's operations as MCP tools, through the SDK's client against the real `rlm-mem mcp`: status (contest,
retract, reinstate), link with strength and context, why, chapters, wisdom; memory words only in the fenced text."""
import json

from test_mcp_server import ok, project, run, text_of  # noqa: F401 - the project fixture, used by name

from brain.context.project import project_id
from brain.store.chunk_store import ChunkStore


def test_status_link_why_chapters_and_wisdom_as_tools(project, isolated_memory):  # noqa: F811
    store = ChunkStore(isolated_memory)
    pid = project_id(str(project)).id
    error = store.create_chunk("Bash: pytest -q (failed): AssertionError in test_dates",
                               metadata={"project": pid})
    fix = store.create_chunk("Edit: parser.py → return date.isoformat()", metadata={"project": pid})
    store.create_chunk("Session 2026-03-02 09:00 UTC (s1). Intent: Fix the date test Outcome: Done.",
                       chunk_type="note", conversation_id="s1", created="2026-03-02T09:00:00Z",
                       metadata={"kind": "session", "project": pid, "files": ["parser.py"],
                                 "layers": {"intent": {"goal": "Fix the date test"}}})

    async def scenario(client):
        done = {"link": ok(await client.call_tool("link", {"source": fix.id, "target": error.id, "type": "solves",
                                                          "strength": 0.9, "context": "ISO dates pass"})),
                "why": ok(await client.call_tool("why", {"id": fix.id[-8:]})),
                "contest": ok(await client.call_tool("status", {"id": error.id, "status": "contested",
                                                                "reason": "flaky?"})),
                "recall": ok(await client.call_tool("recall", {"query": "AssertionError in test_dates"})),
                "retract": ok(await client.call_tool("status", {"id": error.id, "status": "retracted"})),
                "recall_after": await client.call_tool("recall", {"query": "AssertionError in test_dates"}),
                "reinstate": ok(await client.call_tool("status", {"id": error.id, "status": "active"})),
                "chapters": ok(await client.call_tool("chapters", {})),
                "wisdom": ok(await client.call_tool("wisdom", {})),
                "bad": await client.call_tool("status", {"id": error.id, "status": "forgotten"})}
        return done

    done = run(scenario, project)
    assert store.get_chunk(fix.id, track=False).metadata["relations"] == [
        {"type": "solves", "target": error.id, "strength": 0.9, "context": "ISO dates pass"}]
    why = done["why"].structured_content
    assert why["causes"] == [{"id": error.id, "link": "solves", "status": "active", "then": []}]
    assert "AssertionError" in text_of(done["why"]) and 'label="why"' in text_of(done["why"])
    assert "AssertionError" not in json.dumps({k: v for k, v in why.items() if k != "text"})
    assert done["contest"].structured_content["status"] == "contested"
    assert "contested" in text_of(done["recall"])
    assert "AssertionError" not in text_of(done["recall_after"])
    assert store.get_chunk(error.id, track=False).status == "active"
    (chapter,) = done["chapters"].structured_content["chapters"]
    assert chapter["start"] == "2026-03-02T09:00:00Z" and "Fix the date test" in text_of(done["chapters"])
    assert "0 recurring errors" in text_of(done["wisdom"])
    assert done["bad"].is_error
    audit = [json.loads(line) for path in (isolated_memory / "audit").glob("*.jsonl")
             for line in path.read_text().splitlines()]
    assert [(e["action"], e["actor"]) for e in audit if e["chunk_id"] == error.id and
            e["action"] in ("contest", "retract", "reinstate")] == [("contest", "mcp"), ("retract", "mcp"),
                                                                   ("reinstate", "mcp")]
