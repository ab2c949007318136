"""JSON Schema validation of what rlm-mem stores. jsonschema is imported lazily (never on a hook's hot path)."""
import json
import logging
from functools import lru_cache
from pathlib import Path

from .errors import ChunkValidationError

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


def schema_errors(name: str, value) -> list:
    """Readable messages for every violation (empty when valid)."""
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
