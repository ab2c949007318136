"""The words inside code identifiers: "maxReplicas" holds "max" and "replicas", "HikariCP" holds "Hikari" and "CP".

FTS5's tokenizer splits snake_case, kebab-case and dotted names at their punctuation but keeps a camelCase name
whole, so "How many replicas can the API autoscale to?" could not find "maxReplicas: 8". The index keeps these
words in a column of their own (search_index `parts`), found by the same full-text query as the content.
"""
import re

_IDENTIFIER = re.compile(r"(?<!\w)[A-Za-z][a-z0-9]*(?:[A-Z][A-Za-z0-9]*)+")  # a capital after the first letter
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")


def identifier_parts(text: str) -> str:
    """The parts (two letters or more) of each mixed-case identifier in `text`, each once, space-separated."""
    seen = {}
    for name in _IDENTIFIER.findall(text):
        if name.isupper():  # "HTTP", "AWS": one word, not an identifier of several
            continue
        for part in _PART.findall(name):
            if len(part) > 1:
                seen.setdefault(part.lower(), None)
    return " ".join(seen)
