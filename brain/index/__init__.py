"""Derived data under index/: the SQLite search index, seed 000's JSON indexes and pending access counts.
All of it is rebuilt from the chunk files by `rlm-mem reindex`.
"""
