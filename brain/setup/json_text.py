"""Edit a JSON file's text in place, keeping the person's own formatting: indentation, key order, spacing, line
ends and everything rlm-mem does not touch stay as they were.

`parse()` reads the text into nodes that know where they start and end; `add()` appends an item to a list or a
member to an object (creating the missing containers on the way) in the style of the lines around it; `remove()`
takes an item or a member out together with the comma and the whitespace that belonged to it. install.py uses it
on Claude Code's settings files, so that installing changes only the lines it adds, and uninstalling takes out
only those lines.
"""
import json

_WS = " \t\r\n"


class Node:
    """A JSON value in the text: kind is "object", "array" or "scalar"; `text[start:end]` is the value.
    `children` holds (key, key_start, node) for an object (key None for an array)."""

    def __init__(self, kind, start):
        self.kind, self.start, self.end, self.children = kind, start, start, []

    def get(self, key):
        for name, _, node in self.children:
            if name == key:
                return node
        return None

    def value(self, text):
        return json.loads(text[self.start:self.end])


def _skip(text, i):
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _parse_value(text, i):
    i = _skip(text, i)
    if i >= len(text):
        raise ValueError("unexpected end of the file")
    opener = text[i]
    if opener in "{[":
        node = Node("object" if opener == "{" else "array", i)
        closer = "}" if opener == "{" else "]"
        i = _skip(text, i + 1)
        if text[i:i + 1] == closer:
            node.end = i + 1
            return node
        while True:
            key, key_start = None, _skip(text, i)
            if node.kind == "object":
                key, i = json.JSONDecoder().raw_decode(text, key_start)
                i = _skip(text, i)
                if text[i:i + 1] != ":":
                    raise ValueError(f"expected ':' at character {i}")
                i += 1
            child = _parse_value(text, i)
            node.children.append((key, key_start if key is not None else child.start, child))
            i = _skip(text, child.end)
            if text[i:i + 1] == ",":
                i += 1
                continue
            if text[i:i + 1] != closer:
                raise ValueError(f"expected ',' or '{closer}' at character {i}")
            node.end = i + 1
            return node
    try:
        _, end = json.JSONDecoder().raw_decode(text, i)
    except ValueError as exc:
        raise ValueError(f"not JSON at character {i}: {exc}") from None
    node = Node("scalar", i)
    node.end = end
    return node


def parse(text: str) -> Node:
    root = _parse_value(text, 0)
    if _skip(text, root.end) != len(text):
        raise ValueError(f"extra data after the JSON value at character {root.end}")
    return root


# --- style ---------------------------------------------------------------------------------------------------

def _line_indent(text, pos):
    """The whitespace at the start of the line that holds `pos`."""
    line = text.rfind("\n", 0, pos) + 1
    end = line
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[line:end]


def _newline(text):
    return "\r\n" if "\r\n" in text else "\n"


def _unit(text):
    """The file's indentation step: the smallest indentation of a line (two spaces when nothing is indented)."""
    best = None
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        width = line[:len(line) - len(stripped)]
        if stripped and width and (best is None or len(width) < len(best)):
            best = width
    return best or "  "


def _render(value, text, indent):
    """`value` as JSON in the file's style, its continuation lines starting at `indent`."""
    unit, nl = _unit(text), _newline(text)
    rendered = json.dumps(value, indent=unit, ensure_ascii=False)
    return rendered.replace("\n", nl + indent)


# --- edits ---------------------------------------------------------------------------------------------------

def _nest(path, item, key):
    """The value to insert when the containers along `path` do not exist yet."""
    value = item if key is None else {key: item}
    for name in reversed(path):
        value = {name: value}
    return value


def add(text: str, path: list, item, *, key=None) -> str:
    """Append `item` to the list at `path`, or set member `key` to `item` in the object at `path` (key given).
    Missing containers along the path are created; an existing `key` is an error (the caller decides)."""
    root = parse(text)
    node, depth = root, 0
    while depth < len(path):
        child = node.get(path[depth]) if node.kind == "object" else None
        if child is None:
            break
        node, depth = child, depth + 1
    if depth < len(path):  # the rest of the path does not exist: one new member holds it all
        name, value = path[depth], _nest(path[depth + 1:], item if key is not None else [item], key)
        return _insert(text, node, name, value)
    if key is not None:
        if node.kind != "object":
            raise ValueError(f"{'.'.join(path)} is not a JSON object")
        if node.get(key) is not None:
            raise ValueError(f"{'.'.join(path + [key])} is already set")
        return _insert(text, node, key, item)
    if node.kind != "array":
        raise ValueError(f"{'.'.join(path)} is not a JSON list")
    return _insert(text, node, None, item)


def _insert(text, container, key, value):
    nl = _newline(text)
    root = parse(text)
    if root.children and "\n" not in text[root.start:root.end]:  # a file written on one line stays on one line
        entry = _entry(key, json.dumps(value, ensure_ascii=False))
        if container.children:
            end = container.children[-1][2].end
            return text[:end] + ", " + entry + text[end:]
        return text[:container.start + 1] + entry + text[container.end - 1:]
    if container.children:
        last_key_start = container.children[-1][1]
        last_end = container.children[-1][2].end
        between = text[container.start + 1:last_key_start]
        if "\n" in between:  # one entry per line: a new line at the last entry's indentation
            indent = _line_indent(text, last_key_start)
            entry = _entry(key, _render(value, text, indent))
            return text[:last_end] + "," + nl + indent + entry + text[last_end:]
        indent = _line_indent(text, last_key_start)  # entries side by side: one more at the end
        return text[:last_end] + ", " + _entry(key, _render(value, text, indent)) + text[last_end:]
    outer = _line_indent(text, container.start)
    indent = outer + _unit(text)
    entry = _entry(key, _render(value, text, indent))
    return text[:container.start + 1] + nl + indent + entry + nl + outer + text[container.end - 1:]


def _entry(key, rendered):
    return rendered if key is None else json.dumps(key, ensure_ascii=False) + ": " + rendered


def remove(text: str, container: Node, index: int) -> str:
    """Take child `index` out of `container` (a node of `parse(text)`), with its comma and whitespace."""
    children = container.children
    start = children[index][1]
    if len(children) == 1:
        return text[:container.start + 1] + text[container.end - 1:]
    if index == len(children) - 1:
        return text[:children[index - 1][2].end] + text[children[index][2].end:]
    return text[:start] + text[children[index + 1][1]:]


def find(root: Node, path: list):
    node = root
    for name in path:
        node = node.get(name) if node is not None and node.kind == "object" else None
    return node
