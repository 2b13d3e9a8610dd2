"""What `kgen import` reads of a TrainJob beyond what kgen.kinds.trainer.view maps to
the job spec's shared keys: the `trainJob:` section."""

from __future__ import annotations

from typing import Any

from kgen.kinds.trainer import CONTROLLER, RUNTIMES

# Where each release keeps the pod template of the runtime's `node` job, under spec
# (the one override kgen writes): podTemplateOverrides on 2.1, kgen's runtime patch.
V21_POD: tuple[str | int, ...] = ("podTemplateOverrides", 0)
PATCHED_POD: tuple[str | int, ...] = (
    "runtimePatches",
    0,
    "trainingRuntimeSpec",
    "template",
    "spec",
    "replicatedJobs",
    0,
    "template",
    "spec",
    "template",
)


def read_fields(
    spec: dict[str, Any], target: str, out: dict[str, Any]
) -> dict[str, Any]:
    """runtimeRef unless it is the framework's default, numProcPerNode, the
    initializers, suspend and managedBy unless they are the defaults."""
    section: dict[str, Any] = {}
    ref = _mapping(spec.get("runtimeRef"))
    kind = ref.get("kind") or "ClusterTrainingRuntime"
    default = RUNTIMES.get(str(out.get("framework")), "")
    if ref.get("name") and (ref["name"] != default or kind != "ClusterTrainingRuntime"):
        section["runtimeRef"] = {"name": ref["name"]} | (
            {"kind": kind} if kind != "ClusterTrainingRuntime" else {}
        )
    trainer = _mapping(spec.get("trainer"))
    if trainer.get("numProcPerNode") is not None:
        section["numProcPerNode"] = trainer["numProcPerNode"]
    initializer = _initializer(spec.get("initializer"))
    if initializer:
        section["initializer"] = initializer
    if spec.get("suspend") is True:
        section["suspend"] = True
    if spec.get("managedBy") not in (None, CONTROLLER):
        section["managedBy"] = spec["managedBy"]
    return {"trainJob": section} if section else {}


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _initializer(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        return {}
    out: dict[str, Any] = {}
    for key in ("dataset", "model"):
        source = value.get(key)
        if isinstance(source, dict) and source.get("storageUri"):
            entry = {"storageUri": source["storageUri"]}
            secret = source.get("secretRef")
            if isinstance(secret, dict) and secret.get("name"):
                entry["secret"] = secret["name"]
            out[key] = entry
    return out
