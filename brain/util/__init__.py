"""Utilities every layer may use: errors, atomic files and locks, fast JSON and hashes, SQLite for the hot
path, token estimates, text scanning, timestamps and dates in text. Imports nothing else of rlm-mem.
"""
