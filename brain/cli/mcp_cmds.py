"""The `mcp` command: rlm-mem's memory as an MCP server over stdio, for Claude Code and other agents."""
import os

import click

from brain.cli.common import pass_env
from brain.mcp.server import serve
from brain.store.chunk_store import ChunkStore
from brain.store.sensitivity import limit_from_env


@click.command()
@pass_env
def mcp(env):
    """Serve memory to an agent as an MCP server over stdio (recall, remember, get, list, pin...).

    Memory is found as the hooks find it (--dir, RLM_MEM_DIR, the project's setting, the plugin's data folder);
    memories above RLM_MEM_MAX_SENSITIVITY (default medium) are not shown, as in the hooks. An agent starts it
    and talks to it on stdin/stdout; it has no network listener.

    \b
    Example (an agent's MCP configuration):
      {"mcpServers": {"rlm-mem": {"command": "/path/to/rlm-mem/bin/rlm-mem", "args": ["mcp"]}}}
    """
    store = ChunkStore(env.root, actor=os.environ.get("RLM_MEM_ACTOR") or "mcp")
    serve(store, env.project, max_sensitivity=limit_from_env())  # the off switch: read at every call
