"""Labels and annotations a patch writes, held to the spec's rules (kgen.spec.fields):
the API server refuses an object whose label key or value, or annotation key, is not
one, or whose annotations are over 256 KiB in all
(k8s.io/apimachinery pkg/api/validation/objectmeta.go). The spec's messages, at the
patch line (kgen.check.trace.patch_at)."""

from __future__ import annotations

from typing import Any

from kgen.check.trace import patch_at
from kgen.errors import DataPath, Problem, value_in
from kgen.render.base import Manifest
from kgen.resources.metadata import entry_problems
from kgen.spec.fields import annotations_size_problem

_MAPS = ("labels", "annotations")


def patched_metadata(objects: list[Manifest]) -> list[Problem]:
    problems: list[Problem] = []
    for manifest in objects:
        if manifest.patched is None:
            continue
        seen: set[DataPath] = set()
        for path in list(manifest.patched.marks):
            where = _metadata_map(path)
            if where is None:
                continue
            entries = value_in(manifest.body, where)
            if not isinstance(entries, dict):
                continue
            if where not in seen and where[-1] == "annotations":
                problems += _problems(manifest, path, annotations_size_problem(entries))
            seen.add(where)
            if len(path) == len(where) + 1:
                problems += _entry(manifest, path, entries)
    return problems


def _entry(
    manifest: Manifest, path: DataPath, entries: dict[str, Any]
) -> list[Problem]:
    key = str(path[-1])
    if key not in entries:
        return []
    found = entry_problems(manifest.body, path, entries[key], at_key=False)
    return [patch_at(manifest, path, problem) for problem in found]


def _problems(manifest: Manifest, path: DataPath, message: str | None) -> list[Problem]:
    if message is None:
        return []
    return [patch_at(manifest, path, Problem(message, "invalid-value", path=path))]


def _metadata_map(path: DataPath) -> DataPath | None:
    """The labels or annotations map `path` is in or is: an object's, or a pod
    template's (`...template.metadata`)."""
    for index in range(len(path) - 1):
        on_object = index == 0 or path[index - 1] == "template"
        if on_object and path[index] == "metadata" and path[index + 1] in _MAPS:
            return path[: index + 2]
    return None
