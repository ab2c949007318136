"""rlm-mem: persistent memory for Claude Code.

The library is split into packages by layer (ARCHITECTURE.md draws them): util, safety, context, hud, index, store,
recall, garden, capture, session, interop, setup; `brain.hooks` and `brain.cli` are thin shells over it.
`brain.scripts` keeps seed 000's `from brain.scripts import ChunkStore, Chunk`; `brain/memory/` is the default
store (runtime data).
"""
__version__ = "0.1.0"
