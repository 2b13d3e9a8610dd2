"""Times a patch writes (an object's creationTimestamp, a pod template's), held to what
the API server parses (kgen.check.core_times): the core definitions say only
`format: date-time`, which no schema library checks, and the API server refused the
job at sync. The team's objects and the spec's core objects are checked as they are
read (kgen.check.core_formats)."""

from __future__ import annotations

import functools
from typing import Any

from kgen.check import core
from kgen.check.core_formats import invalid_time
from kgen.check.core_times import MICRO_TIME_HINT, TIME_HINT
from kgen.check.schema_places import TIMES, patched_strings, time_at
from kgen.check.trace import patch_at
from kgen.errors import DataPath, Problem, format_path
from kgen.render.base import Manifest


def patched_times(
    objects: list[Manifest], *, target: str, version: str
) -> list[Problem]:
    problems: list[Problem] = []
    for manifest, path, value, schemas in patched_strings(
        objects,
        target=target,
        version=version,
        where=lambda path: _named(path, _time_names(version)),
    ):
        held = next(filter(None, (time_at(s, path) for s in schemas)), None)
        if held is None:
            continue
        micro = held == "micro-time"
        message = invalid_time(manifest.body, path, value, micro=micro)
        if message is None:
            continue
        problem = Problem(
            f"the rendered {manifest.kind} '{manifest.name}' is invalid at"
            f" {format_path(path)}: {message}",
            "output-schema",
            path=path,
            hint=MICRO_TIME_HINT if micro else TIME_HINT,
        )
        problems.append(patch_at(manifest, path, problem))
    return problems


def _named(path: DataPath, named: tuple[frozenset[str], frozenset[str]]) -> bool:
    fields, holders = named
    return bool(path) and (
        path[-1] in fields or (len(path) > 1 and path[-2] in holders)
    )


@functools.cache
def _time_names(version: str) -> tuple[frozenset[str], frozenset[str]]:
    """The names of the core definitions' time fields, and of their maps and lists of
    times (a PodDisruptionBudget's disruptedPods): only a string a patch writes under
    one is looked up in the schemas, of the thousands it may write."""
    fields: set[str] = set()
    holders: set[str] = set()
    for schema in core.definitions(version).values():
        for name, sub in (schema.get("properties") or {}).items():
            if _time(sub):
                fields.add(name)
            elif isinstance(sub, dict) and any(
                _time(sub.get(key)) for key in ("items", "additionalProperties")
            ):
                holders.add(name)
    return frozenset(fields), frozenset(holders)


def _time(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("$ref") in TIMES
