"""When gardening is due: one small file read, cheap enough for the SessionStart hook (garden.py itself is not)."""
import os
import time

from brain.util import fastjson

STATE_NAME = "garden.json"
DEFAULT_INTERVAL_HOURS = 24


def state_path(root) -> str:
    return os.path.join(os.fspath(root), "state", STATE_NAME)


def read_state(root) -> dict:
    try:
        with open(state_path(root), encoding="utf-8") as fh:
            value = fastjson.loads(fh.read())
        return value if isinstance(value, dict) else {}
    except (OSError, ValueError):
        return {}


def _epoch(iso: str) -> float:
    """Seconds since 1970 of `YYYY-MM-DDTHH:MM:SS` (UTC), without datetime (1 ms to import on a hook's path)."""
    y, mo, d = int(iso[0:4]), int(iso[5:7]), int(iso[8:10])
    h, mi, s = (int(iso[11:13]), int(iso[14:16]), int(iso[17:19])) if len(iso) >= 19 else (0, 0, 0)
    if not (1 <= mo <= 12 and 1 <= d <= 31 and iso[4] == "-" and iso[7] == "-"):
        raise ValueError(f"not a timestamp: {iso!r}")
    y -= mo <= 2  # days from the civil date (H. Hinnant's algorithm)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (mo + (-3 if mo > 2 else 9)) + 2) // 5 + d - 1
    days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    return days * 86400.0 + h * 3600 + mi * 60 + s


def garden_due(root, now: float | None = None) -> bool:
    """True when a gardening run is due: never run (and there is something to garden), or the last run or attempt
    is older than the interval (`interval_hours` in state/garden.json, default 24)."""
    state = read_state(root)
    last = max((str(state.get(k) or "") for k in ("last_run", "last_attempt")), default="")
    if not last:
        return os.path.isdir(os.path.join(os.fspath(root), "chunks"))
    try:
        when = _epoch(last[:19])
        hours = float(state.get("interval_hours", DEFAULT_INTERVAL_HOURS))
    except (TypeError, ValueError):
        return True  # a damaged state file must not stop gardening forever
    if now is not None and not isinstance(now, (int, float)):  # a datetime (tests, garden.py)
        now = now.timestamp() if now.tzinfo else _epoch(now.isoformat())
    return (time.time() if now is None else now) - when >= hours * 3600
