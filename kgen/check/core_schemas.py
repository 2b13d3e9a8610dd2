"""A schema with the core definitions it references, directly or not, and no others:
compiling a validator over all 700 costs about 20 ms, over the 10 to 120 one kind needs
a few. Each definition is walked for its references, and made lean, once per process."""

from __future__ import annotations

import functools
from typing import Any

from kgen.check.core_definitions import definitions
from kgen.check.integer_ranges import bounded_definition
from kgen.check.lean import without_descriptions

# How a schema refers to a definition: `$ref: #/$defs/<name>`.
DEFS = "#/$defs/"


def with_definitions(schema: dict[str, Any], version: str) -> dict[str, Any]:
    """`schema` with the core definitions it references, directly or not, and no others.
    Their integers are bounded (kgen.check.integer_ranges)."""
    needed = _needed(schema, version)
    return {
        **schema,
        "$defs": {name: bounded_definition(name, version) for name in needed},
    }


def lean_with_definitions(schema: dict[str, Any], version: str) -> dict[str, Any]:
    """without_descriptions(with_definitions(schema, version)), key for key, with each
    definition made lean once per process and shared by every schema that needs it:
    the nine output schemas of a run share the pod spec's hundred definitions, and
    each made them lean again."""
    lean: dict[str, Any] = without_descriptions({**schema, "$defs": {}})
    # In place of the empty map: where `schema` had `$defs`, or last, as before.
    lean["$defs"] = {
        name: _lean_definition(name, version) for name in _needed(schema, version)
    }
    return lean


def _needed(schema: dict[str, Any], version: str) -> list[str]:
    """The names of the core definitions `schema` references, directly or not, sorted."""
    defs = definitions(version)
    needed: set[str] = set()
    pending = _references(schema)
    while pending:
        name = pending.pop()
        if name not in needed and name in defs:
            needed.add(name)
            pending += _definition_references(name, version)
    return sorted(needed)


@functools.cache
def _lean_definition(name: str, version: str) -> Any:
    """One bounded definition without its prose: shared, never to be changed."""
    return without_descriptions(bounded_definition(name, version))


@functools.cache
def _definition_references(name: str, version: str) -> tuple[str, ...]:
    """What one core definition refers to: the pod spec's hundred definitions are shared
    by every kind, so each is walked once, not once per validator."""
    return tuple(_references(definitions(version)[name]))


def _references(schema: Any) -> list[str]:
    """Names of the definitions `schema` refers to (`$ref: #/$defs/<name>`)."""
    found: list[str] = []
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith(DEFS):
                found.append(ref[len(DEFS) :])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found
