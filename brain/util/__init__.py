"""Utilities every layer may use: errors, atomic files and locks, fast JSON and hashes, token estimates, text
scanning, timestamps and dates in text. Imports nothing of rlm-mem but brain/safety and brain/cpython.
"""
