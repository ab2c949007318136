"""The interpreter's C modules the hooks load directly, below every other layer (brain/cpython/fast.py).
"""
