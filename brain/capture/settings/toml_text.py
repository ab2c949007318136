"""TOML read as key paths (pyproject.toml, Cargo.toml, libs.versions.toml, poetry.lock, netlify.toml...).

Line by line, so that an Edit's fragment reads as well as a file: `[table]` and dotted keys give the path, an
inline table is read one level deep (`serde = { version = "1.0" }`: `dependencies.serde.version`), an array of
tables is named by its items' `name` (`package[celery].version`: lockfiles), an array of scalars is one value
(written over several lines too). Multi-line strings are no setting.
"""
import re

from brain.capture.settings.lines import clean_value

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_PAIR = re.compile(r'^\s*((?:"[^"]*"|\'[^\']*\'|[A-Za-z0-9_-]+)(?:\s*\.\s*(?:"[^"]*"|\'[^\']*\'|[A-Za-z0-9_-]+))*)'
                   r"\s*=\s*(.*)$")
_INLINE_PAIR = re.compile(r'(?<![\w."-])((?:"[^"]*"|[A-Za-z0-9_.-]+))\s*=\s*'
                          r'("(?:[^"\\]|\\.)*"|\'[^\']*\'|\[[^\]]*\]|[^,}]+)')


def _key(text: str) -> str:
    return ".".join(part.strip().strip("\"'") for part in re.findall(r'"[^"]*"|\'[^\']*\'|[^.]+', text))


def _array(text: str) -> tuple:
    """The scalars of `[a, "b", 3]` (nested arrays and tables left out)."""
    inner = text.strip()[1:-1]
    items = re.findall(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'|[^,\s\[\]{}]+', inner)
    return tuple(clean_value(item) for item in items)


def _value(raw: str):
    raw = raw.strip()
    if raw.startswith(("'''", '"""')):
        return None
    if raw.startswith("["):
        return _array(raw) if raw.rstrip().endswith("]") else None
    if raw.startswith("{"):
        table = {}
        for m in _INLINE_PAIR.finditer(raw.strip()[1:].rstrip("}").rstrip()):
            value = _value(m.group(2))
            if value is not None:
                table[_key(m.group(1))] = value
        return table
    return clean_value(raw)


def read_toml(text: str) -> dict:
    """key path -> value of a TOML file or fragment (see the module doc)."""
    out, table, array_of, pending = {}, "", None, {}
    lines = text.splitlines()

    def close_array_item():
        nonlocal pending
        if array_of is not None and pending:
            label = pending.pop("name", None)
            name = f"{array_of}[{label}]" if isinstance(label, str) else f"{array_of}[{len(out)}]"
            for key, value in pending.items():
                out[f"{name}.{key}"] = value
        pending = {}

    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        header = _HEADER.match(line)
        if header:
            close_array_item()
            table = _key(header.group(2))
            array_of = table if header.group(1) == "[[" else None
            continue
        pair = _PAIR.match(line)
        if not pair:
            continue
        key, raw = _key(pair.group(1)), pair.group(2).strip()
        if raw.startswith("[") and not raw.rstrip().endswith("]"):  # an array over several lines
            while i < len(lines) and "]" not in lines[i].split("#", 1)[0]:
                raw += " " + lines[i].split("#", 1)[0].strip()
                i += 1
            if i < len(lines):
                raw += " " + lines[i].split("#", 1)[0].strip()
                i += 1
        if raw.startswith(('"""', "'''")):  # a multi-line string: skip to its end
            quote = raw[:3]
            if raw.count(quote) < 2:
                while i < len(lines) and quote not in lines[i]:
                    i += 1
                i += 1
            continue
        value = _value(raw)
        target = pending if array_of is not None else out
        prefix = "" if array_of is not None else (table + "." if table else "")
        if isinstance(value, dict):
            for inner, inner_value in value.items():
                target[f"{prefix}{key}.{inner}"] = inner_value
        elif value is not None:
            target[prefix + key] = value
    close_array_item()
    return out
