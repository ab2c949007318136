"""sha1/sha256 without loading OpenSSL: `hashlib` costs ~2.5 ms at start-up, the built-in C modules almost nothing.

Same digests as hashlib. sha256 is on the hooks' hot path (project ids, fence nonces); sha1 (content hashes,
queue names: writers) loads its C module on first use, so the prompt hook never pays for it.
"""
try:
    from _sha256 import sha256  # CPython <= 3.11
except ImportError:  # pragma: no cover - depends on the interpreter
    try:
        from _sha2 import sha256  # CPython >= 3.12
    except ImportError:
        from hashlib import sha256

_sha1 = None


def sha1(data: bytes = b""):
    """A sha1 hash object of `data`, as hashlib.sha1(data)."""
    global _sha1
    if _sha1 is None:
        try:
            from _sha1 import sha1 as _sha1  # on first use: the prompt hook never hashes with sha1
        except ImportError:  # pragma: no cover
            from hashlib import sha1 as _sha1  # an interpreter without the C module
    return _sha1(data)


__all__ = ["sha1", "sha256"]
