"""Apply the patches of one job in one environment (kgen.patch.sources) to its rendered
objects, in order.

Every change is remembered with the patch value that made it (kgen.patch.marks), so
the output check, the host-access and secret rules and `kgen explain` point at the
patch's line.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Sequence
from typing import Any

from kgen.errors import Problem
from kgen.patch.context import Patching, PatchSource
from kgen.patch.counted import counted
from kgen.patch.host_access import host_access
from kgen.patch.images import floating_images
from kgen.patch.marks import Budget, PatchMarks
from kgen.patch.metadata import lifecycle, patched_metadata
from kgen.patch.ops import apply_ops
from kgen.patch.quantities import patched_quantities
from kgen.patch.secrets import patched_secrets
from kgen.patch.strategic import merge_into
from kgen.patch.times import patched_times
from kgen.render.base import Manifest
from kgen.spec.patches import ObjectPatch, PatchTarget


def apply_patches(
    objects: list[Manifest], *, sources: Sequence[PatchSource]
) -> tuple[list[Manifest], list[Problem]]:
    """The objects with every patch applied, and what went wrong, located."""
    bodies: list[dict[str, Any] | None] = [None] * len(objects)
    marks = [PatchMarks() for _ in objects]
    budget = Budget()
    problems: list[Problem] = []
    for source in sources:
        # Labels as the patches before this one left them, as kustomize selects.
        chosen = [
            i
            for i, o in enumerate(objects)
            if selects(source.patch.target, o, i, body=bodies[i])
        ]
        if not chosen:
            problems.append(_nothing_selected(source))
        for index in chosen:
            body = bodies[index]
            if body is None:
                body = bodies[index] = own_copy(objects[index].body)
            manifest = objects[index]
            patching = Patching(
                body,
                manifest.kind,
                manifest.name,
                source.base,
                source.where,
                marks[index],
                budget,
            )
            problem = _apply(patching, source.patch)
            if problem is not None:
                problems.append(problem)
                break  # once per patch: its other objects would say the same
    patched = [
        o._replace(body=body, patched=marks[i])
        if (body := bodies[i]) is not None
        else o
        for i, o in enumerate(objects)
    ]
    return patched, problems


def own_copy(tree: Any) -> Any:
    """A copy of a rendered tree that shares no map or list, within itself or with the
    render. Renderers share sub-trees (the spec's sidecars in every role's pod, one pod
    template for roles alike), and `copy.deepcopy` keeps them shared: a patch on the
    Worker's sidecar changed the Chief's too."""
    kind = type(tree)
    if kind is dict:
        return {key: own_copy(value) for key, value in tree.items()}
    if kind is list:
        return [own_copy(item) for item in tree]
    if kind in (str, int, float, bool) or tree is None:
        return tree
    return copy.deepcopy(tree)


def patched_rules(
    objects: list[Manifest],
    allowed: Collection[str],
    *,
    job_file: str,
    target: str,
    version: str,
) -> list[Problem]:
    """The secret, host-access, image and counting rules, the labels' and
    annotations' syntax, the fields the cluster sets and the quantities' and times'
    grammar, over what the patches wrote."""
    return (
        patched_secrets(
            objects, allowed, job_file=job_file, target=target, version=version
        )
        + host_access(objects)
        + floating_images(objects)
        + counted(objects)
        + patched_metadata(objects)
        + lifecycle(objects)
        + patched_quantities(objects, target=target, version=version)
        + patched_times(objects, target=target, version=version)
    )


def _apply(patching: Patching, patch: ObjectPatch) -> Problem | None:
    if patch.ops is not None:
        return apply_ops(patching, patch.ops)
    assert patch.merge is not None
    return merge_into(patching, patch.merge)


def selects(
    target: PatchTarget | None,
    manifest: Manifest,
    index: int,
    *,
    body: dict[str, Any] | None = None,
) -> bool:
    """Whether `target` picks the object (`body`, if patched already); no target
    picks the job (the first object)."""
    if target is None:
        return index == 0
    body = manifest.body if body is None else body
    group, _, version = str(body.get("apiVersion", "")).rpartition("/")
    labels = body.get("metadata", {}).get("labels") or {}
    return (
        (target.kind is None or target.kind == manifest.kind)
        and (target.name is None or target.name == manifest.name)
        and (target.group is None or target.group == group)
        and (target.version is None or target.version == version)
        and all(labels.get(k) == v for k, v in (target.labels or {}).items())
    )


def _nothing_selected(source: PatchSource) -> Problem:
    origin = source.where((*source.base, "target"))
    return Problem(
        "the patch's target selects none of the job's rendered objects",
        "patch-no-target",
        file=origin.file,
        line=origin.key_line,
        column=origin.key_column,
        hint="a patch that changes nothing is a mistake: check kind and name against"
        " kgen build's output (names are the job's, before a runId suffix)",
    )
