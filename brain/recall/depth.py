"""Depth levels for showing a memory, after seed 002: peek cheaply, expand on demand.

summary  ~20 tokens: the title or the first sentence, cut at a word
outcome  ~50 tokens: a little more, ending on what happened (session records show their outcome line)
full     the whole content
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
