"""`rlm-mem mcp`: rlm-mem's memory as an MCP server over stdio, built on the official Python SDK (`mcp`).

The server is made for one memory root and one project, found by the same rules as the hooks
(brain/context/resolve.py: `--dir`, RLM_MEM_DIR, a project keeping its memory in its repository, the plugin's
data folder, the default), so what the hooks captured is what the tools see. Nothing is cached between calls:
each recall opens search.db afresh (and indexes chunk files changed behind its back first), each read goes to the
chunk files, so what a hook wrote a moment ago is there on the next call. stdio only: no network listener.

Tool schemas come from the tools' typed signatures (brain/mcp/tools.py); `compact` takes out what costs a model
tokens and tells it nothing (pydantic's titles, `anyOf` with null for an optional argument, a null default).
"""
import os

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.server.mcpserver.resources import FunctionResource
from mcp.server.mcpserver.tools import Tool

from brain import __version__
from brain.mcp.catalog import INSTRUCTIONS, RESOURCES, SERVER_NAME, TOOLS
from brain.context.project import CONFIG_NAME, memory_disabled
from brain.mcp.tools import MemoryTools
from brain.safety.fence import fence
from brain.session.brief import current_brief
from brain.util.errors import RlmMemError, describe

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


class OffSwitch:
    """Whether memory is switched off for the project at `project_root`, read again whenever its .rlm-mem.json
    changes (one stat per call), so `rlm-mem disable` stops a server that is running, from its next call on."""

    def __init__(self, project_root):
        self.root = project_root
        self.path = os.path.join(os.fspath(project_root), CONFIG_NAME) if project_root else None
        self.seen, self.off = (), False

    def __call__(self) -> bool:
        try:
            st = os.stat(self.path) if self.path else None
            seen = (st.st_mtime_ns, st.st_size, st.st_ino) if st else None
        except OSError:
            seen = None
        if seen != self.seen:
            self.seen, self.off = seen, memory_disabled(self.root)
        return self.off


def build(store, project, *, switched_off=None, max_sensitivity: str = "medium") -> MCPServer:
    """The server over `store` for `project` (a ProjectInfo); `switched_off()` is asked at every call (default:
    the project's off switch)."""
    tools = MemoryTools(store, project, switched_off=switched_off or OffSwitch(project.root),
                        max_sensitivity=max_sensitivity)
    defined = []
    for name, fn in tools.functions().items():
        made = Tool.from_function(fn, name=name, description=TOOLS[name], annotations=fn.annotations,
                                  structured_output=False)
        made.parameters = compact(made.parameters)
        defined.append(made)
    readers = {"core": lambda: _read(tools, lambda: fence(tools.core_digest(project.id)["text"], label="core")),
               "brief": lambda: _read(tools, lambda: _brief(store.root, project, max_sensitivity))}
    resources = [FunctionResource(uri=uri, name=name, description=description, mime_type="text/markdown",
                                  fn=readers[name]) for uri, (name, description) in RESOURCES.items()]
    return MCPServer(SERVER_NAME, instructions=INSTRUCTIONS, version=__version__, tools=defined,
                     resources=resources, log_level="WARNING")


def _brief(root, project, max_sensitivity: str) -> str:
    brief = current_brief(root, project, max_sensitivity=max_sensitivity)
    return brief.get("memory") or "rlm-mem: no memories stored yet for this project."


def _read(tools, read) -> str:
    if tools.off:
        raise ResourceError(tools.off)
    try:
        return read()
    except (RlmMemError, OSError, ValueError) as exc:
        raise ResourceError(describe(exc) or str(exc)) from exc


def serve(store, project, *, max_sensitivity: str = "medium") -> None:
    """Answer MCP requests on stdin/stdout until the client closes stdin."""
    build(store, project, max_sensitivity=max_sensitivity).run("stdio")
