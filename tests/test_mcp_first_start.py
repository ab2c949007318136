"""The MCP server's first start in an installed plugin's copy, where no set-up step ran and its packages are not
installed yet (issue 35): it answers at once, says "installing, try again in a moment" as a tool error while the
packages install, and the next call after they are there is answered by the real server, on the same connection.
Driven by the MCP SDK's own client over stdio, with an interpreter that lacks rlm-mem's packages."""
import fcntl
import os
import sys
import time
from pathlib import Path

import anyio
import pytest
from harness.claude_code import BUNDLE_ROOT
from harness.real_claude import bundle_copy
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from brain.context import dependencies
from brain.mcp.catalog import INSTALLING, TOOLS

PYTHON = os.path.join(sys.base_prefix, "bin", "python3")  # an interpreter without the set-up's packages
VENV_PACKAGES = dependencies.venv_site_packages(str(BUNDLE_ROOT))
FACT = "The staging database listens on port 5433"


@pytest.fixture
def plugin(tmp_path, isolated_memory):
    """An installed plugin's copy, rlm-mem's (empty) cache folder, the server's environment, and memory the hooks
    already wrote."""
    copy = bundle_copy(tmp_path / "plugin")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_", "XDG_"))}
    env.update(HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "cache"), RLM_MEM_DIR=str(isolated_memory))
    cache = Path(dependencies.cache_dir(env))
    from brain.store.chunk_store import ChunkStore

    ChunkStore(isolated_memory).remember(FACT)
    return copy, cache, env


def connect(copy, env, cwd, **options):
    return Client(StdioServerParameters(command=PYTHON, args=["-I", str(copy / "scripts" / "rlm_mem.py"), "mcp"],
                                        env=env, cwd=str(cwd)), read_timeout_seconds=60, **options)


def install_by_hand(env):
    """What a finished install leaves: the packages' folder (the set-up's packages, linked) and its mark."""
    target = Path(dependencies.packages_dir(env))
    target.mkdir(parents=True)
    for name in os.listdir(VENV_PACKAGES):
        os.symlink(os.path.join(VENV_PACKAGES, name), target / name)
    (target / dependencies.READY_MARK).write_text("linked by the test\n")


def test_it_answers_at_once_says_installing_and_the_next_call_after_the_install_is_real(plugin, tmp_path):
    copy, cache, env = plugin
    cache.mkdir(parents=True)
    lock = open(cache / "python.lock", "a")  # another process (the capture worker) is installing
    fcntl.flock(lock, fcntl.LOCK_EX)

    notified = []

    async def note(message):
        notified.append(type(message).__name__)

    async def scenario():
        started = time.monotonic()
        async with connect(copy, env, tmp_path, message_handler=note) as client:
            connected = time.monotonic() - started
            listed = await client.list_tools()
            waiting = await client.call_tool("recall", {"query": "which port does staging use?"})
            install_by_hand(env)
            fcntl.flock(lock, fcntl.LOCK_UN)
            answered = await client.call_tool("recall", {"query": "which port does staging use?"})
            after = await client.call_tool("list", {})
            bad = await client.call_tool("get", {"id": "../../etc/passwd"})
            relisted = await client.list_tools()
            return connected, listed, waiting, answered, after, bad, relisted

    try:
        connected, listed, waiting, answered, after, bad, relisted = anyio.run(scenario)
    finally:
        lock.close()
    assert connected < 5, connected  # the stand-in needs no package: no agent waits for pip
    assert [t.name for t in listed.tools] == list(TOOLS)
    assert waiting.is_error and waiting.content[0].text == INSTALLING
    assert not answered.is_error and FACT in answered.content[0].text, answered.content[0].text
    assert not after.is_error and FACT in after.content[0].text
    assert bad.is_error and "invalid chunk id" in bad.content[0].text
    assert "ToolListChangedNotification" in notified  # so a client fetches the real argument schemas
    recall = next(t for t in relisted.tools if t.name == "recall")
    assert recall.input_schema["required"] == ["query"] and [t.name for t in relisted.tools] == list(TOOLS)
    assert not any(p.name.startswith(".tmp") for p in copy.rglob("*")), "nothing is written inside the plugin"


def test_an_install_that_fails_is_a_tool_error_and_the_server_keeps_answering(plugin, tmp_path):
    copy, cache, env = plugin
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1", PIP_FIND_LINKS="")  # nowhere to install from

    async def scenario():
        async with connect(copy, env, tmp_path) as client:
            for _ in range(240):
                answer = await client.call_tool("recall", {"query": "port"})
                if answer.content[0].text != INSTALLING:
                    break
                await anyio.sleep(0.5)
            return answer, await client.list_tools()  # still answering

    answer, listed = anyio.run(scenario)
    assert answer.is_error and "could not install rlm-mem's Python packages" in answer.content[0].text
    assert len(listed.tools) == len(TOOLS)


def test_an_unwritable_cache_folder_is_a_clear_tool_error_and_resources_are_listed(plugin, tmp_path):
    copy, cache, env = plugin
    (tmp_path / "cachefile").write_text("a file where the cache folder should be\n")
    env["XDG_CACHE_HOME"] = str(tmp_path / "cachefile")

    async def scenario():
        async with connect(copy, env, tmp_path) as client:
            resources = await client.list_resources()
            for _ in range(60):
                answer = await client.call_tool("recall", {"query": "port"})
                if answer.content[0].text != INSTALLING:
                    break
                await anyio.sleep(0.5)
            return answer, resources

    answer, resources = anyio.run(scenario)
    assert answer.is_error and "cannot start its server" in answer.content[0].text, answer.content[0].text
    assert sorted(str(r.uri) for r in resources.resources) == ["rlm-mem://brief", "rlm-mem://core"]


def test_a_stand_in_leaves_when_its_client_closes_stdin_while_another_process_installs(plugin, tmp_path):
    import subprocess

    copy, cache, env = plugin
    cache.mkdir(parents=True)
    lock = open(cache / "python.lock", "a")  # another process is installing, and stays at it
    fcntl.flock(lock, fcntl.LOCK_EX)
    server = subprocess.Popen([PYTHON, "-I", str(copy / "scripts" / "rlm_mem.py"), "mcp"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=str(tmp_path))
    try:
        server.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
        server.stdin.flush()
        assert b'"id":1' in server.stdout.readline()
        server.stdin.close()
        assert server.wait(timeout=15) == 0
        assert b"Traceback" not in server.stderr.read()
    finally:
        if server.poll() is None:
            server.kill()
        server.stdout.close()
        server.stderr.close()
        lock.close()

