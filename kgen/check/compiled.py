"""jsonschema-rs, the compiled schema check, imported without the e-mail package.

As it is imported, jsonschema-rs (0.61) parses its own build date with
`email.utils.parsedate_to_datetime` (its compiled module's `__build__`), and importing
`email.utils` imports `socket`, `calendar`, `locale` and the e-mail charsets: 5-6 ms of a
one-spec `validate`, a thirtieth of it. So the import sees a stand-in `email.utils` whose
`parsedate_to_datetime` reads that one plain form of date (`Sun, 8 Nov 2026 16:26:25
+0000`) itself, with the same result, and hands anything else to the real function. The
stand-in is gone from `sys.modules` once jsonschema-rs is loaded: whatever asks for
`email.utils` afterwards gets the real module (tests/test_compiled.py).
"""

from __future__ import annotations

import importlib
import sys
import types
from datetime import datetime, timedelta, timezone
from typing import Any

_EMAIL_UTILS = "email.utils"
_MONTHS = (
    "Jan",
    "Feb",
    "Mar",
    "Apr",
    "May",
    "Jun",
    "Jul",
    "Aug",
    "Sep",
    "Oct",
    "Nov",
    "Dec",
)
_DAYS = ("Mon,", "Tue,", "Wed,", "Thu,", "Fri,", "Sat,", "Sun,")


def jsonschema_rs() -> Any:
    """The jsonschema_rs module (ImportError where it is not installed)."""
    loaded = sys.modules.get("jsonschema_rs")
    if loaded is not None:
        return loaded
    if _EMAIL_UTILS in sys.modules:
        return importlib.import_module("jsonschema_rs")
    stand_in = types.ModuleType(_EMAIL_UTILS, "email.utils, as jsonschema-rs uses it")
    stand_in.__dict__["parsedate_to_datetime"] = parsedate_to_datetime
    sys.modules[_EMAIL_UTILS] = stand_in
    try:
        return importlib.import_module("jsonschema_rs")
    finally:
        _drop_stand_in()


def parsedate_to_datetime(data: str) -> datetime:
    """email.utils.parsedate_to_datetime(data): a plain date read here, any other
    handed to the real function, imported then."""
    plain = _plain_date(data) if isinstance(data, str) else None
    if plain is not None:
        return plain
    _drop_stand_in()
    from email.utils import parsedate_to_datetime as parse

    return parse(data)


def _plain_date(data: str) -> datetime | None:
    """RFC 5322's date-time as a program writes it (the `built` crate's, which
    jsonschema-rs uses: `Sun, 8 Nov 2026 16:26:25 +0000`); None for any other form,
    and for what the real function reads its own way: a year below 100 (this
    century's or the last), `-0000` (an unknown zone: a naive datetime), a value out
    of range (its error)."""
    parts = data.split(" ")
    if len(parts) != 6 or not data.isascii():
        return None
    weekday, day, month, year, clock, zone = parts
    hour, _, rest = clock.partition(":")
    minute, _, second = rest.partition(":")
    numbers = (day, year, hour, minute, second, zone[1:])
    if not all(n.isdigit() for n in numbers) or weekday not in _DAYS:
        return None
    widths = [len(day) in (1, 2), len(year) == 4, len(zone) == 5]
    widths += [len(hour) == len(minute) == len(second) == 2]
    if not all(widths) or month not in _MONTHS or zone[0] not in "+-":
        return None
    if zone == "-0000" or int(year) < 100:
        return None
    offset = (int(zone[1:3]) * 60 + int(zone[3:])) * 60
    try:
        return datetime(
            int(year),
            _MONTHS.index(month) + 1,
            int(day),
            int(hour),
            int(minute),
            int(second),
            tzinfo=timezone(timedelta(seconds=-offset if zone[0] == "-" else offset)),
        )
    except ValueError:
        return None


def _drop_stand_in() -> None:
    module = sys.modules.get(_EMAIL_UTILS)
    if getattr(module, "__dict__", {}).get("parsedate_to_datetime") is (
        parsedate_to_datetime
    ):
        del sys.modules[_EMAIL_UTILS]
