"""Timestamps: one reader for every form rlm-mem meets, one stored form (`YYYY-MM-DDTHH:MM:SSZ`, UTC).

`parse_timestamp` reads ISO 8601 (any offset, or none meaning UTC; "T" or a space; fractions of a second), dates,
datetimes and epoch seconds or milliseconds, and returns None for anything else. The two ways to use it:
`normalize_timestamp` raises ValueError (a person gave a bad value), `timestamp_or_none` returns None (a
transcript or an import file holds one: skip it).

`epoch_seconds` reads the stored form by hand: salience and recall run in the prompt hook, where importing
`datetime` costs ~1 ms of a budget of 2.5 bare interpreter starts.
"""
import time

_DAYS_BEFORE_MONTH = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)  # in a year that is not leap
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _leap_years_through(year: int) -> int:
    return year // 4 - year // 100 + year // 400


def _fields(text: str):
    """(year, month, day, hour, minute, second, microsecond, offset minutes or None) of an ISO 8601 text."""
    text = text.strip()
    if len(text) < 10 or text[4] != "-" or text[7] != "-":
        return None
    date_part, rest = text[:10], text[10:]
    if not (date_part[:4] + date_part[5:7] + date_part[8:10]).isdigit():
        return None
    year, month, day = int(date_part[:4]), int(date_part[5:7]), int(date_part[8:10])
    hour = minute = second = micro = 0
    offset = None
    if rest:
        if rest[0] not in "Tt ":
            return None
        clock = rest[1:]
        for sign in ("Z", "z", "+", "-"):  # the offset starts at the first Z, + or - after the clock
            at = clock.find(sign)
            if at >= 0:
                zone, clock = clock[at:], clock[:at]
                break
        else:
            zone = ""
        clock = clock.strip()
        hms, _, frac = clock.replace(",", ".").partition(".")
        parts = hms.split(":")
        if not 2 <= len(parts) <= 3 or not all(len(p) == 2 and p.isdigit() for p in parts):
            return None
        hour, minute = int(parts[0]), int(parts[1])
        second = int(parts[2]) if len(parts) == 3 else 0
        if frac:
            if not frac.isdigit():
                return None
            micro = int(frac[:6].ljust(6, "0"))
        if zone in ("Z", "z"):
            offset = 0
        elif zone:
            digits = zone[1:].replace(":", "")
            if len(digits) not in (2, 4) or not digits.isdigit():
                return None
            offset = (int(digits[:2]) * 60 + int(digits[2:] or 0)) * (-1 if zone[0] == "-" else 1)
    return year, month, day, hour, minute, second, micro, offset


def parse_timestamp(value):
    """An aware UTC datetime for `value` (see the module doc), or None when it is not a timestamp."""
    from datetime import (  # off the prompt hook's path (see epoch_seconds)
        date,
        datetime,
        timedelta,
        timezone,
    )

    try:
        if isinstance(value, bool) or value is None:
            return None
        if isinstance(value, (int, float)):
            return datetime.fromtimestamp(value / 1000 if value > 1e11 else value, tz=timezone.utc)
        if isinstance(value, datetime):
            dt = value
        elif isinstance(value, date):
            dt = datetime(value.year, value.month, value.day)
        elif isinstance(value, str):
            fields = _fields(value)
            if fields is None:
                return None
            *clock, offset = fields
            zone = timezone.utc if offset is None else timezone(timedelta(minutes=offset))
            dt = datetime(*clock, tzinfo=zone)
        else:
            return None
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=timezone.utc)
        return dt.astimezone(timezone.utc)
    except (ValueError, OverflowError, OSError):
        return None


def _format(dt, millis: bool) -> str:
    if millis and dt.microsecond:
        return dt.strftime("%Y-%m-%dT%H:%M:%S") + f".{dt.microsecond // 1000:03d}Z"
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def _stored_form(value) -> bool:
    """Whether `value` is already a valid time in the stored form (a bulk import reads thousands: datetime's
    parse and strftime cost ~10 us each). Read by hand only: epoch_seconds' fallback to parse_timestamp would take
    other forms too ("…T03:10.5ZZ")."""
    return (type(value) is str and len(value) == 20 and value[10] == "T" and value[19] == "Z"
            and _hand_read_seconds(value[:19]) is not None)


def normalize_timestamp(value, *, millis: bool = False) -> str:
    """`value` as `YYYY-MM-DDTHH:MM:SSZ` (with `.mmm` when `millis` and it has them). Raises ValueError."""
    if _stored_form(value):
        return value
    dt = parse_timestamp(value)
    if dt is None:
        raise ValueError("not a timestamp (expected an ISO 8601 time)")
    return _format(dt, millis)


def timestamp_or_none(value, *, millis: bool = False):
    """Like normalize_timestamp, but None for a value that is not a timestamp."""
    if _stored_form(value):
        return value
    dt = parse_timestamp(value)
    return None if dt is None else _format(dt, millis)


def epoch_seconds(value):
    """Seconds since 1970 of a stored timestamp ("YYYY-MM-DD", then "THH:MM:SS" or " HH:MM:SS"; UTC), read
    without datetime; any other form goes through parse_timestamp. None when unreadable."""
    if not value or not isinstance(value, str):
        return None
    seconds = _hand_read_seconds(value[:19])
    if seconds is not None:
        return seconds
    parsed = parse_timestamp(value[:19] if len(value) >= 19 and value[10:11] in "T " else value)
    return None if parsed is None else parsed.timestamp()


def _hand_read_seconds(text: str):
    """Seconds since 1970 of "YYYY-MM-DD" or "YYYY-MM-DD[T ]HH:MM:SS" in ASCII digits, a real date and time; else
    None."""
    digits = text[:4] + text[5:7] + text[8:10] + text[11:13] + text[14:16] + text[17:19]
    separators = text[4] + text[7] + text[10:11] + text[13:14] + text[16:17] if len(text) in (10, 19) else ""
    if separators in ("--", "--T::", "-- ::") and digits.isascii() and digits.isdigit():
        year, month, day = int(text[:4]), int(text[5:7]), int(text[8:10])
        hour, minute, second = (int(text[11:13]), int(text[14:16]), int(text[17:19])) if text[10:] else (0, 0, 0)
        leap_day = month == 2 and _leap(year)
        if year and 1 <= month <= 12 and 1 <= day <= _MONTH_DAYS[month - 1] + leap_day \
                and hour < 24 and minute < 60 and second < 60:
            days = (365 * (year - 1970) + _leap_years_through(year - 1) - _leap_years_through(1969)
                    + _DAYS_BEFORE_MONTH[month - 1] + (month > 2 and _leap(year)) + day - 1)
            return days * 86400.0 + hour * 3600 + minute * 60 + second
    return None
