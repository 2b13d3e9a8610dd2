"""jsonschema-rs imported without the e-mail package (kgen.check.compiled): the same
module, the same dates, and the real `email.utils` for whoever asks afterwards."""

from __future__ import annotations

import email.utils
import json
import subprocess
import sys
from datetime import datetime

import pytest

from kgen.check.compiled import parsedate_to_datetime

DATES = [
    # jsonschema-rs 0.61's own build date, the one it parses as it is imported.
    "Sun, 8 Nov 2026 16:26:25 +0000",
    "Sun, 08 Nov 2026 16:26:25 +0000",
    "Mon, 18 Nov 2026 06:26:25 +0130",
    "Mon, 18 Nov 2026 06:26:25 -0230",
    # What the plain reading leaves to the real function: an unknown zone (naive),
    # a two-digit-era year, a zone name, no weekday, values out of range.
    "Sun, 8 Nov 2026 16:26:25 -0000",
    "Sun, 08 Nov 0099 23:59:59 +0000",
    "Sun, 8 Nov 2026 16:26:25 GMT",
    "8 Nov 2026 16:26:25 +0000",
    "Mon, 31 Feb 2026 06:26:25 -0230",
    "Sun, 08 Nov 2026 24:26:25 +0000",
    "Sun, 08 Nov 2026 23:59:60 +0000",
    "Sun, 8 Foo 2026 16:26:25 +0000",
]


def _parsed(parse: object, text: str) -> object:
    assert callable(parse)
    try:
        found = parse(text)
    except (ValueError, TypeError) as exc:
        return type(exc), str(exc)
    assert isinstance(found, datetime)
    return found, found.tzinfo  # equal datetimes may differ in zone


@pytest.mark.parametrize("text", DATES)
def test_a_date_reads_as_the_email_package_reads_it(text: str):
    real = _parsed(email.utils.parsedate_to_datetime, text)
    assert _parsed(parsedate_to_datetime, text) == real


def test_the_import_leaves_no_email_package_and_the_real_one_afterwards():
    script = (
        "import json, sys\n"
        "from kgen.check.compiled import jsonschema_rs\n"
        "rs = jsonschema_rs()\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(('email.', 'socket')))\n"
        "valid = rs.validator_for({'type': 'object'}).is_valid([])\n"
        "import email.utils\n"
        "real = email.utils.__file__ is not None and hasattr(email.utils, 'formatdate')\n"
        "same = jsonschema_rs() is sys.modules['jsonschema_rs']\n"
        "print(json.dumps([loaded, valid, real, same]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout) == [[], False, True, True]
