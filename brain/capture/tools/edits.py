"""Value pairs an edit replaced in any file: a number with its unit, a duration, a URL and its host, a schedule,
a quoted name (edit_changes); the one number an edit replaced when the person asked for a new one (edited_number);
and a setting an edit changed as the turn's own words say it ("10 login attempts": said_as).
"""
import re
from collections import Counter

from brain.util.text import STOPWORDS
from brain.util.values import ASSIGNED_NUMBER, DURATION_KINDS, WEAK_SUBJECTS, value_kinds


def edit_changes(old: str, new: str) -> list:
    """Value pairs an edit replaced: one removed and one added value of the same kind (any two durations are of one
    kind: `time.Minute` into `30 * time.Second`; so are two sizes), or an interval replaced by a schedule
    (`interval(Duration::from_secs(3600))` into `"0 15 3 * * *"`). A changed URL also changes its host."""
    pairs = []
    before, after = _values_with_units(old), _values_with_units(new)
    removed_of, added_of = {}, {}
    for kind in {k for k, _ in before} | {k for k, _ in after}:
        removed_of[kind] = [v for k, v in before if k == kind and (k, v) not in after]
        added_of[kind] = [v for k, v in after if k == kind and (k, v) not in before]
    for kind in removed_of:
        removed, added = removed_of[kind], added_of[kind]
        if len(removed) == 1 and len(added) == 1 and removed[0].lower() != added[0].lower():
            pairs.append((removed[0], added[0]))
            if kind == "url":
                hosts = _host(removed[0]), _host(added[0])
                if all(hosts) and hosts[0] != hosts[1]:
                    pairs.append(hosts)
    schedules = added_of.get("cron", []) + added_of.get("time", [])
    if not pairs and len(removed_of.get("duration", [])) == 1 and len(schedules) == 1 \
            and not added_of.get("duration"):
        pairs.append((removed_of["duration"][0], schedules[0]))
    if not pairs:
        pairs += _renamed_literal(old, new)
    return pairs


# A quoted name in code: a subject, topic, queue, bucket, path or key ("orders.created", "gs://raw-events").
_LITERAL = re.compile(r"\"([^\"\s]{4,100})\"|'([^'\s]{4,100})'")


def _renamed_literal(old: str, new: str) -> list:
    """An edit that changes nothing but one quoted name into another (`Publish(ctx, "locker.door.opened", ...)`
    into `Publish(ctx, "lockers.v1.door.opened", ...)`): the pair, when both are specific enough to be found again
    (a dot, slash or colon in them, or a dash or underscore in ten characters or more: not "info" or "user_1")."""
    before = [a or b for a, b in _LITERAL.findall(old)]
    after = [a or b for a, b in _LITERAL.findall(new)]
    removed = [v for v in dict.fromkeys(before) if v not in after]
    added = [v for v in dict.fromkeys(after) if v not in before]
    if len(removed) != 1 or len(added) != 1 or old.replace(removed[0], added[0]) != new:
        return []
    return [(removed[0], added[0])] if findable(removed[0]) and findable(added[0]) else []


def findable(name: str) -> bool:
    """A name specific enough to be found again: a dot, slash or colon in it, or a dash or underscore in ten
    characters or more (not "info" or "user_1")."""
    return any(c in name for c in ".:/") or (len(name) >= 10 and any(c in name for c in "-_"))


def _host(url: str):
    rest = url.split("://", 1)[-1]
    return rest.split("/", 1)[0].split(":", 1)[0] or None


# `TTL = 15 * time.Minute`, `limit = 256 MB`, `cutoff = 72.hours`: not a setting
_UNIT_OR_PRODUCT = re.compile(r"[ \t]?(?:[A-Za-z%]|\*)|\.[A-Za-z]")  # on its line: not the next line's name
SIZE_KINDS = frozenset("unit:kb unit:mb unit:gb unit:tb".split())
# A number set through a call (`.max_connections(10)`) or a quoted version (`channel = "1.79"`).
_CALL_SETTING = re.compile(r"\.([a-z_][a-z0-9_]{2,40})\((\d+(?:\.\d+)?)\)")
_QUOTED_VERSION = re.compile(r"\b([A-Za-z_][\w-]{1,40})\s*[=:]\s*[\"'](\d+(?:\.\d+)+)[\"']")


def _values_with_units(text: str) -> list:
    """value_kinds (durations as one kind, sizes as one kind) plus numbers set under a name: with a unit the name
    says (`SESSION_TTL_HOURS = 24`: 24 hours), as a setting (`pool_max_conns=10`, `.max_connections(10)`: written
    `name = 10`), or a quoted version (`channel = "1.79"`: 1.79)."""
    out = [("duration" if k in DURATION_KINDS else "size" if k in SIZE_KINDS else k, v) for k, v in value_kinds(text)]
    for m in ASSIGNED_NUMBER.finditer(text):
        unit = next((u for u in ("days", "hours", "minutes", "seconds", "weeks", "months") if
                     u[:-1] in m.group(1).lower()), None)
        if unit and "per" in m.group(1).lower().replace("-", "_").split("_"):
            unit = None  # `requests-per-minute: 100` is a rate, not 100 minutes
        if unit:
            out.append(("duration", f"{m.group(2)} {unit}"))
        elif m.group(1).lower() not in WEAK_SUBJECTS and not _UNIT_OR_PRODUCT.match(text, m.end()):
            out.append(("set:" + m.group(1).lower(), f"{m.group(1)} = {m.group(2)}"))  # not `TTL = 15 * time.Minute`
    for m in _CALL_SETTING.finditer(text):
        out.append(("set:" + m.group(1), f"{m.group(1)} = {m.group(2)}"))
    for m in _QUOTED_VERSION.finditer(text):
        out.append(("set:" + m.group(1).lower(), m.group(2)))
    return list(dict.fromkeys(out))


_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.]*\d)")


def edited_number(old: str, new: str, asked: list) -> list:
    """An edit carrying out a request for a value the conversation had not stated ("Make it 45 days", then
    `from_secs(14 * 24 * 3600)` into `from_secs(45 * 24 * 3600)`): the one number the edit replaced, by the asked
    one, is the old value, in the asked value's unit."""
    before, after = Counter(_NUMBER.findall(old)), Counter(_NUMBER.findall(new))
    removed, added = list((before - after).elements()), list((after - before).elements())
    if len(removed) != 1 or len(added) != 1 or before.total() != after.total():  # one number, nothing else
        return []
    for value in asked:
        number, _, unit = value.partition(" ")
        if number == added[0] and unit and removed[0] != number:
            return [(f"{removed[0]} {unit}", value)]
    return []


_COUNTED = re.compile(r"(?<![\w.])(\d+)\s+([A-Za-z][a-z-]+(?:\s+[a-z][a-z-]+)?)\b")  # "10 login attempts"


def said_as(text: str, pair: tuple) -> list:
    """A setting an edit changed (`limit = 5` into `limit = 10`) as the turn's own words say the new number ("10
    login attempts per minute"): the same words with the old number are the old value older turns state ("5 login
    attempts"), which the setting's name alone would not find."""
    old, new = pair
    if " = " not in old or " = " not in new:
        return []
    before, after = old.partition(" = ")[2], new.partition(" = ")[2]
    if not (before.isdigit() and after.isdigit()) or before == after:
        return []
    out = []
    for m in _COUNTED.finditer(text):
        said = m.group(2).split()
        while said and said[-1].lower() in STOPWORDS:
            said.pop()
        if m.group(1) != after or not said or said[0].lower() in STOPWORDS or len(said[0]) < 4:
            continue
        out.append((f"{before} {' '.join(said)}", f"{after} {' '.join(said)}"))
        if len(said) == 2 and value_kinds(f"{after} {said[1]}"):  # "10 login attempts" is also "10 attempts"
            out.append((f"{before} {said[1]}", f"{after} {said[1]}"))
    return out

