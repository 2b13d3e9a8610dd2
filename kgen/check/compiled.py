"""jsonschema-rs, the compiled schema check, imported without the e-mail package.

As it is imported, jsonschema-rs (0.61) parses its own build date with
`email.utils.parsedate_to_datetime` (for `jsonschema_rs.__build__`), and importing
`email.utils` imports `socket`, `calendar`, `locale` and the e-mail charsets: 5-6 ms of a
one-spec `validate`, a thirtieth of it. So the import sees a stand-in `email.utils` whose
`parsedate_to_datetime` reads that one plain form of date (`Sun, 8 Nov 2026 16:26:25
+0000`) itself, with the same result, and hands anything else to the real function. The
stand-in is gone from `sys.modules` once jsonschema-rs is loaded: whatever asks for
`email.utils` afterwards gets the real module (tests/test_compiled.py).
"""

from __future__ import annotations

import importlib
import re
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
# RFC 5322's date-time as a program writes it (the `built` crate's, jsonschema-rs's).
_PLAIN_DATE = re.compile(
    r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), ([0-9]{1,2}) ([A-Z][a-z]{2}) ([0-9]{4})"
    r" ([0-9]{2}):([0-9]{2}):([0-9]{2}) ([+-])([0-9]{2})([0-9]{2})"
)


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
    found = _PLAIN_DATE.fullmatch(data) if isinstance(data, str) else None
    if found is not None:
        day, month, year, hour, minute, second, sign, hours, minutes = found.groups()
        offset = (int(hours) * 60 + int(minutes)) * 60 * (-1 if sign == "-" else 1)
        # `-0000` says the zone is unknown (a naive datetime), and a year below 100
        # is of this century or the last: both the real function's business.
        known_zone = (sign, hours, minutes) != ("-", "00", "00")
        if month in _MONTHS and known_zone and int(year) >= 100:
            numbers = (int(year), _MONTHS.index(month) + 1, int(day))
            try:
                return datetime(
                    *numbers,
                    int(hour),
                    int(minute),
                    int(second),
                    tzinfo=timezone(timedelta(seconds=offset)),
                )
            except ValueError:
                pass  # out of range: the real function says how
    _drop_stand_in()
    from email.utils import parsedate_to_datetime as parse

    return parse(data)


def _drop_stand_in() -> None:
    module = sys.modules.get(_EMAIL_UTILS)
    if getattr(module, "__dict__", {}).get("parsedate_to_datetime") is (
        parsedate_to_datetime
    ):
        del sys.modules[_EMAIL_UTILS]
