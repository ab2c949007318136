"""Sensitivity levels (seed 004): how private a memory is, and what each reader may see.

A memory is `low` unless marked. The hooks inject at most `medium` (`RLM_MEM_MAX_SENSITIVITY` changes that), and
the CLI shows memories above `medium` only when asked (`--sensitive`). Stdlib only: every hook reads the limit.
"""
import os

LEVELS = ("public", "low", "medium", "high", "hyper")
DEFAULT = "low"  # a memory nobody marked
DEFAULT_LIMIT = "medium"  # what hooks inject and the CLI shows without --sensitive
ENV = "RLM_MEM_MAX_SENSITIVITY"


def check_level(level: str) -> str:
    if level not in LEVELS:
        raise ValueError(f"unknown sensitivity; use one of {', '.join(LEVELS)}")
    return level


def allowed(limit: str) -> tuple:
    """The levels a reader limited to `limit` may see."""
    return LEVELS[: LEVELS.index(check_level(limit)) + 1]


def above(level, limit: str = DEFAULT_LIMIT) -> bool:
    """Whether a memory at `level` (None: the default) is more private than `limit`."""
    level = level or DEFAULT
    return level in LEVELS and LEVELS.index(level) > LEVELS.index(limit)


def most_private(levels) -> str:
    return max((level or DEFAULT for level in levels), key=LEVELS.index, default=DEFAULT)


def limit_from_env(env=None) -> str:
    """The hooks' limit: RLM_MEM_MAX_SENSITIVITY when it names a level, else medium."""
    value = (os.environ if env is None else env).get(ENV, DEFAULT_LIMIT).strip().lower()
    return value if value in LEVELS else DEFAULT_LIMIT
