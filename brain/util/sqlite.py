"""SQLite for the hooks' hot path.

`import sqlite3` also loads sqlite3.dbapi2, which imports datetime and registers default adapters rlm-mem never
uses (it stores text): about 1 ms of every hook. The C module it wraps is the same SQLite with the same classes
(sqlite3.OperationalError is _sqlite3.OperationalError), so hot modules take it directly.
"""
try:
    import _sqlite3 as sqlite3
except ImportError:  # pragma: no cover - an interpreter without the C module layout
    import sqlite3

__all__ = ["sqlite3"]
