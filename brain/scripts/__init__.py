"""The rlm-mem library. Public face: `from brain.scripts import ChunkStore, Chunk`.

Exports load lazily so that hooks importing one small module (say `brain.scripts.recall`) do not pay for the
whole store, its schema validation or YAML.
"""
from importlib import import_module

_EXPORTS = {
    "ChunkStore": "brain.scripts.store",
    "Chunk": "brain.scripts.chunk",
    "ChunkingEngine": "brain.scripts.chunking",
    "RlmMemError": "brain.scripts.errors",
    "InvalidChunkId": "brain.scripts.errors",
    "ChunkNotFound": "brain.scripts.errors",
    "ChunkValidationError": "brain.scripts.errors",
    "StoreBusy": "brain.scripts.errors",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'brain.scripts' has no attribute {name!r}")
