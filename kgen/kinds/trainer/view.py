"""`kgen import` of a TrainJob: read as the replica-spec job it renders from, so the
pod reader, the claims and the run fields are the ones every kind's import shares.

The TrainJob's trainer (image, command, args, env, resourcesPerNode) and the pod its
override puts on the runtime's `node` job (podTemplateOverrides on v2.1, kgen's
runtime patch from v2.2) become one pod template; numNodes becomes a master and the
other nodes workers, which renders as the same numNodes (and as a PyTorchJob on a
training-operator target). Positions follow the values, so what the import cannot
express is still reported at its line. What only a TrainJob has (runtimeRef,
numProcPerNode, initializers, suspend, managedBy) the kind reads
(kgen/kinds/trainer/importer.py).
"""

from __future__ import annotations

from typing import Any

from kgen.errors import DataPath, format_path
from kgen.importer.shape import Unreadable
from kgen.kinds.base import Kind
from kgen.kinds.trainer.importer import V21_POD
from kgen.kinds.trainer.render import PATCH_MANAGER
from kgen.load.document import Document

# The override of the runtime's pods, by where each release keeps it.
_V21: DataPath = ("spec", *V21_POD)
_TRAINER_KEYS = {"image", "command", "args", "env"}


def replica_view(doc: Document, kind: Kind, as_kind: Kind) -> Document:
    """`doc`'s TrainJob as a job of `as_kind` (its replica specs and container)."""
    data = doc.data
    spec = data.get("spec") or {}
    trainer = spec.get("trainer") or {}
    where, template = _override(spec)
    pod = dict(template.get("spec") or {})
    overrides = pod.pop("containers", None) or []
    node: dict[str, Any] = next(
        (c for c in overrides if c.get("name") == kind.container), {}
    )
    container: dict[str, Any] = {"name": as_kind.container}
    container |= {
        k: trainer[k] for k in ("image", "command", "args", "env") if k in trainer
    }
    if "resourcesPerNode" in trainer:
        container["resources"] = trainer["resourcesPerNode"]
    container |= {k: v for k, v in node.items() if k != "name"}
    replica = {"template": {**template, "spec": {**pod, "containers": [container]}}}
    nodes = trainer.get("numNodes") or 1
    roles = {as_kind.roles[0].key: {"replicas": 1, **replica}}
    if nodes > 1:
        roles[as_kind.roles[1].key] = {"replicas": nodes - 1, **replica}
    view_spec: dict[str, Any] = {as_kind.replica_key: roles}
    if "activeDeadlineSeconds" in spec:
        view_spec["activeDeadlineSeconds"] = spec["activeDeadlineSeconds"]
    positions = dict(doc.positions)
    for key in roles:
        base = ("spec", as_kind.replica_key, key, "template")
        positions |= _moved(doc, where, base)
        main = (*base, "spec", "containers", 0)
        positions |= _moved(doc, ("spec", "trainer"), main)
        positions |= _moved(
            doc, ("spec", "trainer", "resourcesPerNode"), (*main, "resources")
        )
        index = next((i for i, c in enumerate(overrides) if c is node), None)
        if index is not None:
            positions |= _moved(doc, (*where, "spec", "containers", index), main)
    return Document(doc.file, {**data, "spec": view_spec}, positions, doc.written)


def _override(spec: dict[str, Any]) -> tuple[DataPath, dict[str, Any]]:
    """The pod template the TrainJob puts on the runtime's pods, and where it is: one
    for every job it patches (kgen writes one; on an MPI runtime for both `node` and
    `launcher`), as any other would be lost on import. Its shape is checked before
    (kgen.importer.shape); what the shape does not say is Unreadable, at its place."""
    found: list[tuple[DataPath, dict[str, Any]]] = [
        ((*_V21[:-1], index), {k: v for k, v in override.items() if k != "targetJobs"})
        for index, override in enumerate(spec.get("podTemplateOverrides") or [])
    ]
    patches = list(enumerate(spec.get("runtimePatches") or []))
    # kgen's own patch when there is one: another manager's (Kueue's scheduling gate)
    # is not the job's pod, and the import keeps it as a patch (kgen.importer.leftover).
    own = [(i, p) for i, p in patches if p.get("manager") == PATCH_MANAGER]
    for index, patch in own or patches:
        found += _patched_templates(("spec", "runtimePatches", index), patch)
    for where, template in found[1:]:
        if template != found[0][1]:
            raise Unreadable(
                where,
                "it overrides the runtime's jobs with different pod templates, and a"
                " job spec has one pod template for every node",
            )
    return found[0] if found else ((), {})


def _patched_templates(
    where: DataPath, patch: dict[str, Any]
) -> list[tuple[DataPath, dict[str, Any]]]:
    """The pod template of each replicated job a runtime patch patches."""
    jobs_at = ("trainingRuntimeSpec", "template", "spec", "replicatedJobs")
    jobs = _dig(patch, jobs_at) or []
    if not jobs:
        raise Unreadable(
            where, f"{format_path(where)} patches no replicated job of the runtime"
        )
    found = []
    for index, job in enumerate(jobs):
        template = _dig(job, ("template", "spec", "template")) or {}
        found.append(
            ((*where, *jobs_at, index, "template", "spec", "template"), template)
        )
    return found


def _dig(value: Any, path: tuple[str, ...]) -> Any:
    """`value` at `path`, or None where a step is missing (its shape is checked)."""
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _moved(doc: Document, source: DataPath, target: DataPath) -> dict[DataPath, Any]:
    if not source:
        return {}
    size = len(source)
    return {
        (*target, *path[size:]): origin
        for path, origin in doc.positions.items()
        if path[:size] == source
    }
