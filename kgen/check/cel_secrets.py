"""A CEL rule's failure message never shows a secret of the object it ran on: a
messageExpression can build its text from any value (`'bad: ' + self.value`), and an
evaluation error can quote one (`quantity(self.value)`). Every value at a secret's
place in the object (kgen.rules.secret_names: an env var named API_TOKEN, a label
db-password) is masked in such a message, as kgen masks them in its own."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kgen.errors import DataPath, unquoted
from kgen.rules.secret_names import secret_place

# Values looked at, at most: a rule's object is a manifest, bounded by the build.
_LIMIT = 100_000


def scrubbed(message: str, data: Any) -> str:
    """`message` with every secret value of `data` as `***`."""
    for value in dict.fromkeys(_secrets(data)):
        message = unquoted(message, value)
    return message


def _secrets(data: Any) -> Iterator[Any]:
    seen = 0
    stack: list[tuple[DataPath, Any]] = [((), data)]
    while stack and seen < _LIMIT:
        path, value = stack.pop()
        seen += 1
        if isinstance(value, dict):
            stack.extend(((*path, str(k)), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend(((*path, i), v) for i, v in enumerate(value))
        elif secret_place(path, lambda at: _at(data, at)) is not None:
            yield value


def _at(data: Any, path: DataPath) -> Any:
    for part in path:
        if isinstance(data, dict) and isinstance(part, str):
            data = data.get(part)
        elif isinstance(data, list) and isinstance(part, int) and part < len(data):
            data = data[part]
        else:
            return None
    return data
