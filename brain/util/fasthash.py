"""sha1/sha256 without loading OpenSSL on the hooks' path: `hashlib` costs every hook ~2.5 ms at start-up
(bench/private_imports.py), CPython's own sha256 (brain/cpython/fast) almost nothing.

Same digests as hashlib. sha256 is on the hooks' hot path (project ids, fence nonces), whose modules take it from
brain/cpython/fast directly (this module would be one more import for every prompt); sha1 (content hashes, queue
names: writers) loads hashlib on first use, so the prompt hook never pays for it.
"""
from brain.cpython.fast import sha256

_sha1 = None


def sha1(data: bytes = b""):
    """A sha1 hash object of `data`, as hashlib.sha1(data)."""
    global _sha1
    if _sha1 is None:
        from hashlib import sha1 as _sha1  # on first use: writers only; the prompt hook never hashes with sha1
    return _sha1(data)


__all__ = ["sha1", "sha256"]
