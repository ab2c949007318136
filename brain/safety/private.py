"""`<private>…</private>`: text a person marks as never to be kept.

Capture removes such spans from what it reads (brain/capture/transcript.py); the redactor (brain/safety/redact.py)
replaces any span that reaches a write with `[REDACTED:private]`. Every string rlm-mem writes passes the redactor
(brain/util/files.py), so no span is ever on disk, whichever way the text came in: `remember`, `update`, tags,
titles, the MCP server, the web page, a sync. An unclosed span runs to the end of its text; a tag left half-typed
(`<private` at the end) still opens one.
"""
import re

OPEN = re.compile(r"<private\b[^>\n]*>?", re.IGNORECASE)
CLOSE = re.compile(r"</private\s*>", re.IGNORECASE)
TRIGGER = "<private"  # in the lower-cased text: no span without it (brain/safety/triggers.py)


def spans(text: str):
    """(start, end) of each private span of `text`, in order."""
    pos = 0
    while (opened := OPEN.search(text, pos)) is not None:
        closed = CLOSE.search(text, opened.end())
        pos = closed.end() if closed else len(text)
        yield opened.start(), pos


def without(text: str) -> str:
    """`text` with its private spans taken out (what is left to keep)."""
    if TRIGGER not in text.lower():
        return text
    out, pos = [], 0
    for start, end in spans(text):
        out.append(text[pos:start])
        pos = end
    return "".join(out) + text[pos:]
