"""Validation of what is stored: the fast validator (fastjsonschema) only ever says "valid" when jsonschema would."""
import copy
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))


def test_fast_schema_check_never_accepts_what_jsonschema_rejects(tmp_path):
    """validation.schema_errors answers "valid" from a compiled fast path (added for the benchmark's write paths);
    it must agree with jsonschema on valid chunks and never accept a chunk jsonschema rejects."""
    import corpus

    from brain.store.build import build_chunk
    from brain.store.validation import fast_validator, validator

    chunks = [build_chunk(**spec) for spec in corpus.chunk_specs(60)]
    fast, full = fast_validator("chunk"), validator("chunk")
    assert all(fast(c) for c in chunks) and not any(list(full.iter_errors(c)) for c in chunks)
    odd = [None, True, False, 0, 1, -1, 1.5, 2.0, "", "x", "chunk-2026-01-01-zzzzzzzz", [], ["a", "a"], {},
           {"a": 1}, 801, 1.0000001, "a" * 20_001, [1], [True, 1], "2026-13-99T00:00:00Z"]
    rng = random.Random(8)
    for _ in range(3000):
        chunk = copy.deepcopy(rng.choice(chunks))
        holder, key = _random_place(chunk, rng)
        if rng.random() < 0.15 and isinstance(holder, dict):
            del holder[key]
        elif rng.random() < 0.15 and isinstance(holder, dict):
            holder[f"extra{rng.randint(0, 2)}"] = rng.choice(odd)
        else:
            holder[key] = rng.choice(odd)
        if fast(chunk):
            assert not list(full.iter_errors(chunk)), (key, chunk)


def _random_place(value, rng):
    """(container, key) of a random spot inside a chunk."""
    holder, key = None, None
    while isinstance(value, (dict, list)) and value and (holder is None or rng.random() < 0.6):
        keys = list(value) if isinstance(value, dict) else list(range(len(value)))
        holder, key = value, rng.choice(keys)
        value = value[key]
    return holder, key


# Each FILES_VERSION and the schemas of the memory files it stands for (digest of schemas/chunk and
# schemas/audit_entry, parsed). A sync repository carries the version; an older rlm-mem refuses a newer one.
FILES_VERSIONS = {1: "fcac4398afc94ee29cb9ab23608cec9357ba1226dbaa17c1ff69e3b86052cd96",
                  2: "62c30160254c3608676a0b1e7fcc5881fb5d544b96f4e05a3181f6cf0fcbc412"}  # kind change, relations, policies


def test_the_files_version_is_raised_with_the_schemas_of_memory_files():
    import hashlib
    import json

    from brain.store.validation import FILES_VERSION, load_schema

    digest = hashlib.sha256(json.dumps([load_schema("chunk"), load_schema("audit_entry")],
                                       sort_keys=True).encode()).hexdigest()
    assert FILES_VERSIONS.get(FILES_VERSION) == digest, (
        "schemas/chunk or schemas/audit_entry changed: raise FILES_VERSION in brain/store/validation.py (an "
        f"older rlm-mem must not merge files it cannot read) and add {{{FILES_VERSION + 1}: {digest!r}}} here")
