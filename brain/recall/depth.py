"""Depth levels for showing a memory, after seed 002: peek cheaply, expand on demand.

summary  ~20 tokens: the title or the first sentence, cut at a word
outcome  ~50 tokens: a little more, ending on what happened (session records show their outcome line)
full     the whole content
complete the content with every field: metadata, links, tags
"""
DEPTHS = ("summary", "outcome", "full", "complete")


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
    end = _first_sentence_end(content)
    first = content[:end] if end >= 20 else content
    return clip(first, limit)


def _first_sentence_end(text: str) -> int:
    """Where the first sentence of single-spaced `text` ends (the space after its . ! or ?), or -1. String
    methods, not a regex: recall imports this module in the prompt hook, where importing `re` costs ~3 ms."""
    ends = [i + 1 for i in (text.find(". "), text.find("! "), text.find("? ")) if i >= 0]
    return min(ends, default=-1)


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
