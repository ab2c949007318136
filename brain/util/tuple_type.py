"""Named tuples for modules on the hooks' hot path, without `collections`: a cached SessionStart never loads
SQLite (whose module imports functools, and with it collections), and collections alone costs it 2-4 ms.

`tuple_type("Place", "start root common")` makes a tuple subclass whose fields are read by name or position,
compared and unpacked as a tuple, and pickled by name from the module that made it, as collections.namedtuple's.
"""
import sys
from _collections import _tuplegetter  # the C field accessor namedtuple itself uses: no Python module to load


def tuple_type(name: str, fields: str) -> type:
    names = tuple(fields.split())

    def __new__(cls, *args, **kwargs):
        rest = names[len(args):]
        if len(args) > len(names) or set(kwargs) != set(rest):
            raise TypeError(f"{name}() takes {len(names)} fields: {', '.join(names)}")
        return tuple.__new__(cls, args + tuple(kwargs[n] for n in rest))

    def __repr__(self):
        return f"{name}(" + ", ".join(f"{n}={v!r}" for n, v in zip(names, self)) + ")"

    def __getnewargs__(self):
        return tuple(self)

    body = {"__slots__": (), "_fields": names, "__new__": __new__, "__repr__": __repr__,
            "__getnewargs__": __getnewargs__, "__module__": sys._getframe(1).f_globals.get("__name__", "__main__")}
    for index, field in enumerate(names):
        body[field] = _tuplegetter(index, f"Alias for field number {index}")
    return type(name, (tuple,), body)
