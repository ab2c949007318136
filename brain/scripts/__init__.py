"""Seed 000's public face: `from brain.scripts import ChunkStore, Chunk`.

A facade over the packages by layer (brain/store, brain/util, ...; see ARCHITECTURE.md). Exports load lazily so
that importing this package costs nothing until a name is used.
"""
from importlib import import_module

_EXPORTS = {
    "ChunkStore": "brain.store.chunk_store",
    "Chunk": "brain.store.chunk",
    "ChunkingEngine": "brain.store.chunking",
    "RlmMemError": "brain.util.errors",
    "InvalidChunkId": "brain.util.errors",
    "ChunkNotFound": "brain.util.errors",
    "ChunkValidationError": "brain.util.errors",
    "StoreBusy": "brain.util.errors",
    "StoreUnwritable": "brain.util.errors",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'brain.scripts' has no attribute {name!r}")
