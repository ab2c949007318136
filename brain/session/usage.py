"""How much of Claude's context window the session has used, read from the tail of its transcript (for the
LiveHud's Context gauge). Stdlib only: session start shows it."""
import os

from brain.util import fastjson
from brain.util.files import open_regular

TAIL_BYTES = 256 * 1024


def context_use(transcript_path: str, window: int = 200_000) -> str:
    """'NN%' of the context window used, from the last assistant usage in the transcript tail; 'Stable' if unknown."""
    try:
        with open(open_regular(transcript_path), "rb") as fh:  # never a FIFO or a device
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - TAIL_BYTES))
            tail = fh.read(TAIL_BYTES).decode("utf-8", errors="replace").splitlines()
    except (OSError, TypeError, ValueError):
        return "Stable"
    for line in reversed(tail):
        if '"usage"' not in line:
            continue
        try:
            usage = fastjson.loads(line)["message"]["usage"]
            used = sum(int(usage.get(k) or 0) for k in ("input_tokens", "cache_read_input_tokens",
                                                        "cache_creation_input_tokens"))
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
        if used:
            return f"{min(99, round(100 * used / window))}%"
    return "Stable"
