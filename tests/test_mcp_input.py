"""Input an agent or a person may send that is not what it looks like: ids with digits of another script, text
made only of invisible characters. Refused with a clear error, by the MCP server (the SDK's own client over stdio
against the real `rlm-mem mcp`) and by the command line (`Error: ...`, non-zero, no traceback)."""
import subprocess

import pytest
from test_mcp_server import RLM, ok, project, run, text_of  # noqa: F401 - the project fixture, used by name

from brain.store.chunk import is_chunk_id

INVISIBLE = ["\u200b\u200b", "\ufeff", "\u2060 \u200d", "\u3164", "\x00\x07"]


def test_an_id_with_full_width_digits_is_not_an_id():
    assert is_chunk_id("chunk-2026-01-02-abcdef12")
    assert not is_chunk_id("chunk-２０２６-０１-０２-abcdef12") and not is_chunk_id("chunk-2026-01-0٢-abcdef12")


def test_invisible_text_is_refused_by_every_tool_that_stores_text(project, isolated_memory):  # noqa: F811
    async def scenario(client):
        stored = ok(await client.call_tool("remember", {"content": "The staging port is 5433"}))
        chunk_id = stored.structured_content["ids"][0]
        refused = [await client.call_tool("remember", {"content": text}) for text in INVISIBLE]
        refused += [await client.call_tool("update", {"id": chunk_id, "content": "\u200b"}),
                    await client.call_tool("supersede", {"old": chunk_id, "statement": "\u2060\u2060"}),
                    await client.call_tool("get", {"id": "chunk-２０２６-０１-０２-abcdef12"})]
        return refused, ok(await client.call_tool("remember", {"content": "\u202eevil\u202c, still words"}))

    refused, visible = run(scenario, project)
    for result in refused[:-1]:
        assert result.is_error and "no visible character" in text_of(result), text_of(result)
    assert refused[-1].is_error and "invalid chunk id" in text_of(refused[-1])
    assert len(list((isolated_memory / "chunks").rglob("*.json"))) == 2  # the first memory, and the words


@pytest.mark.parametrize("args", [["remember", "\u200b\u200b"], ["get", "chunk-２０２６-０１-０２-abcdef12"]])
def test_the_command_line_says_error_and_no_traceback(project, isolated_memory, args):  # noqa: F811
    done = subprocess.run([RLM, *args], capture_output=True, text=True, cwd=project, timeout=120)
    assert done.returncode != 0 and done.stderr.startswith("Error: ") and "Traceback" not in done.stderr
