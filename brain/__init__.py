"""rlm-mem: persistent memory for Claude Code.

The library is split into packages by layer (ARCHITECTURE.md draws them): util, safety, context, hud, index, store,
recall, garden, capture, session, interop, setup; `brain.hooks` and `brain.cli` are thin shells over it.
`brain.scripts` keeps seed 000's `from brain.scripts import ChunkStore, Chunk` (whose `ChunkStore()` opens
`brain/memory/` under the working directory); hooks and the command line use the memory root brain/context/location.py
chooses, never a folder inside the bundle.
"""
__version__ = "0.1.0"
