"""Labels and annotations a patch writes, held to the spec's rules (kgen.spec.fields):
the API server refuses an object whose label key or value, or annotation key, is not
one, or whose annotations are over 256 KiB in all
(k8s.io/apimachinery pkg/api/validation/objectmeta.go). The spec's messages, at the
patch line (kgen.check.trace.patch_at).

And the object's own metadata that the cluster sets, never a manifest (lifecycle)."""

from __future__ import annotations

from typing import Any

from kgen.check.trace import patch_at
from kgen.errors import DataPath, Problem, value_in
from kgen.render.base import Manifest
from kgen.resources.metadata import entry_problems
from kgen.spec.fields import annotations_size_problem

_MAPS = ("labels", "annotations")

# What the API server and the controllers set on the objects they create: a manifest
# with generateName cannot be applied (kubectl apply, Argo CD and Flux key an object
# by its name); an owner reference names an owner by its uid, which no manifest can
# know, and the garbage collector deletes an object whose owner is not there
# (https://kubernetes.io/docs/concepts/architecture/garbage-collection/); a
# finalizer nothing removes keeps the job from being deleted. The renders never
# write them: where they are, a patch wrote them. A pod template's are the
# operator's to copy onto its pods, and left alone.
LIFECYCLE = ("generateName", "ownerReferences", "finalizers")


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


def lifecycle(objects: list[Manifest]) -> list[Problem]:
    """The lifecycle fields a patch wrote on an object's own metadata, each at the
    patch line that wrote it."""
    problems: list[Problem] = []
    for manifest in objects:
        meta = manifest.body.get("metadata")
        if manifest.patched is None or not isinstance(meta, dict):
            continue
        for field in LIFECYCLE:
            origin = manifest.patched.origin(("metadata", field))
            if field not in meta or origin is None:
                continue
            problem = Problem(
                f"a patch may not write metadata.{field} of the rendered"
                f" {manifest.kind} '{manifest.name}'",
                "patch-lifecycle",
                hint="kgen writes what a GitOps tool applies: the API server and the"
                " controllers set these on objects they create, never a manifest",
            )
            problems.append(problem.at(origin.file, origin.line, origin.column))
    return problems
