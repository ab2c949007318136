"""Dates written in text, for recall: calendar dates a prompt names, and relative ones a memory uses.

A prompt that says "in May 2023" or "on 8 May, 2023" narrows recall to memories made or about events then; a
memory that says "yesterday" or "last week" is dated against the time it was written, so "when did X happen?"
can be answered from the memory alone ("yesterday" said on 2023-05-08 is 2023-05-07). Spans are (first day,
last day), inclusive. A month named without a year is kept as ("month", n) and matches that month in any year.
Stdlib only, and cheap: the UserPromptSubmit hook runs this on every prompt.
"""
import re
from datetime import date, timedelta

from brain.util.text import case_folded

_MONTHS = "january february march april may june july august september october november december".split()
_WEEKDAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "a couple of": 2,
           "couple of": 2, "a few": 3, "few": 3}
_UNIT_DAYS = {"day": 1, "week": 7, "weekend": 7, "month": 30, "year": 365}
_UNIT_SLACK = {"day": 0, "week": 3, "weekend": 3, "month": 10, "year": 120}  # "two weeks ago" is approximate

_MON = (r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
        r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b")
# ISO dates; "[in] [13th [of]] May [13][, 2023]"; "in 2023". A bare month needs a preposition ("may" is a verb).
_ABSOLUTE = re.compile(
    r"\b(?:((?:19|20)\d\d)-(\d\d)-(\d\d)\b"
    r"|(?:(in|during|since|by|until|early|late|mid)-? )?(?:(\d{1,2})(?:st|nd|rd|th)?(?: of)? )?" + _MON +
    r"(?: (\d{1,2})(?:st|nd|rd|th)?\b(?![:\d]))?(?:,? ((?:19|20)\d\d)\b)?"
    r"|(?:in|during|since|by|until|of) ((?:19|20)\d\d)\b)", re.IGNORECASE)
_WEEKDAY = "|".join(_WEEKDAYS)
_RELATIVE = re.compile(
    rf"\b(?:(yesterday|today|tonight|tomorrow|last night|this morning)"
    rf"|(last|past|previous|this|next|coming) (week|weekend|month|year|{_WEEKDAY})"
    rf"|(a|an|one|two|three|four|five|six|a couple of|a few|few|\d{{1,2}}) (day|week|weekend|month|year)s? ago"
    rf"|(?:on|this) ({_WEEKDAY}))\b", re.IGNORECASE)


def _month_number(name: str) -> int:
    return _MONTHS.index(next(m for m in _MONTHS if m.startswith(case_folded(name)[:3]))) + 1


def month_span(year: int, month: int) -> tuple:
    following = date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)
    return date(year, month, 1), following - timedelta(days=1)


def _dates_in(text: str):
    """(match, span) for each calendar date written in `text` (see absolute_spans)."""
    for m in _ABSOLUTE.finditer(text):
        iso_year, iso_month, iso_day, preposition, day_before, month, day_after, year, bare_year = m.groups()
        try:
            if iso_year:
                day = date(int(iso_year), int(iso_month), int(iso_day))
                yield m, (day, day)
            elif bare_year:
                yield m, (date(int(bare_year), 1, 1), date(int(bare_year), 12, 31))
            else:
                number, day = _month_number(month), day_before or day_after
                if year and day:
                    yield m, (date(int(year), number, int(day)), date(int(year), number, int(day)))
                elif year:
                    yield m, month_span(int(year), number)
                elif day or preposition:  # a day and month without a year: that month in any year
                    yield m, ("month", number)
        except ValueError:  # 31 February and the like
            continue


def absolute_spans(text: str) -> list:
    """Each calendar date written in `text`: (first, last) dates, or ("month", n) for a month of any year."""
    return [span for _, span in _dates_in(text)]


def without_dates(text: str, relative: bool = False) -> str:
    """`text` with its calendar dates (and with `relative`, "yesterday" and the like) blanked out: their words
    are matched as dates, not as words."""
    matches = [m for m, _ in _dates_in(text)] + (list(_RELATIVE.finditer(text)) if relative else [])
    out, last = [], 0
    for m in sorted(matches, key=lambda m: m.start()):
        if m.start() >= last:
            out.append(text[last:m.start()])
            last = m.end()
    return " ".join(out + [text[last:]])


def _weekday_before(ref: date, weekday: int) -> date:
    return ref - timedelta(days=(ref.weekday() - weekday) % 7 or 7)


# Every relative expression holds one of these (weekdays end in "day"): a literal scan for them is much cheaper than
# the pattern, which tries every word (the search index runs it on every memory it stores).
_RELATIVE_HINTS = ("day", "night", "morning", "tomorrow", "week", "month", "year")


def relative_spans(text: str, ref: date) -> list:
    """Each relative time expression in `text` as (phrase, first, last), resolved against the day `ref`."""
    out = []
    folded = case_folded(text)
    if not any(hint in folded for hint in _RELATIVE_HINTS):
        return out
    for m in _RELATIVE.finditer(text):
        word, which, unit, count, count_unit, weekday = m.groups()
        if word:
            offset = {"yesterday": -1, "tomorrow": 1, "last night": -1}.get(case_folded(word), 0)
            first = last = ref + timedelta(days=offset)
        elif which:
            step = {"this": 0, "next": 1, "coming": 1}.get(case_folded(which), -1)
            unit = case_folded(unit)
            if unit == "week":
                first = ref - timedelta(days=ref.weekday()) + timedelta(weeks=step)
                last = first + timedelta(days=6)
            elif unit == "weekend":
                saturday = ref + timedelta(days=5 - ref.weekday())
                if step < 0:
                    saturday -= timedelta(weeks=1)
                elif step > 0 and ref.weekday() >= 5:
                    saturday += timedelta(weeks=1)
                first, last = saturday, saturday + timedelta(days=1)
            elif unit == "month":
                year, month = divmod(ref.year * 12 + ref.month - 1 + step, 12)
                first, last = month_span(year, month + 1)
            elif unit == "year":
                first, last = date(ref.year + step, 1, 1), date(ref.year + step, 12, 31)
            else:
                wd = _WEEKDAYS.index(unit)
                first = last = (_weekday_before(ref, wd) if step <= 0
                                else ref + timedelta(days=(wd - ref.weekday()) % 7 or 7))
        elif count:
            n = int(count) if count.isdigit() else _COUNTS.get(case_folded(count), 1)
            unit = case_folded(count_unit)
            middle = ref - timedelta(days=_UNIT_DAYS[unit] * n)
            slack = timedelta(days=_UNIT_SLACK[unit])
            first, last = middle - slack, middle + slack
        else:  # "on Friday" in a story about the past: the last one
            first = last = _weekday_before(ref, _WEEKDAYS.index(case_folded(weekday)))
        out.append((m.group(0), first, last))
    return out


def describe(first: date, last: date) -> str:
    """A span in words short enough for an annotation: a day, a week, a month or a range."""
    if first == last:
        return f"{first.isoformat()} ({_WEEKDAYS[first.weekday()][:3].capitalize()})"
    if first.day == 1 and last == month_span(first.year, first.month)[1]:
        return first.strftime("%Y-%m")
    if (first.month, first.day, last.month, last.day) == (1, 1, 12, 31) and first.year == last.year:
        return str(first.year)
    return f"{first.isoformat()}..{last.isoformat()}"


def day_of(created):
    """The day of an ISO timestamp ("2023-05-08T13:56:00Z"), or None when it cannot be read."""
    try:
        return date(int(created[:4]), int(created[5:7]), int(created[8:10]))
    except (TypeError, ValueError):
        return None


def resolved(text: str, created, limit: int = 3) -> tuple:
    """What the search index keeps of a memory's relative dates, resolved against the day it was made (`created`,
    an ISO timestamp): the annotation recall shows after its text (" (yesterday = 2023-05-07 (Sun))", at most
    `limit` notes), and the spans as "first last" ISO pairs joined by ";" (what a prompt's dates are compared
    with). ("", "") when it has none or its day cannot be read."""
    ref = day_of(created)
    if ref is None:
        return "", ""
    try:
        spans = relative_spans(text, ref)
    except (ValueError, OverflowError):  # "next year" said on 9999-12-30: no date to give, no failure
        return "", ""
    if not spans:
        return "", ""
    notes = []
    for phrase, first, last in spans:
        note = f"{phrase.lower()} = {describe(first, last)}"
        if note not in notes:
            notes.append(note)
    return f" ({'; '.join(notes[:limit])})", ";".join(f"{a.isoformat()} {b.isoformat()}" for _, a, b in spans)


def stored_spans(text: str) -> list:
    """The spans `resolved` stored, back as (first, last) dates."""
    out = []
    for pair in text.split(";") if text else ():
        first, _, last = pair.partition(" ")
        out.append((date.fromisoformat(first), date.fromisoformat(last)))
    return out


def overlaps(spans: list, first: date, last: date, tolerance: int = 1) -> bool:
    """Whether the day range first..last meets any of `spans` (a month of any year matches by month)."""
    pad = timedelta(days=tolerance)
    for start, end in spans:
        if start == "month":
            if first.month == end or last.month == end or (last - first).days > 31:
                return True
        elif first <= end + pad and last >= start - pad:
            return True
    return False
