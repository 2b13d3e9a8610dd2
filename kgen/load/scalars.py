"""A YAML scalar's value from its core-schema tag: the one place text becomes a number,
a boolean or null, for both loaders.

ruamel's YAML 1.2 resolver types some plain scalars that are no number at all (`-_`,
`0x_`, `._`: its patterns allow underscores anywhere), and an explicit tag can say
anything (`!!int abc`). Each is a ScalarError with a message and a hint, never a
Python conversion error. Integers are bounded: no field takes more than a few digits,
and Python refuses to convert past 4,300 digits (CVE-2020-10735).
"""

from __future__ import annotations

import math
import re
from typing import Any

from kgen.errors import masked, shortened

_TAG = "tag:yaml.org,2002:"
# No field holds an integer anywhere near this; a message can still print one.
MAX_INT_DIGITS = 100
_INT_LIMIT = 10**MAX_INT_DIGITS
# The YAML 1.2 core forms (underscores removed first, as ruamel allows them), ASCII
# only: Python's int() and float() also read other scripts' digits and spaces.
_INT = re.compile(r"[-+]?(?:[0-9]+|0x[0-9a-fA-F]+|0o[0-7]+|0b[01]+)", re.ASCII)
_FLOAT = re.compile(
    r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?", re.ASCII
)
_SPECIAL_FLOATS = {
    ".inf": math.inf,
    "+.inf": math.inf,
    "-.inf": -math.inf,
    ".nan": math.nan,
}
_BOOLS = {
    **dict.fromkeys(("true", "True", "TRUE"), True),
    **dict.fromkeys(("false", "False", "FALSE"), False),
}
_NULLS = ("", "~", "null", "Null", "NULL")

REFUSED = object()


class ScalarError(ValueError):
    """A scalar whose tag (written, or given by the resolver) says one type and whose
    text is not of it, or an integer past the bound."""

    def __init__(
        self, value: str, kind: str, tag: str, *, too_large: bool = False
    ) -> None:
        super().__init__(f"{value!r} is not {kind}")
        self.value, self.kind, self.tag, self.too_large = value, kind, tag, too_large
        self.code = "invalid-value" if too_large else "yaml-syntax"

    def wording(self, *, explicit: bool, secret: bool = False) -> tuple[str, str]:
        """The message and hint; `explicit` when the tag is written in the file,
        `secret` when the value sits under a secret's name (and is never quoted)."""
        # Masked before it is cut: a password cut short is no longer one, and would show.
        shown = masked(self.value)
        shown = shown if len(shown) <= 40 else shortened(shown, 20)
        shown = "***" if secret else shown
        if self.too_large:
            return (
                f"'{shown}' is a number of more than {MAX_INT_DIGITS} digits;"
                " no field takes one",
                "quote it if it is text",
            )
        if explicit:
            return (
                f"'{shown}' is not {self.kind}, as its tag !!{self.tag} says",
                f"remove the tag, or write {self.kind}",
            )
        # A plain scalar the resolver took for a number (ruamel's patterns allow a
        # sign, a prefix or a point with only underscores).
        return (
            f"'{shown}' looks like a number to YAML but is not one",
            "quote it if it is text",
        )


def tagged_value(tag: Any, value: str) -> Any:
    """A scalar's value by its core-schema tag (a Tag or its full name); REFUSED for
    any other tag. Raises ScalarError where the text is not of the tag's type."""
    if tag == _TAG + "str" or tag == _TAG + "timestamp":
        # Timestamps stay strings: nothing in a job spec is a date, and a date-like
        # string (a tag, a run id) must survive unchanged.
        return value
    if tag == _TAG + "int":
        return _int(value)
    if tag == _TAG + "float":
        return _float(value)
    if tag == _TAG + "bool":
        found = _BOOLS.get(value)
        if found is None:
            raise ScalarError(value, "true or false", "bool")
        return found
    if tag == _TAG + "null":
        if value not in _NULLS:
            raise ScalarError(value, "null", "null")
        return None
    return REFUSED


def _int(value: str) -> int:
    text = value.replace("_", "")
    if not _INT.fullmatch(text):
        raise ScalarError(value, "a whole number", "int")
    negative = text.startswith("-")
    body = text.lstrip("+-")
    base = {"0x": 16, "0o": 8, "0b": 2}.get(body[:2].lower(), 10)
    # Bound the length before converting: past 4,300 decimal digits int() raises,
    # leading zeros included.
    digits = (body[2:] if base != 10 else body).lstrip("0") or "0"
    if len(digits) > 4 * MAX_INT_DIGITS:
        raise ScalarError(value, "a whole number", "int", too_large=True)
    number = int(digits, base)
    if number >= _INT_LIMIT:
        raise ScalarError(value, "a whole number", "int", too_large=True)
    return -number if negative else number


def _float(value: str) -> float:
    text = value.replace("_", "")
    special = _SPECIAL_FLOATS.get(text.lower())
    if special is not None:
        return special
    if not _FLOAT.fullmatch(text):
        raise ScalarError(value, "a number", "float")
    return float(text)
