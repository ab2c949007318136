"""A turn's prose as the sentences phrase rules read: outside code and quotes, speaker label and lead-in words
("Oh, also ...") set aside, lower-cased for matching, questions told apart."""
from __future__ import annotations

import re
from dataclasses import dataclass

from brain.util.text import sentences, speaker_label

MAX_SENTENCE = 600  # a sentence longer than this is pasted text, not something said

# "Caroline: ..." speaker labels (conversations written that way); trigger words are not speakers.
_NOT_SPEAKERS = frozenset({"note", "correction", "decision", "remember", "todo", "nb", "fyi", "update", "edit",
                           "error", "warning", "question", "answer", "summary", "caveat", "next step", "ps"})
_LEAD_IN = re.compile(
    r"^(?:(?:ok(?:ay)?|so|and|also|oh|ah|btw|by the way|but|hey|fyi|just|well|one more thing|alright)[,!:]?\s+)*",
    re.IGNORECASE,
)
_QUESTION_START = re.compile(r"^(?:can|could|would|will|do(?! not\b)|does|did|how|what|why|where|when|which|who|"
                             r"is|are|should|shall|may|have|has)\b", re.IGNORECASE)
_LIST_MARKER = re.compile(r"^(?:[-*•]|\d+[.)])\s+")


@dataclass(frozen=True)
class Sentence:
    text: str  # the sentence as written (speaker label removed)
    core: str  # the same without lead-in words ("Oh, also ...")
    body: str  # `core` lower-cased with plain apostrophes: what trigger patterns look at
    speaker: str | None
    is_question: bool


def prose_lines(text: str):
    """Lines outside fenced code blocks and quotes: pasted code and quoted text are not the speaker's claims."""
    in_code = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```") or stripped.startswith("~~~"):
            in_code = not in_code
            continue
        if in_code or not stripped or stripped.startswith(">") or line.startswith(("    ", "\t")):
            continue
        yield stripped


def split_sentences(text: str) -> list[Sentence]:
    out = []
    for line in prose_lines(text):
        speaker, rest = speaker_label(line)
        if speaker and speaker.lower() not in _NOT_SPEAKERS:
            line = rest
        else:
            speaker = None
        line = _LIST_MARKER.sub("", line)
        for part in sentences(line):
            part = part.strip()
            if 3 <= len(part) <= MAX_SENTENCE:
                core = part[_LEAD_IN.match(part).end():]
                body = core.lower().replace("\u2019", "'")
                if len(body) != len(core):  # a few characters change length when lower-cased
                    core = body
                is_question = part.rstrip(" )\"'").endswith("?") or bool(_QUESTION_START.match(body))
                out.append(Sentence(part, core, body, speaker, is_question))
    return out


def capitalize(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def with_speaker(sentence: Sentence, content: str) -> str:
    return f"{sentence.speaker}: {content}" if sentence.speaker else content


def word_count(text: str) -> int:
    return sum(1 for w in text.split() if any(c.isalpha() or c.isdigit() for c in w))
