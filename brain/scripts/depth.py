"""Depth levels for showing a memory, after seed 002: peek cheaply, expand on demand.

summary  ~20 tokens: the title or the first sentence, cut at a word
outcome  ~50 tokens: a little more, ending on what happened (session records show their outcome line)
full     the whole content
complete the content with every field: metadata, links, tags
"""
import re

DEPTHS = ("summary", "outcome", "full", "complete")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


def clip(text: str, limit: int) -> str:
    """At most `limit` characters, cut at a word boundary, with an ellipsis when cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def summary_line(chunk: dict, limit: int = 90) -> str:
    md = chunk.get("metadata", {})
    if md.get("title"):
        return clip(md["title"], limit)
    content = " ".join(chunk.get("content", "").split())
    m = _SENTENCE_END.search(content)
    first = content[: m.start()] if m and m.start() >= 20 else content
    return clip(first, limit)


def outcome_text(chunk: dict, limit: int = 220) -> str:
    content = chunk.get("content", "")
    for line in content.splitlines():
        if line.lower().startswith(("outcome:", "result:")):
            return clip(summary_line(chunk, 80) + " — " + line, limit)
    return clip(content, limit)


def render(chunk: dict, depth: str = "full") -> str:
    if depth not in DEPTHS:
        raise ValueError(f"unknown depth {depth!r}; use one of {', '.join(DEPTHS)}")
    if depth == "summary":
        return summary_line(chunk)
    if depth == "outcome":
        return outcome_text(chunk)
    if depth == "full":
        return chunk.get("content", "")
    import json  # only the "complete" depth needs it

    return json.dumps(chunk, indent=2, ensure_ascii=False)
