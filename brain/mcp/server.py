"""`rlm-mem mcp`: rlm-mem's memory as an MCP server over stdio, built on the official Python SDK (`mcp`).

The server is made for one memory root and one project, found by the same rules as the hooks
(brain/context/resolve.py: `--dir`, RLM_MEM_DIR, a project keeping its memory in its repository, the plugin's
data folder, the default), so what the hooks captured is what the tools see. Nothing is cached between calls:
each recall opens search.db afresh (and indexes chunk files changed behind its back first), each read goes to the
chunk files, so what a hook wrote a moment ago is there on the next call. stdio only: no network listener.

Tool schemas come from the tools' typed signatures (brain/mcp/tools.py); `compact` takes out what costs a model
tokens and tells it nothing (pydantic's titles, `anyOf` with null for an optional argument, a null default).
"""
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.server.mcpserver.resources import FunctionResource
from mcp.server.mcpserver.tools import Tool

from brain import __version__
from brain.mcp.catalog import INSTRUCTIONS, RESOURCES, SERVER_NAME, TOOLS
from brain.mcp.tools import MemoryTools
from brain.recall.core import build_core
from brain.session.brief import current_brief
from brain.util.errors import RlmMemError, describe

OFF = "memory is switched off for this project (`rlm-mem enable` switches it on)"


def compact(schema):
    """A JSON schema without pydantic's titles, null alternatives and null defaults (validation is pydantic's
    own, from the signature, and still accepts null for an optional argument)."""
    if isinstance(schema, list):
        return [compact(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str) or key == "default" and value is None:
            continue
        out[key] = compact(value) if key != "properties" else {k: compact(v) for k, v in value.items()}
    choices = out.get("anyOf")
    if isinstance(choices, list) and {"type": "null"} in choices:
        rest = [c for c in choices if c != {"type": "null"}]
        del out["anyOf"]
        out.update(rest[0] if len(rest) == 1 else {"anyOf": rest})
    return out


def build(store, project, *, disabled: bool = False, max_sensitivity: str = "medium") -> MCPServer:
    """The server over `store` for `project` (a ProjectInfo)."""
    tools = MemoryTools(store, project, off=OFF if disabled else None, max_sensitivity=max_sensitivity)
    defined = []
    for name, fn in tools.functions().items():
        made = Tool.from_function(fn, name=name, description=TOOLS[name], annotations=fn.annotations,
                                  structured_output=False)
        made.parameters = compact(made.parameters)
        defined.append(made)
    readers = {"core": lambda: _read(disabled, lambda: build_core(store.root, project.id,
                                                                   max_sensitivity=max_sensitivity)["text"]),
               "brief": lambda: _read(disabled, lambda: _brief(store.root, project, max_sensitivity))}
    resources = [FunctionResource(uri=uri, name=name, description=description, mime_type="text/markdown",
                                  fn=readers[name]) for uri, (name, description) in RESOURCES.items()]
    return MCPServer(SERVER_NAME, instructions=INSTRUCTIONS, version=__version__, tools=defined,
                     resources=resources, log_level="WARNING")


def _brief(root, project, max_sensitivity: str) -> str:
    brief = current_brief(root, project, max_sensitivity=max_sensitivity)
    return brief.get("memory") or "rlm-mem: no memories stored yet for this project."


def _read(disabled: bool, read) -> str:
    if disabled:
        raise ResourceError(OFF)
    try:
        return read()
    except (RlmMemError, OSError, ValueError) as exc:
        raise ResourceError(describe(exc) or str(exc)) from exc


def serve(store, project, *, disabled: bool = False, max_sensitivity: str = "medium") -> None:
    """Answer MCP requests on stdin/stdout until the client closes stdin."""
    build(store, project, disabled=disabled, max_sensitivity=max_sensitivity).run("stdio")
