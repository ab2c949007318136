"""A writer's helper processes: how many are worth starting, and that they must not outlive their parent.

A writer's helpers (the file helper of a long batch, the parsing processes of a reindex) do part of a job whose
store lock their parent holds. When the parent dies (kill -9, the OOM killer) the lock is free at once: a helper
still writing could add a file after another writer has synced and committed, and one blocked on a queue that
nobody feeds any more would wait for ever (the 40-round kill -9 test left dozens of reindex parsers behind).
"""
import os
import sys

try:
    import ctypes  # for prctl (Linux)
except ImportError:  # a Python built without it: the caller's own checks of os.getppid() alone
    ctypes = None

_PR_SET_PDEATHSIG, _SIGKILL = 1, 9


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity: `taskset -c 0` leaves one, whatever the machine has)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def die_with(parent: int) -> None:
    """Called first thing in a child process: the kernel kills it when `parent` dies (Linux's PR_SET_PDEATHSIG,
    which follows the thread that started the child); it exits at once if `parent` is gone already. Elsewhere a
    long-running child compares os.getppid() with `parent` between steps itself."""
    if ctypes is not None and sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, _SIGKILL)
        except Exception:  # noqa: BLE001 - no prctl in this libc: the getppid checks alone
            pass
    if os.getppid() != parent:  # it died before the line above took effect
        os._exit(1)
