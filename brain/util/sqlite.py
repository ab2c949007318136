"""SQLite for the hooks' hot path.

`import sqlite3` also loads sqlite3.dbapi2, which imports datetime and registers default adapters rlm-mem never
uses (it stores text): about 1 ms of every hook. The C module it wraps is the same SQLite with the same classes
(sqlite3.OperationalError is _sqlite3.OperationalError), so hot modules take it directly.

The C module itself imports functools when it loads, for one thing: `lru_cache`, which makes each connection's
statement cache. functools brings collections, keyword, operator, reprlib...: ~4 ms of the prompt hook's ~15 ms
above a bare interpreter (bench/run.py). When nothing has loaded functools yet, the C module is given a stand-in
whose lru_cache makes the same C cache object (`_functools._lru_cache_wrapper`, what functools.lru_cache makes);
the stand-in is removed at once, so a later `import functools` gets the real module. If the C module ever wants
more than that, it is loaded again the ordinary way.
"""
import sys


def _load_without_functools():
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


try:
    if "functools" in sys.modules:
        import _sqlite3 as sqlite3
    else:
        try:
            sqlite3 = _load_without_functools()
        except Exception:  # noqa: BLE001 - a C module wanting more than lru_cache: load it the ordinary way
            sys.modules.pop("_sqlite3", None)
            import _sqlite3 as sqlite3
except ImportError:  # pragma: no cover - an interpreter without the C module layout
    import sqlite3

__all__ = ["sqlite3"]
