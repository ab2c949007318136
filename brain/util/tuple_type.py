"""Named tuples for modules on the hooks' hot path, without `collections`: a cached SessionStart never loads
SQLite (whose module imports functools, and with it collections), and collections costs every hook ~1 ms
(bench/private_imports.py).

`tuple_type("Place", "start root common")` makes a tuple subclass whose fields are read by name or position,
compared and unpacked as a tuple, and pickled by name from the module that made it, as collections.namedtuple's.
"""
import sys


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
        body[field] = _field(index)
    return type(name, (tuple,), body)


def _field(index: int) -> property:
    """The read-only field at `index`."""
    return property(lambda self: self[index], doc=f"Alias for field number {index}")
