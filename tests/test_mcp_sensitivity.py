"""A memory above the server's sensitivity limit stays out of an agent's reach through MCP: its id is never shown
(not as a link of a memory shown, not as the memory a repeat of its words reinforces), no tool changes it, and no
tool lowers a memory's sensitivity; the person's command line keeps every level. The SDK's own client over stdio
against the real `rlm-mem mcp`."""
import json

from test_mcp_server import ok, project, rlm, run, text_of  # noqa: F401 - the project fixture, used by name

from brain.store.chunk_store import ChunkStore

SECRET = "Diagnosis from the clinic: the user takes sertraline daily"
REFUSED = "hyper sensitivity, above medium"


def test_a_hidden_memory_is_neither_named_nor_changed_and_no_tool_lowers_a_level(project, isolated_memory):  # noqa: F811
    secret = json.loads(rlm(project, "remember", SECRET, "--sensitivity", "hyper", "--json"))[0]["id"]
    visible = json.loads(rlm(project, "remember", "Health routine: walks every morning at 7", "--json"))[0]["id"]
    medium = json.loads(rlm(project, "remember", "The team lead is on leave in May", "--sensitivity", "medium",
                            "--json"))[0]["id"]
    rlm(project, "link", visible, secret, "--type", "supports", "--context", "same person")
    secret_file = next(isolated_memory.rglob(f"{secret}.json"))
    before = secret_file.read_bytes()
    changes = [("update", {"id": secret, "sensitivity": "low"}), ("update", {"id": secret[-8:], "tags": "x"}),
               ("forget", {"id": secret}), ("restore", {"id": secret}), ("pin", {"id": secret}),
               ("unpin", {"id": secret}), ("status", {"id": secret, "status": "retracted"}),
               ("link", {"source": secret, "target": visible, "type": "supports"}),
               ("link", {"source": visible, "target": secret, "type": "supports", "remove": True}),
               ("supersede", {"old": secret, "statement": "The user takes nothing"}),
               ("remember", {"content": "The user takes nothing", "supersedes": secret})]

    async def scenario(client):
        done = {"get": ok(await client.call_tool("get", {"id": visible, "depth": "complete"})),
                "get_full": ok(await client.call_tool("get", {"id": visible})),
                "repeat": ok(await client.call_tool("remember", {"content": SECRET}))}
        done["changes"] = [await client.call_tool(name, arguments) for name, arguments in changes]
        done["lower"] = await client.call_tool("update", {"id": medium, "sensitivity": "low"})
        done["unlink_nothing"] = await client.call_tool("link", {"source": visible, "target": medium,
                                                                 "type": "solves", "remove": True})
        done["raise"] = ok(await client.call_tool("update", {"id": medium, "sensitivity": "high"}))
        return done

    done = run(scenario, project)
    for result in (done["get"], done["get_full"]):
        assert secret not in json.dumps(result.structured_content) and secret[-8:] not in text_of(result)
    assert done["get"].structured_content["links"] == {}
    assert done["repeat"].structured_content["ids"] != [secret]  # a new memory: the answer says nothing
    for (name, arguments), result in zip(changes, done["changes"]):
        assert result.is_error and REFUSED in text_of(result), (name, arguments, text_of(result))
    assert secret_file.read_bytes() == before  # nothing changed it
    assert done["lower"].is_error and "only you lower it" in text_of(done["lower"])
    assert done["unlink_nothing"].is_error and "no solves link" in text_of(done["unlink_nothing"])
    store = ChunkStore(isolated_memory)
    assert store.get_chunk(medium, track=False).metadata["sensitivity"] == "high"  # raising is allowed
    recalled = rlm(project, "recall", "what medication does the user take")  # the agent's own words, stored anew
    assert done["repeat"].structured_content["ids"][0][-8:] in recalled and secret[-8:] not in recalled
    rlm(project, "update", secret, "--sensitivity", "low")  # the person may, on the command line
    assert store.get_chunk(secret, track=False).metadata["sensitivity"] == "low"
