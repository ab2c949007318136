"""JSON read as key paths (app.json, appsettings.json, tsconfig.json, package.json's dependencies...).

A whole file is parsed (comments, as JSONC allows, taken out first); a fragment an Edit replaced is not JSON, so
it is read line by line, each `"key": value` under the keys its open braces name (a fragment's missing parents
are missing from its paths). A list of objects names its items by their `name` or `id`; a list whose first
item is a string and second an object (Expo's `plugins: [["expo-build-properties", {...}]]`) is named by that
string.
"""
import json
import re

from brain.capture.settings.lines import flatten, plain_value

_LINE_COMMENT = re.compile(r"^[ \t]*//[^\n]*", re.MULTILINE)
_PAIR = re.compile(r'^\s*"((?:[^"\\]|\\.){1,120})"\s*:\s*(.*?)\s*,?\s*$')


def _named_pairs(node):
    """`["name", {...}]` lists as {"name": {...}}, at any depth (a plugin and its options)."""
    if isinstance(node, dict):
        return {key: _named_pairs(value) for key, value in node.items()}
    if isinstance(node, list):
        if len(node) == 2 and isinstance(node[0], str) and isinstance(node[1], dict):
            return {node[0]: _named_pairs(node[1])}
        items = [_named_pairs(item) for item in node]
        named = [item for item in items if isinstance(item, dict) and len(item) == 1
                 and isinstance(next(iter(item.values())), dict)]
        if named and all(isinstance(item, str) or any(item is n for n in named) for item in items):
            merged = {}  # ["expo-router", ["expo-build-properties", {...}]]: plain names and named options
            for item in named:
                merged.update(item)
            return merged
        return items
    return node


def _parsed(text: str):
    for candidate in (text, _LINE_COMMENT.sub("", text)):
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    return None


def _scalar(raw: str):
    raw = raw.strip()
    if raw.startswith('"'):
        try:
            return json.loads(raw)
        except ValueError:
            return None
    if raw in ("true", "false", "null") or re.fullmatch(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", raw):
        return json.loads(raw)
    if raw.startswith("[") and raw.endswith("]"):
        try:
            value = json.loads(raw)
        except ValueError:
            return None
        return tuple(value) if all(not isinstance(v, (dict, list)) for v in value) else None
    return None


def _read_lines(text: str) -> dict:
    """A fragment, line by line: `"key": {` opens a parent, `}` closes one, `"key": value` is a setting."""
    out, parents = {}, []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("//"):
            continue
        m = _PAIR.match(line)
        if m:
            key, rest = m.group(1), m.group(2)
            if rest.startswith("{") and not rest.rstrip(",").endswith("}"):
                parents.append(key)
                continue
            if rest.startswith("[") and not rest.rstrip(",").endswith("]"):
                parents.append(key)
                continue
            if rest.startswith("{"):  # an object on one line: `"ios": {"deploymentTarget": "15.1"}`
                inline = _parsed(rest.rstrip(","))
                if isinstance(inline, dict):
                    flatten(_named_pairs(inline), ".".join(parents + [key]), out)
                continue
            value = _scalar(rest)
            if value is not None:
                out[".".join(parents + [key])] = value
            continue
        closes = stripped.count("}") + stripped.count("]") - stripped.count("{") - stripped.count("[")
        for _ in range(max(0, closes)):
            if parents:
                parents.pop()
    return out


def read_json(text: str) -> dict:
    """key path -> value of a JSON file or fragment (see the module doc)."""
    parsed = _parsed(text)
    if isinstance(parsed, (dict, list)):
        keys = flatten(_named_pairs(parsed))
    else:
        keys = _read_lines(text)
    return {key: value for key, value in ((k, plain_value(v)) for k, v in keys.items()) if value is not None}
