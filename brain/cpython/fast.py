"""The one module that imports CPython's private C modules: each where it saves a hook at least 2 ms over the
public module, each with that public module as its fallback when the private one is missing or fails.

A hook's whole budget is about two bare interpreter starts (bench/run.py), and the public modules load far more
than the hooks use. The savings below are the CPU a hook spends more with the public module, in four runs of
bench/private_imports.py (each hook 31-41 times per variant, alternating, CPU medians; the range over the runs
and the hooks the module serves; bench/README.md has the tables):
- `_json` (JSON, every hook): `json` brings `re`, `enum` and their imports: +4.2 to +7.8 ms.
- `_sqlite3` loaded without `functools` (the prompt hook, a brief computed): `sqlite3` loads sqlite3.dbapi2 and
  `datetime`, and the C module itself imports `functools` (with `collections`, `operator`, `reprlib`...) for one
  thing, its statement cache: +2.3 to +3.1 ms on the prompt hook.
- `_sha256` (`_sha2` from 3.12; project ids in every hook, the fence's nonce): `hashlib` loads OpenSSL: +1.9 to
  +3.1 ms, +2.5 ms at the median.
- `_signal` (every hook's time limit): `signal` wraps it in enums (`enum`): +2.6 to +4.8 ms.
Measured and made public (under 2 ms): named tuples without `_collections._tuplegetter` (a property per field:
-0.2 to +0.3 ms; `collections` would cost +0.6 to +2.0 ms), `threading.get_ident` (loaded by writers only: a hook
never needs it; at module level it cost the prompt hook +1.4 to +2.5 ms), `hashlib.sha1` (writers only).
"""
import sys

# ------------------------------------------------------------------------------------------------ JSON
try:
    import _json

    class _DecoderSettings:  # the attributes _json's scanner reads from a json.JSONDecoder
        strict = True
        object_hook = None
        object_pairs_hook = None
        parse_float = float
        parse_int = int
        parse_constant = float  # NaN, Infinity, -Infinity, as json does
        memo = {}

    def json_scan(text: str, start: int):
        """(value, end) of the JSON value at `start` of `text`; StopIteration when there is none there."""
        try:
            return _scan(text, start)
        finally:
            _DecoderSettings.memo.clear()

    _scan = _json.make_scanner(_DecoderSettings())
    json_quote = _json.encode_basestring  # a str as a JSON string, non-ASCII kept
except Exception:  # noqa: BLE001 - no C scanner here: brain/util/fastjson.py uses the json module
    json_scan = json_quote = None


# ---------------------------------------------------------------------------------------------- SQLite
def _sqlite_without_functools():
    """SQLite's C module given a stand-in `functools` while it loads: its one use of functools is lru_cache, for
    each connection's statement cache, and the stand-in makes the same C cache object functools.lru_cache makes
    (`_functools._lru_cache_wrapper`). The stand-in is removed at once, so a later `import functools` gets the
    real module."""
    import _functools  # the C half of functools: its lru_cache object, without the Python module

    def lru_cache(maxsize=128, typed=False):
        def decorating(function):
            return _functools._lru_cache_wrapper(function, maxsize, typed, tuple)
        return decorating

    stand_in = type(sys)("functools")
    stand_in.lru_cache = lru_cache
    sys.modules["functools"] = stand_in
    try:
        import _sqlite3  # reads functools.lru_cache from the stand-in while it loads
    finally:
        if sys.modules.get("functools") is stand_in:
            del sys.modules["functools"]
    return _sqlite3


def _load_sqlite():
    """The same SQLite with the same classes (sqlite3.OperationalError is _sqlite3.OperationalError)."""
    try:
        if "functools" in sys.modules:
            import _sqlite3  # functools is loaded already: nothing to spare
            return _sqlite3
        return _sqlite_without_functools()
    except Exception:  # noqa: BLE001 - missing, or wanting more than lru_cache: the public module
        sys.modules.pop("_sqlite3", None)
        import sqlite3  # the public module, whose classes these are

        return sqlite3


def __getattr__(name: str):
    """`from brain.cpython.fast import sqlite3` loads SQLite then, not with this module: a SessionStart that
    reuses its brief never opens a database and never pays for it."""
    if name == "sqlite3":
        global sqlite3
        sqlite3 = _load_sqlite()
        return sqlite3
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ------------------------------------------------------------------------------------------------ sha256
try:
    from _sha256 import sha256  # CPython <= 3.11
except ImportError:
    try:
        from _sha2 import sha256  # CPython >= 3.12
    except ImportError:
        from hashlib import sha256

# ------------------------------------------------------------------------------------------------ signals
try:
    import _signal as signal  # loaded by the interpreter at start-up: free
except ImportError:
    import signal

__all__ = ["json_quote", "json_scan", "sha256", "signal", "sqlite3"]
