"""JSON for the hooks' hot path without importing `json`.

`import json` pulls in `re`, `enum` and friends: about 5 ms of every hook (bench/private_imports.py), whose whole
budget is twice a bare interpreter start. The C scanner and string quoting `json` itself uses (brain/cpython/fast)
do the work; where they are missing, the json module does. Errors are ValueError. Output matches
`json.dumps(value, ensure_ascii=False)` for the plain values hooks write (dict, list, tuple, str, int, float, bool,
None).
"""
from brain.cpython.fast import json_quote as _quote
from brain.cpython.fast import json_scan as _scan

_WS = " \t\n\r"


def loads(text):
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")
    if _scan is None:
        return _public().loads(text)
    start = len(text) - len(text.lstrip(_WS))
    try:
        value, end = _scan(text, start)
    except StopIteration:
        raise ValueError("not JSON") from None
    if text[end:].strip(_WS):
        raise ValueError("extra data after the JSON value")
    return value


def dumps(value) -> str:
    if _quote is None:
        return _public().dumps(value, ensure_ascii=False)
    if isinstance(value, str):
        return _quote(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}[repr(value)]
        return float.__repr__(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_quote(str(k))}: {dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(dumps(v) for v in value) + "]"
    raise TypeError(f"cannot encode {type(value).__name__} as JSON")


def _public():
    import json  # an interpreter without the C scanner: the public module, loaded on first use

    return json
