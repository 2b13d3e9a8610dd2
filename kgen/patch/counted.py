"""What the rules across jobs count from the spec, which a patch may not change: a job's
replica counts and GPUs (the GPU quota, `kgen list`) and a created claim's size, access
modes and class (claims that agree across jobs). A patch that changed them would make
those rules count one thing while the cluster runs another."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kgen.errors import DataPath, Problem, format_path, value_in
from kgen.kinds import kind_named
from kgen.render.base import Manifest

_REPLICAS = frozenset({"replicas", "minReplicas", "maxReplicas"})
_CLAIM_FIELDS = frozenset({"resources", "accessModes", "storageClassName"})


def counted(objects: list[Manifest]) -> list[Problem]:
    problems = []
    for manifest in objects:
        if manifest.patched is None:
            continue
        job = kind_named(manifest.kind) is not None
        reported: set[DataPath] = set()
        for mark in manifest.patched.marks:
            found = next(_counted(manifest.kind, job, mark, manifest.body), None)
            if found is None or found in reported:
                continue
            reported.add(found)
            # The line that wrote the place itself, if a patch wrote it leaf by leaf.
            origin = manifest.patched.origin(found) or manifest.patched.marks[mark]
            problems.append(
                Problem(
                    f"the rendered {manifest.kind} '{manifest.name}': a patch changes"
                    f" {format_path(found)}, which kgen counts from the spec",
                    "patch-counted",
                    file=origin.file,
                    line=origin.line,
                    column=origin.column,
                    hint="set replicas, GPUs and claims in the spec, where the GPU"
                    " quota, kgen list and the claim rules read them",
                )
            )
    return problems


def _counted(kind: str, job: bool, mark: DataPath, body: Any) -> Iterator[DataPath]:
    """The counted places at `mark` or below it (a copy or a move marks only where it
    wrote, and may carry a whole replica spec)."""
    stack: list[tuple[DataPath, Any]] = [(mark, value_in(body, mark))]
    while stack:
        path, value = stack.pop()
        if _is_counted(kind, job, path):
            yield path
            return
        if isinstance(value, dict):
            stack += [((*path, k), v) for k, v in value.items()]
        elif isinstance(value, list):
            stack += [((*path, i), v) for i, v in enumerate(value)]


def _is_counted(kind: str, job: bool, path: DataPath) -> bool:
    if kind == "PersistentVolumeClaim":
        return path[:1] == ("spec",) and (len(path) == 1 or path[1] in _CLAIM_FIELDS)
    if not job or not path:
        return False
    last = path[-1]
    if last in _REPLICAS:
        return True
    # An extended GPU resource (nvidia.com/gpu, amd.com/gpu, gpu.intel.com/i915).
    return (
        len(path) >= 2
        and path[-2] in ("limits", "requests")
        and "gpu" in str(last).lower()
    )
