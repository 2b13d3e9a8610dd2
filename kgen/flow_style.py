"""A value as a message quotes it: in YAML flow style, as the user would write it
(`true`, `null`, `{b: c}`, `[a, 'x y']`), never in Python's spelling (`True`, `None`,
`{'b': 'c'}`) or JSON's (`{"b":"c"}`), which schema libraries put in their messages.

Escaping, masking and cutting are the message's (kgen.errors.Problem): this module only
spells the value.
"""

from __future__ import annotations

import math
import re
from typing import Any

# A string YAML reads back as itself when written plain in a flow collection: a word
# that starts with a letter, `_` or `/`, holds no indicator, and is no null or boolean
# of YAML 1.2 or 1.1 (kubectl reads 1.1: `yes` is true there).
_PLAIN = re.compile(r"[^\W\d][\w./@+=~-]*|/[\w./@+=~-]*")
_RESERVED = frozenset(
    [
        "null",
        "~",
        "true",
        "false",
        "yes",
        "no",
        "on",
        "off",
        "y",
        "n",
    ]  # compared in lower case
)


def flow_style(value: Any) -> str:
    """`value` as a message quotes it; a string alone in single quotes, as every kgen
    message quotes one (`'x' is not one of [a, b]`)."""
    if isinstance(value, str):
        return f"'{value}'"
    return _flow(value)


def _flow(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, int) and value.bit_length() > 14_000:
        return "a number of thousands of digits"  # Python refuses to print it
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, dict):
        return (
            "{" + ", ".join(f"{_flow(k)}: {_flow(v)}" for k, v in value.items()) + "}"
        )
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_flow(item) for item in value) + "]"
    return str(value)


def _float(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    return repr(value)


def _string(text: str) -> str:
    if _PLAIN.fullmatch(text) and text.lower() not in _RESERVED:
        return text
    return "'" + text.replace("'", "''") + "'"


def as_text(value: Any) -> str:
    """`value` as text the user would write it (`true`, `0.5`), a string as it is: what
    `str()` would spell as Python does (`True`)."""
    return value if isinstance(value, str) else _flow(value)
