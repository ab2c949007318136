"""Token estimate without a tokenizer or network.

Claude's tokenizer averages roughly 4 characters of English per token, and code or non-Latin text runs denser.
We take the larger of chars/4 and words*1.3 so that neither long words nor many short ones are undercounted.
It is an estimate for budgeting, documented as such in MEMORY_SCHEMA.md.
"""
import math


def estimate_tokens(text: str) -> int:
    if not text:
        return 0
    words = len(text.split())  # str.split() and regex \s agree on what whitespace is; no `re` on the hot path
    return max(1, math.ceil(max(len(text) / 4.0, words * 1.3)))

