"""sha1/sha256 without loading OpenSSL: `hashlib` costs ~2.5 ms at start-up, the built-in C modules almost nothing.

Same digests as hashlib. Used on the hooks' hot path (project ids, fence nonces, content hashes, queue names).
"""
try:
    from _sha256 import sha256  # CPython <= 3.11
except ImportError:  # pragma: no cover - depends on the interpreter
    try:
        from _sha2 import sha256  # CPython >= 3.12
    except ImportError:
        from hashlib import sha256
try:
    from _sha1 import sha1
except ImportError:  # pragma: no cover
    from hashlib import sha1

__all__ = ["sha1", "sha256"]
