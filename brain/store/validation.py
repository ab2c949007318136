"""JSON Schema validation of what rlm-mem stores. jsonschema is imported lazily (never on a hook's hot path)."""
import json
import logging
from functools import lru_cache
from pathlib import Path

from brain.util.errors import ChunkValidationError

log = logging.getLogger("rlm_mem")

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas"


def schema_path(name: str) -> Path:
    return SCHEMA_DIR / f"{name}.schema.json"


@lru_cache(maxsize=None)
def load_schema(name: str) -> dict:
    return json.loads(schema_path(name).read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def validator(name: str):
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load_schema(name))


# ---- fast path (bench/run.py, issue 8): jsonschema spends ~0.3 ms on a valid chunk, most of `reindex` and of bulk
# writes. The schemas use a small subset of JSON Schema; compiled into plain closures, it accepts a valid value
# ~8x faster. It may only say "valid" when jsonschema would: anything it is unsure of (a keyword outside the
# subset, an unusual type) answers "not sure" and jsonschema decides, and jsonschema words every error.
_ANNOTATIONS = frozenset(("$schema", "$id", "$comment", "title", "description", "default", "examples", "format"))
_JSON_SCALARS = (str, dict, list, type(None))  # types a number keyword passes over without doubt


class _Unsupported(Exception):
    pass


def _is_integer(v) -> bool:
    return (type(v) is int) or (type(v) is float and v.is_integer())


_TYPES = {"string": lambda v: isinstance(v, str), "object": lambda v: isinstance(v, dict),
          "array": lambda v: isinstance(v, list), "boolean": lambda v: isinstance(v, bool),
          "null": lambda v: v is None, "number": lambda v: type(v) in (int, float), "integer": _is_integer}


def _same(value, member) -> bool:
    """JSON equality for enum/const, sure answers only (True is not 1; containers are left to jsonschema)."""
    if isinstance(member, str) or isinstance(value, str):
        return value == member
    if type(member) in (int, float) and type(value) in (int, float):
        return value == member
    return (member is None or isinstance(member, bool)) and value is member


def _bound(limit, compare):
    return lambda v: compare(v, limit) if type(v) in (int, float) else isinstance(v, (bool, *_JSON_SCALARS))


def _compile(schema):
    if schema is True or schema is False:
        return lambda v, ok=schema: ok
    if not isinstance(schema, dict):
        raise _Unsupported(repr(schema)[:40])
    checks = []
    for key, arg in schema.items():
        if key in _ANNOTATIONS or key in ("properties", "additionalProperties"):
            continue
        if key == "type":
            kinds = [_TYPES[t] for t in ([arg] if isinstance(arg, str) else arg)]
            checks.append(kinds[0] if len(kinds) == 1 else (lambda v, ks=kinds: any(k(v) for k in ks)))
        elif key in ("enum", "const"):
            members = tuple(arg) if key == "enum" else (arg,)
            strings = frozenset(m for m in members if isinstance(m, str))
            checks.append(lambda v, m=members, s=strings: v in s if type(v) is str else any(_same(v, x) for x in m))
        elif key == "pattern":
            import re

            rx = re.compile(arg)
            checks.append(lambda v, rx=rx: not isinstance(v, str) or rx.search(v) is not None)
        elif key in ("minLength", "maxLength"):
            checks.append(lambda v, n=arg, lo=key == "minLength":
                          not isinstance(v, str) or (len(v) >= n if lo else len(v) <= n))
        elif key in ("minimum", "maximum"):
            checks.append(_bound(arg, (lambda a, b: a >= b) if key == "minimum" else (lambda a, b: a <= b)))
        elif key in ("minItems", "maxItems"):
            checks.append(lambda v, n=arg, lo=key == "minItems":
                          not isinstance(v, list) or (len(v) >= n if lo else len(v) <= n))
        elif key == "uniqueItems":
            if arg:  # strings only are sure; other items go to jsonschema
                checks.append(lambda v: not isinstance(v, list) or (all(type(x) is str for x in v)
                                                                    and len(set(v)) == len(v)))
        elif key == "required":
            checks.append(lambda v, req=tuple(arg): not isinstance(v, dict) or all(k in v for k in req))
        elif key == "items":
            item = _compile(arg)
            checks.append(lambda v, item=item: not isinstance(v, list) or all(item(x) for x in v))
        elif key == "anyOf":
            options = [_compile(s) for s in arg]
            checks.append(lambda v, options=options: any(o(v) for o in options))
        elif key == "propertyNames":
            names = _compile(arg)
            checks.append(lambda v, names=names: not isinstance(v, dict) or all(names(k) for k in v))
        else:
            raise _Unsupported(key)
    if "properties" in schema or "additionalProperties" in schema:
        props = {k: _compile(s) for k, s in (schema.get("properties") or {}).items()}
        extra = schema.get("additionalProperties", True)
        other = None if extra is True else _compile(extra)

        def members(v):
            if not isinstance(v, dict):
                return True
            for k, x in v.items():
                check_one = props.get(k, other)
                if check_one is not None and not check_one(x):
                    return False
            return True

        checks.append(members)

    def check_all(v):
        for one in checks:
            if not one(v):
                return False
        return True

    return check_all


@lru_cache(maxsize=None)
def fast_checker(name: str):
    """value -> True when surely valid against schema `name` (False: let jsonschema decide); None if the schema
    uses keywords outside the compiled subset."""
    try:
        return _compile(load_schema(name))
    except (_Unsupported, KeyError, TypeError, ValueError):
        return None


def schema_errors(name: str, value) -> list:
    """Readable messages for every violation (empty when valid)."""
    fast = fast_checker(name)
    if fast is not None and fast(value):
        return []
    out = []
    for err in sorted(validator(name).iter_errors(value), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in err.absolute_path) or "(top)"
        out.append(f"{where}: {err.message[:200]}")
    return out


def check(name: str, value) -> None:
    """Raise ChunkValidationError listing what is wrong."""
    errors = schema_errors(name, value)
    if errors:
        raise ChunkValidationError(f"invalid {name}: " + "; ".join(errors[:5]))


def all_schema_files() -> list:
    return sorted(SCHEMA_DIR.glob("*.schema.json"))
