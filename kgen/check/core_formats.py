"""What the core definitions only name, which the API server enforces when it decodes
an object: a byte field (`format: byte`: a ConfigMap's binaryData, a webhook's
caBundle) is standard base64 with padding, a quantity (`resource.Quantity`: a
LimitRange's, a ResourceQuota's, a container's resources) is one by
resource.ParseQuantity's grammar, and a time (`format: date-time`: a creationTimestamp,
an Event's eventTime) is RFC 3339 as Go parses it (kgen.check.core_times). Neither
jsonschema nor jsonschema-rs checks a format, and Quantity is any string or number
there, so `binaryData: {a: aGk}`, `memory: 4GB` and `creationTimestamp: yesterday`
passed and the API server refused the object. And a whole float where an integer
goes, which the API server stores as the integer."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from kgen.check import core
from kgen.check.core_times import MICRO_TIME_HINT, TIME_HINT, time_problem
from kgen.check.schema_places import TIMES, integer_at, whole_floats
from kgen.errors import DataPath, Problem, format_path, shortened, unquoted
from kgen.spec.hidden import secret
from kgen.spec.quantity import QUANTITY_HINT, parse_quantity
from kgen.spec.validate import MAX_QUOTED

# A step of a place: a property's name, or "*" for any key or index.
Pattern = tuple[str, ...]
# A place and what is held there: "byte", "quantity", "time" or "micro-time".
Place = tuple[Pattern, str]

_DEFS = "#/$defs/"
_QUANTITY = _DEFS + "io.k8s.apimachinery.pkg.api.resource.Quantity"
# Go's encoding/json decodes a []byte with base64.StdEncoding, which skips line
# breaks (a YAML block of base64 lines) and nothing else.
_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
_ALPHABET = re.compile(r"[^A-Za-z0-9+/=\r\n]")
_BASE64_HINT = (
    "write the bytes as `base64 -w0 FILE` gives them: A-Z, a-z, 0-9, '+' and '/',"
    " padded with '='"
)


def format_problems(
    data: Any, definition: str, version: str, *, at: DataPath = ()
) -> list[Problem]:
    """Each whole float of `data` (a `definition`) where an integer goes, each byte
    field that is no base64 and each quantity and time that is none, at the value. A
    byte field's value is never quoted (it may be a key's or a certificate's). Located
    at `at` plus the value's path."""
    kind = definition.rsplit(".", 1)[-1]
    problems = _whole_floats(data, kind, definition, version)
    for pattern, held in format_places(definition, version):
        for path, value in _values(data, pattern, ()):
            if held == "byte":
                problem = _byte_problem(kind, path, value)
            elif held == "quantity":
                problem = _quantity_problem(data, kind, path, value)
            else:
                problem = _time_problem(data, kind, path, value, held)
            problems += [problem] if problem is not None else []
    return [replace(p, path=(*at, *p.path)) for p in problems] if at else problems


def _whole_floats(data: Any, kind: str, definition: str, version: str) -> list[Problem]:
    """A whole float where an integer goes (`containerPort: 8080.0`), refused as the
    spec refuses one in its own fields (kgen.spec.validate): the API server stores
    8080, and an output that says 8080.0 is not what is applied. (A patch's is
    written as the integer: kgen.patch.integers.)"""
    floats = whole_floats(data)
    if not floats:
        return []
    schema = core.definition_schema(definition, version)
    return [
        Problem(
            f"invalid {kind}: {format_path(path)}: expected a whole number, got the"
            f" number {value!r}",
            "wrong-type",
            path=path,
            hint=f"write {int(value)}",
        )
        for path, value in floats
        if path and integer_at(schema, path)
    ]


def _byte_problem(kind: str, path: DataPath, value: str) -> Problem | None:
    wrong = base64_problem(value)
    if wrong is None:
        return None
    message = (
        f"invalid {kind}: {format_path(path)} is not base64, which the API server"
        f" refuses: {wrong}"
    )
    return Problem(message, "invalid-value", path=path, hint=_BASE64_HINT)


def _quantity_problem(
    data: Any, kind: str, path: DataPath, value: str
) -> Problem | None:
    # Quantity.UnmarshalJSON trims spaces before it parses.
    if parse_quantity(value.strip()) is not None:
        return None
    message = f"'{shortened(value, MAX_QUOTED)}' is not a Kubernetes quantity"
    if secret(data, path):
        message = unquoted(message, value)
    message = f"invalid {kind}: {format_path(path)}: {message}"
    return Problem(message, "invalid-value", path=path, hint=QUANTITY_HINT)


def _time_problem(
    data: Any, kind: str, path: DataPath, value: str, held: str
) -> Problem | None:
    message = invalid_time(data, path, value, micro=held == "micro-time")
    if message is None:
        return None
    hint = MICRO_TIME_HINT if held == "micro-time" else TIME_HINT
    message = f"invalid {kind}: {format_path(path)}: {message}"
    return Problem(message, "invalid-value", path=path, hint=hint)


def invalid_time(data: Any, path: DataPath, value: str, *, micro: bool) -> str | None:
    """The message of a time of `data` at `path` the API server cannot read, quoted
    short and never under a secret's name (a patch's too: kgen.patch.times)."""
    wrong = time_problem(value, micro=micro)
    if wrong is None:
        return None
    message = f"'{shortened(value, MAX_QUOTED)}' is not an RFC 3339 date-time: {wrong}"
    return unquoted(message, value) if secret(data, path) else message


def base64_problem(text: str) -> str | None:
    """What keeps `text` from being standard base64 with padding, else None."""
    bare = text.replace("\r", "").replace("\n", "")
    if _BASE64.fullmatch(bare):
        return None
    bad = _ALPHABET.search(text)
    if bad is not None:
        return f"character {bad.start() + 1} is none of A-Z, a-z, 0-9, '+', '/' and '='"
    if "=" in bare.rstrip("="):
        return f"'=' at character {text.find('=') + 1} pads only the end"
    if len(bare) % 4:
        return f"{len(bare)} characters, not a multiple of 4 (pad the end with '=')"
    padding = len(bare) - len(bare.rstrip("="))
    return f"it ends in {padding} '=': padding is one or two"


def _values(
    node: Any, pattern: Pattern, path: DataPath
) -> Iterator[tuple[DataPath, str]]:
    if not pattern:
        if isinstance(node, str):
            yield path, node
        return
    step, rest = pattern[0], pattern[1:]
    if step == "*" and isinstance(node, dict):
        for key, value in node.items():
            yield from _values(value, rest, (*path, key))
    elif step == "*" and isinstance(node, list):
        for index, value in enumerate(node):
            yield from _values(value, rest, (*path, index))
    elif isinstance(node, dict) and step in node:
        yield from _values(node[step], rest, (*path, step))


def format_places(definition: str, version: str) -> tuple[Place, ...]:
    """The places of `definition`'s byte fields, quantities and times, found through
    the definitions it refers to (a Deployment's are its containers' resources)."""
    return _definition_places(definition, version)


# The definitions whose places are being found: one that holds itself
# (JSONSchemaProps) adds none the second time.
_WALKING: set[tuple[str, str]] = set()


@functools.cache
def _definition_places(name: str, version: str) -> tuple[Place, ...]:
    """Once a definition, shared by all that refer to it (a Pod's hundred)."""
    found = core.definitions(version).get(name)
    _WALKING.add((name, version))
    try:
        return tuple(_places(found, version))
    finally:
        _WALKING.discard((name, version))


def _places(schema: Any, version: str) -> Iterator[Place]:
    if not isinstance(schema, dict):
        return
    if schema.get("format") == "byte":
        yield (), "byte"
    ref = schema.get("$ref")
    if ref == _QUANTITY:
        yield (), "quantity"
    elif ref in TIMES:
        yield (), TIMES[ref]
    elif schema.get("format") == "date-time" and ref is None:
        yield (), "time"
    elif isinstance(ref, str) and ref.startswith(_DEFS):
        name = ref[len(_DEFS) :]
        if (name, version) not in _WALKING:
            yield from _definition_places(name, version)
    for name, sub in (schema.get("properties") or {}).items():
        yield from (((name, *rest), held) for rest, held in _places(sub, version))
    for key in ("additionalProperties", "items"):
        below = _places(schema.get(key), version)
        yield from ((("*", *rest), held) for rest, held in below)
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in schema.get(key) or ():
            yield from _places(sub, version)
