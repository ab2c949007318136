"""Detect a memory's type from its words when none is given: decision > pattern > preference > fact > note."""
import re

_RULES = (
    ("decision", re.compile(
        r"\b(decided|decide|decision|we(?:'ll| will) (?:use|go with|adopt)|going with|go with|chose|chosen|"
        r"settled on|agreed|opted|switch(?:ed)? to|instead of)\b", re.I)),
    ("pattern", re.compile(
        r"\b(always|never|every time|whenever|usually|tends? to|pattern|convention|workflow|each time|"
        r"as a rule|habit|recurring)\b", re.I)),
    ("preference", re.compile(
        r"\b(prefers?|preferred|preference|likes?|dislikes?|loves?|hates?|favou?rite|rather|wants?|"
        r"would like|enjoys?)\b", re.I)),
    ("fact", re.compile(
        r"\b(is|are|was|were|has|have|had|listens? on|runs? on|located|lives?|uses?|port|version|"
        r"requires?|depends? on|born|works? at)\b", re.I)),
)


def detect_type(content: str) -> str:
    for chunk_type, rule in _RULES:
        if rule.search(content):
            return chunk_type
    return "note"
