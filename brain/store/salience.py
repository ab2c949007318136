"""Salience: how much a memory should count now. Seed 003's decay model, amended where it misjudged.

    score = strength × usage × recency                      (pinned: PINNED_SCORE, never decays)

    strength = importance × (0.5 + 0.5 × confidence) × type weight × status weight
    usage    = min(2, 1 + 0.25 × log2(1 + uses))
    recency  = 0.5 ** (idle days / half-life),  half-life = 30 days × (0.5 + importance)

What changed from the seed, and why:
- Usage. The seed multiplies by log2(uses + 1) and by 0.5 for a memory never used, so every new memory starts at
  half strength and stays there until something happens to recall it; with a typical importance it is "fading" on
  the day it is written. Here no use is neutral (1.0) and the memory is judged on what it is; each doubling of use
  adds a quarter, capped at 2 so that a memory an over-broad query keeps matching does not become immortal.
- Importance by kind. When a chunk carries no importance, its kind supplies one: a correction or an explicit
  "remember this" (the person said so) weighs most, decisions and preferences next, a verbatim conversation turn
  least: turns are the record, not a chosen memory, and recall finds them by relevance when they matter.
- Half-life. The seed decays everything with λ = 0.03 (23 days), so a correction fades as fast as small talk.
  Important memories are kept longer: a correction ≈ 42 days, a plain memory ≈ 33, a turn ≈ 24.
- Confidence counts (the seed ignores it), but only by half: it says how sure a memory is, not how useful.
- Status: a superseded, contested or retracted memory is no longer current, so it weighs less and drifts out.

Thresholds (seed 003): active ≥ 0.5, fading ≥ 0.2, dormant below; garden archives a dormant memory once its score
is under ARCHIVE_BELOW (the seed's "archived" band). Stdlib only: the SessionStart selection imports this.
`now` is a datetime or epoch seconds: recall, in the prompt hook, passes seconds and reads the stored ISO times by
hand, so that it never imports `datetime` (~1 ms of a hook whose budget is 2.5 bare interpreter starts).
"""
import math

from brain.util.timestamps import epoch_seconds

PINNED_SCORE = 999.0  # seed 003's vault score: effectively infinite
ACTIVE = 0.5
FADING = 0.2
ARCHIVE_BELOW = 0.05
BASE_HALF_LIFE_DAYS = 30.0

KIND_IMPORTANCE = {
    "correction": 0.9, "request": 0.9,
    "decision": 0.8, "preference": 0.8,
    "consolidated": 0.75, "learning": 0.7,
    "memory": 0.6, "milestone": 0.6,
    "session": 0.5,
    "turn": 0.3,
}
DEFAULT_IMPORTANCE = 0.6
# Seed 003's weights mapped onto seed 000's types. "note" is what the classifier says when no cue word matched,
# which tells nothing about worth, so it weighs like a fact (the seed's "general" 0.8 would start it fading).
TYPE_WEIGHT = {"decision": 1.3, "preference": 1.2, "pattern": 1.1, "fact": 1.0, "note": 1.0}
STATUS_WEIGHT = {"active": 1.0, "contested": 0.5, "superseded": 0.25, "retracted": 0.1}


def _as_epoch(now) -> float:
    """`now` (a datetime, naive meaning UTC, or epoch seconds) as epoch seconds."""
    if isinstance(now, (int, float)):
        return float(now)
    if now.tzinfo is None:
        from datetime import timezone  # the caller passed a datetime, so it is loaded already

        now = now.replace(tzinfo=timezone.utc)
    return now.timestamp()


def importance_of(row: dict) -> float:
    value = row.get("importance")
    if value is None:
        return KIND_IMPORTANCE.get(row.get("kind") or "memory", DEFAULT_IMPORTANCE)
    return min(1.0, max(0.0, float(value)))


def idle_days(row: dict, now) -> float:
    """Days since the memory was last written or used (whichever is later); never negative. `now`: a datetime
    or epoch seconds."""
    times = [t for t in (epoch_seconds(row.get("created")), epoch_seconds(row.get("last_accessed"))) if t is not None]
    if not times:
        return 0.0
    return max(0.0, (_as_epoch(now) - max(times)) / 86400.0)


def salience(row: dict, now) -> float:
    """The memory's score now (see the module docstring). `row`: a dict with the search-db columns."""
    if row.get("pinned"):
        return PINNED_SCORE
    importance = importance_of(row)
    confidence = row.get("confidence")
    confidence = 0.8 if confidence is None else min(1.0, max(0.0, float(confidence)))
    strength = (importance * (0.5 + 0.5 * confidence) * TYPE_WEIGHT.get(row.get("type"), 1.0)
                * STATUS_WEIGHT.get(row.get("status") or "active", 1.0))
    uses = max(0, int(row.get("access_count") or 0))
    usage = min(2.0, 1.0 + 0.25 * math.log2(1 + uses))
    half_life = BASE_HALF_LIFE_DAYS * (0.5 + importance)
    recency = 0.5 ** (idle_days(row, now) / half_life)
    return strength * usage * recency


def state_of(score: float) -> str:
    """active, fading or dormant."""
    if score >= ACTIVE:
        return "active"
    if score >= FADING:
        return "fading"
    return "dormant"
