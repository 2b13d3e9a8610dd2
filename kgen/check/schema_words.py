"""A schema error's message with the values it quotes in YAML flow style
(kgen.flow_style): jsonschema spells them as Python does (`True is not of type
'string'`, `{'b': 'c'}`), jsonschema-rs as JSON (`{"b":"c"}`, `"x"`), and the user
wrote neither."""

from __future__ import annotations

import json
import re
from typing import Any

from kgen.flow_style import flow_style

# jsonschema puts the value first and the schema's value (an enum, a const, a bound)
# last, each as Python's repr.
_QUOTES_SCHEMA_VALUE = frozenset(
    ("enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
)


def python_worded(message: str, error: Any) -> str:
    """A jsonschema error's `message` (masked first, if it must be) respelled."""
    instance = repr(error.instance)
    start = 0
    if message.startswith(instance):
        start = len(flow_style(error.instance))
        message = flow_style(error.instance) + message[len(instance) :]
    if error.validator in _QUOTES_SCHEMA_VALUE:
        expected = repr(error.validator_value)
        place = message.rfind(expected, start)
        if place >= 0:
            message = (
                message[:place]
                + flow_style(error.validator_value)
                + message[place + len(expected) :]
            )
    return message


# A JSON string, as jsonschema-rs quotes one (a property, an enum's option, a pattern).
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_HOLE = "\x00"


def rs_worded(message: str, instance: Any) -> str:
    """A jsonschema-rs error's `message` respelled: the value it quotes first as
    serde_json writes it (keys sorted, no spaces), every other string in kgen's quotes."""
    written = json.dumps(
        instance, ensure_ascii=False, separators=(",", ":"), sort_keys=True, default=str
    )
    whole = message.startswith(written)
    rest = message[len(written) :] if whole else message
    rest = _JSON_STRING.sub(_single_quoted, rest)
    return flow_style(instance) + rest if whole else rest


def _single_quoted(match: re.Match[str]) -> str:
    try:
        text = json.loads(match.group())
    except ValueError:  # pragma: no cover - serde_json wrote it
        return match.group()
    return flow_style(text)
