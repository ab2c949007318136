"""JSON for the hooks' hot path without importing `json`.

`import json` pulls in `re`, `enum` and friends: about 6 ms of a SessionStart hook whose whole budget is twice a
bare interpreter start. The C accelerator `_json` that `json` itself uses can scan and quote strings on its own;
this module wraps it. Errors are ValueError (malformed input makes `_json` load `json.decoder` for its error type,
which only happens on bad input). Output matches `json.dumps(value, ensure_ascii=False)` for the plain values
hooks write (dict, list, tuple, str, int, float, bool, None).
"""
import _json

_WS = " \t\n\r"


class _Context:  # the attributes _json's scanner reads from a JSONDecoder
    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float  # NaN, Infinity, -Infinity, as json does
    memo = {}


_scan = _json.make_scanner(_Context())
_quote = _json.encode_basestring


def loads(text):
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")
    start = len(text) - len(text.lstrip(_WS))
    try:
        value, end = _scan(text, start)
    except StopIteration:
        raise ValueError("not JSON") from None
    finally:
        _Context.memo.clear()
    if text[end:].strip(_WS):
        raise ValueError("extra data after the JSON value")
    return value


def dumps(value) -> str:
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
