"""Exceptions a person can cause. The CLI turns them into `Error: ...` lines; hooks swallow them."""


class RlmMemError(Exception):
    """Base class: the message says what happened and what to do."""


class InvalidChunkId(RlmMemError, ValueError):
    pass


class ChunkNotFound(RlmMemError, LookupError):
    pass


class ChunkValidationError(RlmMemError, ValueError):
    pass


class KeptForever(RlmMemError):
    """A memory whose deletion policy is `never` (seed 004) asked to be deleted for good."""


class StoreBusy(RlmMemError):
    """The store lock could not be taken in time (another writer holds it)."""


class StoreUnwritable(RlmMemError, OSError):
    """The memory folder is missing, read-only or otherwise unusable for writing."""


class NotRegularFile(RlmMemError, OSError):
    """An input that is not a regular file (a device such as /dev/zero, a FIFO, a socket, a folder): refused
    before anything is read from it."""


class InputTooLarge(RlmMemError, OSError):
    """An input larger than rlm-mem reads: refused rather than read without bound."""


def describe(exc: BaseException):
    """What a person is told of an error they (or their disk) can cause: the message of an RlmMemError, the
    system's words and the file of an OSError; None for anything else (a bug, reported as such)."""
    if isinstance(exc, RlmMemError):
        return str(exc)
    if isinstance(exc, OSError):
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        return f"{exc.strerror or exc}{where}"
    return None
