"""The core definitions' byte fields (`format: byte`: a ConfigMap's binaryData, a
webhook's caBundle), held to what the API server decodes: standard base64 with
padding. The definitions only name the format, which neither jsonschema nor
jsonschema-rs checks, so `binaryData: {a: aGk}` passed and the API server refused
the ConfigMap. Go's encoding/json decodes a []byte field with base64.StdEncoding,
which skips line breaks (a YAML block of base64 lines) and nothing else."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any

from kgen.check import core
from kgen.errors import DataPath, Problem, format_path

# A step of a byte field's place: a property's name, or "*" for any key or index.
Pattern = tuple[str, ...]

_DEFS = "#/$defs/"
_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
_ALPHABET = re.compile(r"[^A-Za-z0-9+/=\r\n]")
_HINT = (
    "write the bytes as `base64 -w0 FILE` gives them: A-Z, a-z, 0-9, '+' and '/',"
    " padded with '='"
)


def byte_problems(data: Any, definition: str, version: str) -> list[Problem]:
    """Each value of a byte field of `data` (a `definition`) that is no base64, at
    the value, never quoted (binaryData may be a key's or a certificate's)."""
    kind = definition.rsplit(".", 1)[-1]
    problems: list[Problem] = []
    for pattern in byte_patterns(definition, version):
        for path, value in _values(data, pattern, ()):
            wrong = base64_problem(value)
            if wrong is not None:
                message = (
                    f"invalid {kind}: {format_path(path)} is not base64, which the"
                    f" API server refuses: {wrong}"
                )
                problems.append(
                    Problem(message, "invalid-value", path=path, hint=_HINT)
                )
    return problems


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


@functools.cache
def byte_patterns(definition: str, version: str) -> tuple[Pattern, ...]:
    """The places of `definition`'s byte fields: a handful of definitions have any."""
    return tuple(
        _patterns(core.definitions(version)[definition], version, (definition,))
    )


def _patterns(schema: Any, version: str, seen: tuple[str, ...]) -> Iterator[Pattern]:
    if not isinstance(schema, dict):
        return
    if schema.get("format") == "byte":
        yield ()
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith(_DEFS):
        name = ref[len(_DEFS) :]
        if name not in seen:  # JSONSchemaProps holds itself
            found = core.definitions(version).get(name)
            yield from _patterns(found, version, (*seen, name))
    for name, sub in (schema.get("properties") or {}).items():
        yield from ((name, *rest) for rest in _patterns(sub, version, seen))
    for key in ("additionalProperties", "items"):
        yield from (("*", *rest) for rest in _patterns(schema.get(key), version, seen))
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in schema.get(key) or ():
            yield from _patterns(sub, version, seen)
