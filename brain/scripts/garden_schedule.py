"""When gardening is due: one small file read, cheap enough for the SessionStart hook (garden.py itself is not)."""
import json
import os
from datetime import datetime, timedelta, timezone

STATE_NAME = "garden.json"
DEFAULT_INTERVAL_HOURS = 24


def state_path(root) -> str:
    return os.path.join(os.fspath(root), "state", STATE_NAME)


def read_state(root) -> dict:
    try:
        with open(state_path(root), encoding="utf-8") as fh:
            value = json.load(fh)
        return value if isinstance(value, dict) else {}
    except (OSError, ValueError):
        return {}


def garden_due(root, now: datetime | None = None) -> bool:
    """True when a gardening run is due: never run (and there is something to garden), or the last run or attempt
    is older than the interval (`interval_hours` in state/garden.json, default 24)."""
    state = read_state(root)
    last = max((str(state.get(k) or "") for k in ("last_run", "last_attempt")), default="")
    if not last:
        return os.path.isdir(os.path.join(os.fspath(root), "chunks"))
    try:
        when = datetime.fromisoformat(last[:19]).replace(tzinfo=timezone.utc)
        hours = float(state.get("interval_hours", DEFAULT_INTERVAL_HOURS))
    except (TypeError, ValueError):
        return True  # a damaged state file must not stop gardening forever
    now = now or datetime.now(timezone.utc)
    now = now if now.tzinfo else now.replace(tzinfo=timezone.utc)
    return now - when >= timedelta(hours=hours)
