"""Exceptions a person can cause. The CLI turns them into `Error: ...` lines; hooks swallow them."""


class RlmMemError(Exception):
    """Base class: the message says what happened and what to do."""


class InvalidChunkId(RlmMemError, ValueError):
    pass


class ChunkNotFound(RlmMemError, LookupError):
    pass


class ChunkValidationError(RlmMemError, ValueError):
    pass


class StoreBusy(RlmMemError):
    """The store lock could not be taken in time (another writer holds it)."""


class StoreUnwritable(RlmMemError, OSError):
    """The memory folder is missing, read-only or otherwise unusable for writing."""
