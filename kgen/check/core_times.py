"""What a time field holds, as the API server decodes it: metav1.Time (an object's
creationTimestamp, a CronJob's lastScheduleTime, a condition's lastTransitionTime) by
Go's time.Parse(time.RFC3339), metav1.MicroTime (an Event's eventTime, a Lease's
renewTime) by RFC3339Micro, which takes exactly six digits of fraction
(k8s.io/apimachinery pkg/apis/meta/v1 time.go, micro_time.go). Both are
`format: date-time` in the core definitions, a format no schema library checks: a
time the API server cannot parse was refused only at sync.

RFC 3339 as the API server's parser reads it: a four-digit year, two-digit month,
day, hour, minute and second, an upper-case 'T' and 'Z' (Go compares them as
written), and no leap second (Go refuses second 60). Go's parser also lets a one-digit
hour or a comma before the fraction through, which is no RFC 3339 and which other
readers of the manifest (a diff, a policy engine) may refuse: refused here too."""

from __future__ import annotations

import calendar
import re

_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})"
    r"(?:\.([0-9]+))?(Z|[-+][0-9]{2}:[0-9]{2})"
)
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_ZONELESS = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?"
)
_SHAPE = "expected a date, 'T', a time and a time zone"
# calendar.month_name follows the locale: the message must not.
_MONTHS = ("", "January", "February", "March", "April", "May", "June", "July",
           "August", "September", "October", "November", "December")  # fmt: skip

TIME_HINT = (
    "a date, 'T', a time and a time zone, as the API server parses it (RFC 3339):"
    " 2026-01-02T03:04:05Z or 2026-01-02T04:04:05.5+01:00; null leaves it unset"
)
MICRO_TIME_HINT = (
    "a MicroTime has six digits of fraction, as the API server parses it:"
    " 2026-01-02T03:04:05.000000Z; null leaves it unset"
)


def time_problem(text: str, *, micro: bool = False) -> str | None:
    """What keeps `text` from being a time the API server reads (a MicroTime's, with
    `micro`), else None."""
    found = _TIME.fullmatch(text)
    if found is None:
        if _DATE.fullmatch(text):
            return "a date without a time"
        if _ZONELESS.fullmatch(text):
            return "no time zone (Z, or an offset such as +01:00)"
        return _SHAPE
    year, month, day, hour, minute, second = (int(g) for g in found.groups()[:6])
    fraction, zone = found.group(7), found.group(8)
    if not 1 <= month <= 12:
        return f"month {found.group(2)} is out of range"
    if day < 1:
        return f"day {found.group(3)} is out of range"
    # Year 0 is a leap year, as 2000 (Go's proleptic Gregorian calendar; Python's
    # starts at year 1).
    days = calendar.monthrange(year or 2000, month)[1]
    if day > days:
        return f"{_MONTHS[month]} {found.group(1)} has {days} days"
    if hour >= 24:
        return f"hour {found.group(4)} is out of range"
    if minute >= 60:
        return f"minute {found.group(5)} is out of range"
    if second >= 60:
        return f"second {found.group(6)} is out of range (no leap second)"
    if zone != "Z" and (int(zone[1:3]) >= 24 or int(zone[4:6]) >= 60):
        return f"the offset {zone} is out of range"
    if micro and (fraction is None or len(fraction) != 6):
        return f"six digits of fraction, not {len(fraction) if fraction else 'none'}"
    return None
