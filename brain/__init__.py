"""rlm-mem: persistent memory for Claude Code.

`brain.scripts` is the library (seed 000's `from brain.scripts import ChunkStore, Chunk`);
`brain.cli` is the click command line over it; `brain/memory/` is the default store (runtime data).
"""
__version__ = "0.1.0"
