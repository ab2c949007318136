"""The MCP server's tools. Each is a method with a typed signature (the SDK builds the tool's argument schema
from it and validates every call against it, so a wrong type or a missing argument is refused before the method
runs) that calls what the command line calls: brain/session/actions.py, brain/store/lifecycle.py, ChunkStore,
brain/recall/core.py, brain/narrative. A result is the text the model reads (memory text fenced as reference data, as the hooks
inject it) and structured content for clients that read JSON: ids, types, dates, scores, and that same text as
its first field, `text`. Claude Code (and VS Code) hand the model the structured content alone when there is one,
so memory text is only ever in `text`, inside its fence, never in a field of its own.

Every failure a caller can cause is a ToolError carrying the library's own message (the SDK answers it as an
error result and keeps serving); ids go through the store's id check (a full id or its 8-hex tail, nothing that
could name a path); text has a length limit in the schema; writes go through the library, so through the
redaction boundary. Memory switched off for the project (`rlm-mem disable`) makes every tool say so.

Adding a tool: a method below decorated with @tool, and its description in catalog.TOOLS.
"""
import functools
from typing import Annotated, Literal

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from brain.mcp.catalog import TOOLS
from brain.narrative.causes import chain_lines
from brain.narrative.causes import why as why_chain
from brain.narrative.chapters import chapters as project_chapters
from brain.narrative.chapters import wisdom as project_wisdom
from brain.recall.core import CORE_BUDGET_TOKENS, build_core
from brain.recall.depth import DEPTHS
from brain.safety.fence import fence
from brain.session import actions
from brain.store import sensitivity
from brain.store.chunk import CHUNK_TYPES, MANUAL_LINK_TYPES
from brain.store.lifecycle import SCOPES
from brain.util.errors import RlmMemError, describe

OFF = "memory is switched off for this project (`rlm-mem enable` switches it on)"
MAX_TEXT = 20_000  # characters a tool takes as a memory's text (the command line takes files; a model, notes)
MAX_QUERY = 2_000
MAX_NOTE = 500  # a reason, a tag list
MAX_CHAPTERS = 10  # the latest chapters the tool shows (`rlm-mem chapters` shows them all)

Id = Annotated[str, Field(max_length=40)]
Note = Annotated[str | None, Field(max_length=MAX_NOTE)]
Date = Annotated[str | None, Field(max_length=40, description="ISO date or time")]
ChunkType = Literal[CHUNK_TYPES] | None
Sensitivity = Literal[sensitivity.LEVELS] | None
READ_ONLY = ToolAnnotations(read_only_hint=True)


def tool(name: str | None = None, *, read_only: bool = False):
    """Mark a method as the tool `name` (default: the method's). A library error (RlmMemError, OSError,
    ValueError) becomes a ToolError with its message; anything else the SDK reports as a crash, without its text."""
    def mark(method):
        @functools.wraps(method)
        def run(self, *args, **kwargs):
            if self.off:
                raise ToolError(self.off)
            try:
                return method(self, *args, **kwargs)
            except (RlmMemError, OSError, ValueError) as exc:
                raise ToolError(describe(exc) or str(exc)) from exc

        run.tool_name, run.annotations = name or method.__name__, READ_ONLY if read_only else None
        return run
    return mark


def answer(text: str, structured: dict) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content={"text": text,
                                                                                               **structured})


class MemoryTools:
    """The tools over one store, for the project the server was started in (`project`: a ProjectInfo);
    `switched_off()` says, at each call, whether memory is off there (every tool then answers OFF);
    `max_sensitivity` is the most private level a tool shows (RLM_MEM_MAX_SENSITIVITY, as for the hooks)."""

    def __init__(self, store, project, *, switched_off=lambda: False, max_sensitivity: str = "medium"):
        self.store, self.project, self.switched_off, self.max_sensitivity = (store, project, switched_off,
                                                                             max_sensitivity)

    @property
    def off(self) -> str | None:
        return OFF if self.switched_off() else None

    def core_digest(self, project_id, budget: int = CORE_BUDGET_TOKENS) -> dict:
        """The CORE digest (recall/core.py) over the store brought up to date first, as the hooks read it."""
        actions.up_to_date(self.store)
        return build_core(self.store.root, project_id, budget_tokens=budget, max_sensitivity=self.max_sensitivity)

    def functions(self) -> dict:
        """{tool name: bound method}, in catalog order."""
        marked = {getattr(fn, "tool_name", None): attr for attr, fn in vars(type(self)).items()}
        return {name: getattr(self, marked[name]) for name in TOOLS}

    def _project(self, project):
        return None if project == "all" else (project or self.project.id)

    @tool(read_only=True)
    def recall(self, query: Annotated[str, Field(min_length=1, max_length=MAX_QUERY)],
               budget: Annotated[int | None, Field(ge=50, le=8000)] = None,
               project: Annotated[str | None, Field(max_length=200, description="id, or all")] = None,
               type: ChunkType = None, since: Date = None) -> CallToolResult:
        result = actions.recall_memories(self.store, query, project=self._project(project), budget_tokens=budget,
                                         max_sensitivity=self.max_sensitivity, chunk_type=type, since=since)
        text = fence(result.render(), label="recall") if result.items else "No memory is relevant enough."
        found = result.to_dict()
        found["items"] = [{k: v for k, v in item.items() if k != "text"} for item in found["items"]]
        return answer(text, found)

    @tool()
    def remember(self, content: Annotated[str, Field(min_length=1, max_length=MAX_TEXT)], type: ChunkType = None,
                 tags: Annotated[str | None, Field(max_length=MAX_NOTE, description="comma-separated")] = None,
                 scope: Literal[SCOPES] | None = None, sensitivity: Sensitivity = None,
                 supersedes: Id | None = None) -> CallToolResult:
        chunks = actions.remember(self.store, content, self.project, chunk_type=type, tags=tags,
                                  supersedes=[supersedes] if supersedes else (), sensitivity_level=sensitivity,
                                  scope=scope, max_sensitivity=self.max_sensitivity)
        ids = [c.id for c in chunks]
        scopes = sorted({actions.scope_of_chunk(c) for c in chunks})
        return answer(f"Remembered {', '.join(ids)} (scope {', '.join(scopes)}).", {"ids": ids, "scopes": scopes})

    @tool(read_only=True)
    def get(self, id: Id, depth: Literal[DEPTHS] = "full") -> CallToolResult:
        chunk = actions.show(self.store, id, max_sensitivity=self.max_sensitivity)
        return answer(fence(actions.chunk_text(chunk, depth), label="memory"), _described(chunk))

    @tool("list", read_only=True)
    def list_(self, type: ChunkType = None, tags: Note = None, since: Date = None, until: Date = None,
              kind: Annotated[str | None, Field(max_length=40, description="memory, turn, session...")] = None,
              project: Annotated[str | None, Field(max_length=200, description="id, or all")] = None,
              limit: Annotated[int, Field(ge=1, le=200)] = 20) -> CallToolResult:
        chunks, hidden = actions.list_memories(self.store, chunk_type=type, tags=tags, since=since, until=until,
                                               kind=kind, within=self._project(project), limit=limit,
                                               newest_first=True,
                                               max_sensitivity=self.max_sensitivity)
        lines = [actions.chunk_line(c) for c in chunks]
        text = fence("\n".join(lines), label="memories") if lines else "No memories match."
        if hidden:
            text += f"\n({hidden} more are above the {self.max_sensitivity} sensitivity shown here.)"
        return answer(text, {"memories": [_listed(c) for c in chunks], "hidden": hidden})

    @tool()
    def update(self, id: Id, content: Annotated[str | None, Field(max_length=MAX_TEXT)] = None,
               type: ChunkType = None, tags: Note = None, sensitivity: Sensitivity = None,
               reason: Note = None) -> CallToolResult:
        chunk = actions.update(self.store, id, reason=reason, content=content, chunk_type=type, tags=tags,
                               sensitivity=sensitivity, max_sensitivity=self.max_sensitivity)
        return answer(f"Updated {chunk.id}.", {"id": chunk.id})

    @tool()
    def supersede(self, old: Id, statement: Annotated[str, Field(min_length=1, max_length=MAX_TEXT)],
                  type: ChunkType = None, tags: Note = None) -> CallToolResult:
        chunks = actions.supersede_by(self.store, old, statement, self.project, chunk_type=type, tags=tags,
                                      max_sensitivity=self.max_sensitivity)
        old_id, new_id = self.store.resolve_id(old), chunks[0].id
        return answer(f"{old_id} is marked as replaced by {new_id}.", {"old": old_id, "new": new_id})

    @tool()
    def forget(self, id: Id, reason: Note = None) -> CallToolResult:
        chunk_id = actions.forget(self.store, id, reason=reason or "forgotten through MCP",
                                  max_sensitivity=self.max_sensitivity)
        return answer(f"Archived {chunk_id} (restore brings it back).", {"id": chunk_id, "status": "archived"})

    @tool()
    def restore(self, id: Id) -> CallToolResult:
        chunk = actions.restore(self.store, id, max_sensitivity=self.max_sensitivity)
        return answer(f"Restored {chunk.id}.", {"id": chunk.id, "status": chunk.status})

    @tool()
    def pin(self, id: Id) -> CallToolResult:
        return self._pinned(id, True)

    @tool()
    def unpin(self, id: Id) -> CallToolResult:
        return self._pinned(id, False)

    def _pinned(self, ref: str, pinned: bool) -> CallToolResult:
        chunk = actions.pin(self.store, ref, pinned, max_sensitivity=self.max_sensitivity)
        return answer(f"{'Pinned' if pinned else 'Unpinned'} {chunk.id}.", {"id": chunk.id, "pinned": pinned})

    @tool()
    def link(self, source: Id, target: Id, type: Literal[MANUAL_LINK_TYPES],
             strength: Annotated[float | None, Field(ge=0, le=1)] = None, context: Note = None,
             remove: bool = False) -> CallToolResult:
        chunk, target_id = actions.link(self.store, source, target, type, remove=remove, strength=strength,
                                        context=context, max_sensitivity=self.max_sensitivity)
        return answer(f"{'Unlinked' if remove else 'Linked'}: {chunk.id} {type} {target_id}.",
                      {"source": chunk.id, "target": target_id, "type": type, "removed": remove})

    @tool()
    def status(self, id: Id, status: Literal["contested", "retracted", "active"],
               reason: Note = None) -> CallToolResult:
        chunk = actions.set_status(self.store, id, status, reason=reason, max_sensitivity=self.max_sensitivity)
        actions.refresh_brief(self.store.root, chunk.project or self.project.id)
        return answer(f"{chunk.id} is {chunk.status}.", {"id": chunk.id, "status": chunk.status})

    @tool(read_only=True)
    def why(self, id: Id) -> CallToolResult:
        chunk_id = self.store.resolve_id(id)
        if self.store.get_chunk(chunk_id, track=False, include_archived=True) is None:
            raise ToolError(f"no chunk {chunk_id}")
        found = why_chain(self.store.root, chunk_id, max_sensitivity=self.max_sensitivity)
        return answer(fence("\n".join(chain_lines(found)), label="why"),
                      {"id": chunk_id, "causes": _chain(found["causes"]), "effects": _chain(found["effects"])})

    @tool(read_only=True)
    def chapters(self) -> CallToolResult:
        found = project_chapters(self.store.root, self.project.id)[-MAX_CHAPTERS:]
        text = "\n\n".join(f"{c['start'][:16]} – {c['end'][:16]} ({len(c['sessions'])} sessions) {c['title']}\n"
                            f"{c['summary']}" + "".join(f"\nlearned: {x}" for x in c["learnings"]) for c in found)
        return answer(fence(text, label="chapters") if found else "No chapters yet.",
                      {"chapters": [{k: c[k] for k in ("id", "start", "end", "sessions", "branch")} for c in found]})

    @tool(read_only=True)
    def wisdom(self) -> CallToolResult:
        found = project_wisdom(self.store.root, self.project.id)
        lines = [found["summary"]] + [f"recurring ({e['times']}x): {e['error']} — fixed by: {'; '.join(e['fixes'])}"
                                      for e in found["recurring_errors"]]
        lines += [f"{key[:-1]} since {item['since'][:10]}: {item['text']} [{item['id']}]"
                  for key in ("conventions", "decisions") for item in found[key]]
        return answer(fence("\n".join(lines), label="wisdom"),
                      {key: [item["id"] for item in found[key]] for key in ("conventions", "decisions")}
                      | {"recurring_errors": len(found["recurring_errors"]), "chapters": found["chapters"]})

    @tool(read_only=True)
    def core(self, project: Annotated[str | None, Field(max_length=200, description="id, or all")] = None,
             budget: Annotated[int, Field(ge=200, le=3000)] = 3000) -> CallToolResult:
        digest = self.core_digest(self._project(project), budget)
        sections = [{"key": part["key"], "ids": [item["id"] for item in part["items"]]} for part in digest["sections"]]
        return answer(fence(digest["text"], label="core"), {"project": digest["project"], "items": digest["items"],
                                                            "tokens": digest["tokens"], "sections": sections})


def _chain(nodes: list) -> list:
    """A `why` tree as structured content: ids and links only (the words are in the fenced text)."""
    return [{"id": n["id"], "link": n["link"], "status": n["status"], "then": _chain(n["then"])} for n in nodes]


def _listed(chunk) -> dict:
    """A memory as structured content: what it is, never what it says (that is in the fenced text)."""
    md = chunk.metadata
    return {"id": chunk.id, "created": chunk.created, "type": chunk.type, "kind": md.get("kind") or "memory",
            "status": chunk.status, "pinned": chunk.pinned, "scope": md.get("scope") or "project",
            "project": md.get("project"), "tags": chunk.tags}


def _described(chunk) -> dict:
    md = chunk.metadata
    return dict(_listed(chunk), confidence=md.get("confidence"), sensitivity=md.get("sensitivity") or "low",
                links={kind: ids for kind, ids in chunk.links.items() if ids})
