"""When gardening is due: one small file read, cheap enough for the SessionStart hook (garden.py itself is not)."""
import os
import time

from brain.util.files import read_json
from brain.util.timestamps import epoch_seconds

STATE_NAME = "garden.json"
DEFAULT_INTERVAL_HOURS = 24
RESUME_AFTER_HOURS = 0.1  # a run that stopped at its time budget (or left work for later) goes on after 6 minutes


def state_path(root) -> str:
    return os.path.join(os.fspath(root), "state", STATE_NAME)


def read_state(root) -> dict:
    try:
        value = read_json(state_path(root), 1024 * 1024)  # bounded, and never a FIFO: session start reads it
        return value if isinstance(value, dict) else {}
    except (OSError, ValueError):
        return {}


def garden_due(root, now: float | None = None) -> bool:
    """True when a gardening run is due: never run (and there is something to garden), or the last run or attempt
    is older than the interval (`interval_hours` in state/garden.json, default 24), or RESUME_AFTER_HOURS when the
    last run left work for the next one (`resume`)."""
    state = read_state(root)
    last = max((str(state.get(k) or "") for k in ("last_run", "last_attempt")), default="")
    if not last:
        return os.path.isdir(os.path.join(os.fspath(root), "chunks"))
    try:
        when = epoch_seconds(last[:19])
        if when is None:
            raise ValueError(last)
        hours = float(state.get("interval_hours", DEFAULT_INTERVAL_HOURS))
        if state.get("resume") is True:
            hours = min(hours, RESUME_AFTER_HOURS)
    except (TypeError, ValueError):
        return True  # a damaged state file must not stop gardening forever
    if now is not None and not isinstance(now, (int, float)):  # a datetime (tests, garden.py)
        now = now.timestamp() if now.tzinfo else epoch_seconds(now.isoformat()[:19])
    return (time.time() if now is None else now) - when >= hours * 3600
