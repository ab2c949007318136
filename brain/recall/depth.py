"""Depth levels for showing a memory, after seed 002: peek cheaply, expand on demand.

summary  ~20 tokens: the title or the first sentence, cut at a word
outcome  ~50 tokens: a little more, ending on what happened (session records show their outcome line)
full     the whole content (with `structure_lines`: a session record's five layers, a procedure's steps)
complete the content with every field: metadata, links, tags
"""
from brain.util.text import clip, first_sentence

DEPTHS = ("summary", "outcome", "full", "complete")


def summary_line(chunk: dict, limit: int = 90) -> str:
    md = chunk.get("metadata", {})
    if md.get("title"):
        return clip(md["title"], limit)
    content = chunk.get("content", "")
    first = first_sentence(content)
    return clip(first if len(first) >= 20 else content, limit)


def outcome_text(chunk: dict, limit: int = 220) -> str:
    content = chunk.get("content", "")
    for line in content.splitlines():
        if line.lower().startswith(("outcome:", "result:")):
            return clip(summary_line(chunk, 80) + " — " + line, limit)
    return clip(content, limit)


def render(chunk: dict, depth: str = "full") -> str:
    if depth not in DEPTHS:
        raise ValueError(f"unknown depth; use one of {', '.join(DEPTHS)}")
    if depth == "summary":
        return summary_line(chunk)
    if depth == "outcome":
        return outcome_text(chunk)
    if depth == "full":
        return chunk.get("content", "")
    import json  # only "complete" needs it, and the prompt hook (which loads this module) must not pay for it

    return json.dumps(chunk, indent=2, ensure_ascii=False)


def structure_lines(md: dict) -> list:
    """The structured parts of a memory, as lines for `get --depth full`: seed 002's five layers of a session
    record (intent, perception, reasoning, actions, outcome) and seed 003's procedure (conditions and steps)."""
    lines = []
    layers = md.get("layers") if isinstance(md.get("layers"), dict) else {}
    if layers:
        lines.append("layers:")
        for name in ("intent", "perception", "reasoning", "actions", "outcome"):
            lines.append(f"  {name}: {_layer_text(name, layers.get(name) or {}) or '(nothing recorded)'}")
    procedure = md.get("procedure") if isinstance(md.get("procedure"), dict) else {}
    if procedure:
        lines.append("procedure:")
        for name in ("steps", "preconditions", "postconditions"):
            items = procedure.get(name) or []
            if items:
                lines.append(f"  {name}: " + " ".join(f"{i}. {item}" for i, item in enumerate(items, 1)))
    return lines


def _joined(items, limit: int = 6) -> str:
    items = [str(i) for i in items or ()]
    return "; ".join(items[:limit]) + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


def _layer_text(name: str, layer: dict) -> str:
    parts = []
    if name == "intent":
        detail = ", ".join(f"{k} {layer[k]}" for k in ("task_type", "branch") if layer.get(k))
        parts += [layer.get("goal") or "", f"({detail})" if detail else "",
                  f"— context: {layer['context']}" if layer.get("context") else "",
                  f"— constraints: {_joined(layer.get('constraints'))}" if layer.get("constraints") else ""]
    elif name == "perception":
        parts += [f"read {_joined(layer.get('files_read'))}" if layer.get("files_read") else "",
                  f"errors seen: {_joined(layer.get('errors_seen'), 3)}" if layer.get("errors_seen") else "",
                  f"noticed: {_joined(layer.get('observations'), 3)}" if layer.get("observations") else ""]
    elif name == "reasoning":
        alternatives = [a.get("approach", "") + (f" (rejected: {a['why_rejected']})" if a.get("why_rejected") else "")
                        for a in layer.get("alternatives") or () if isinstance(a, dict)]
        parts += [f"decided: {_joined(layer.get('decisions'), 4)}" if layer.get("decisions") else "",
                  f"alternatives: {_joined(alternatives, 3)}" if alternatives else ""]
    elif name == "actions":
        commands = [f"`{c.get('command')}`" + (" (failed)" if c.get("ok") is False else "")
                    for c in layer.get("commands") or () if isinstance(c, dict)]
        parts += [f"changed {_joined(layer.get('files_changed'))}" if layer.get("files_changed") else "",
                  f"ran {_joined(commands)}" if commands else ""]
    elif name == "outcome":
        verified = layer.get("verified_by") or {}
        success = {True: "succeeded", False: "not finished"}.get(layer.get("success"), "")
        parts += [success, layer.get("summary") or "",
                  f"— learnings: {_joined(layer.get('learnings'), 4)}" if layer.get("learnings") else "",
                  f"— follow-ups: {_joined(layer.get('follow_ups'), 4)}" if layer.get("follow_ups") else "",
                  f"— verified by {verified.get('type')} `{verified.get('command')}`: {verified.get('result')}"
                  if verified.get("command") else ""]
    return " ".join(p for p in parts if p)
