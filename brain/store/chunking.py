"""ChunkingEngine: long content becomes chunks of at most 800 tokens.

Split at paragraph boundaries first, then sentences, then (for a single enormous sentence) words. Pieces under
100 tokens merge with a neighbour when the merged piece still fits, so chunks stay coherent; a short standalone
memory is stored as one chunk whatever its size (seed 000's own example is 12 tokens).
"""
import re

from brain.util.text import sentences
from brain.util.tokens import estimate_tokens

MAX_TOKENS = 800
MIN_TOKENS = 100

_PARAGRAPH = re.compile(r"\n\s*\n")


class ChunkingEngine:
    def __init__(self, max_tokens: int = MAX_TOKENS, min_tokens: int = MIN_TOKENS):
        if not 0 < min_tokens <= max_tokens:
            raise ValueError("need 0 < min_tokens <= max_tokens")
        self.max_tokens = max_tokens
        self.min_tokens = min_tokens

    def chunk(self, content: str) -> list:
        """Pieces of `content` (stripped), each within max_tokens; never drops text."""
        text = content.strip()
        if not text:
            return []
        if estimate_tokens(text) <= self.max_tokens:
            return [text]
        units = []
        for para in _PARAGRAPH.split(text):
            para = para.strip()
            if para:
                units.extend(self._fit(para, "\n\n"))
        return self._merge(units)

    # Break one paragraph into (text, joiner) units that each fit.
    def _fit(self, para: str, joiner: str) -> list:
        if estimate_tokens(para) <= self.max_tokens:
            return [(para, joiner)]
        out = []
        for sentence in (s for line in para.split("\n") for s in sentences(line)):
            sentence = sentence.strip()
            if not sentence:
                continue
            if estimate_tokens(sentence) <= self.max_tokens:
                out.append((sentence, " "))
            else:
                out.extend((piece, " ") for piece in self._split_words(sentence))
        if out:  # the paragraph's first unit keeps the paragraph joiner
            out[0] = (out[0][0], joiner)
        return out

    def _split_words(self, sentence: str) -> list:
        pieces, current = [], []
        for word in sentence.split():
            while estimate_tokens(word) > self.max_tokens:  # a "word" of thousands of characters
                cut = self.max_tokens * 4 - 8
                if current:
                    pieces.append(" ".join(current))
                    current = []
                pieces.append(word[:cut])
                word = word[cut:]
            if current and estimate_tokens(" ".join(current + [word])) > self.max_tokens:
                pieces.append(" ".join(current))
                current = []
            current.append(word)
        if current:
            pieces.append(" ".join(current))
        return pieces

    # Greedy packing: fill each chunk up to max_tokens, then fold a small tail into its neighbour when it fits.
    def _merge(self, units: list) -> list:
        chunks = []
        current = ""
        for text, joiner in units:
            candidate = f"{current}{joiner}{text}" if current else text
            if current and estimate_tokens(candidate) > self.max_tokens:
                chunks.append(current)
                current = text
            else:
                current = candidate
        if current:
            chunks.append(current)
        if len(chunks) > 1 and estimate_tokens(chunks[-1]) < self.min_tokens:
            merged = chunks[-2] + "\n\n" + chunks[-1]
            if estimate_tokens(merged) <= self.max_tokens:
                chunks[-2:] = [merged]
        return chunks
