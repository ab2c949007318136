"""JSON Schema validation of what rlm-mem stores (schemas/*.schema.json, JSON Schema 2020-12).

Two validators, one verdict. fastjsonschema compiles each schema into Python once and accepts a valid chunk in
~0.03 ms; jsonschema takes ~0.27 ms (bench/README.md), which would be 27 s of a 100k-chunk reindex. Our schemas use
only keywords that mean the same in draft 7 (what fastjsonschema compiles) and 2020-12, so a value the fast
validator accepts is valid; anything it rejects goes to jsonschema, which decides and words every error
(tests/test_validation.py checks that the two never disagree on "valid"). Both load lazily: validation runs
when chunks are read or written, never in a hook that only recalls.
"""
import json
import logging
from functools import lru_cache
from pathlib import Path

from brain.util.errors import ChunkValidationError

log = logging.getLogger("rlm_mem")

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas"
# The version of the files a person's memory is made of (schemas/chunk and schemas/audit_entry): raised with every
# change that lets rlm-mem write a file an earlier release would reject (a new field, a new value). A sync
# repository says the highest version written into it, so that an older rlm-mem refuses to merge what it cannot
# read (brain/sync). tests/test_validation.py holds each version to its schemas.
FILES_VERSION = 2  # 2: typed `change` memories, seed 003 relations, deletion policies
_DRAFT_7 = "http://json-schema.org/draft-07/schema#"


def schema_path(name: str) -> Path:
    return SCHEMA_DIR / f"{name}.schema.json"


@lru_cache(maxsize=None)
def load_schema(name: str) -> dict:
    return json.loads(schema_path(name).read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def validator(name: str):
    from jsonschema import Draft202012Validator  # ~40 ms to import; only error messages and schema checks need it

    return Draft202012Validator(load_schema(name))


@lru_cache(maxsize=None)
def fast_validator(name: str):
    """value -> True when valid against schema `name`, False when jsonschema must decide."""
    import fastjsonschema  # compiles the schema on first use; hooks that only recall never get here

    compiled = fastjsonschema.compile(dict(load_schema(name), **{"$schema": _DRAFT_7}))

    def is_valid(value) -> bool:
        try:
            compiled(value)
            return True
        except fastjsonschema.JsonSchemaException:
            return False

    return is_valid


def schema_errors(name: str, value) -> list:
    """Readable messages for every violation (empty when valid)."""
    if fast_validator(name)(value):
        return []
    out = []
    for err in sorted(validator(name).iter_errors(value), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in err.absolute_path) or "(top)"
        out.append(f"{where}: {_reason(err)}")
    return out


def _reason(err) -> str:
    """What is wrong with a field, from the schema's rule, never quoting the value (it may be a secret: a session
    token given as a conversation id)."""
    rule, limit = err.validator, err.validator_value
    reasons = {"maxLength": f"longer than {limit} characters", "minLength": f"shorter than {limit} characters",
               "maxItems": f"more than {limit} items", "minItems": f"fewer than {limit} items",
               "maximum": f"above {limit}", "minimum": f"below {limit}", "pattern": "not in the expected form",
               "format": f"not a valid {limit}", "uniqueItems": "holds the same item twice",
               "additionalProperties": "has fields the schema does not allow"}
    if rule == "type":
        return f"must be {limit if isinstance(limit, str) else ' or '.join(limit)}"
    if rule in ("enum", "const"):
        options = limit if isinstance(limit, list) else [limit]
        return "must be one of " + ", ".join(str(o) for o in options)[:200]
    if rule == "required":
        return err.message[:200]  # names the missing field (from the schema), not a value
    return reasons.get(rule, f"does not satisfy {rule}")


def check(name: str, value) -> None:
    """Raise ChunkValidationError listing what is wrong."""
    errors = schema_errors(name, value)
    if errors:
        raise ChunkValidationError(f"invalid {name}: " + "; ".join(errors[:5]))


def all_schema_files() -> list:
    return sorted(SCHEMA_DIR.glob("*.schema.json"))
