"""What `kgen import` reads of a TrainJob beyond what kgen.kinds.trainer.view maps to
the job spec's shared keys: the `trainJob:` section."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kgen.errors import DataPath, Problem
from kgen.kinds.pytorch.importer import default_nproc, unread_count
from kgen.kinds.pytorch.launch import Launch, command_line, launch
from kgen.kinds.trainer import CONTROLLER, RUNTIMES
from kgen.kinds.trainer.policy import INSTALLED_POLICIES
from kgen.kinds.trainer.runtime import Inherited, runtime_beside

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


# The numProcPerNode each ClusterTrainingRuntime Kubeflow installs gives a TrainJob
# that leaves it out (kubeflow/trainer@v2.3.0 manifests/base/runtimes/: the torch
# runtime's `auto`, written out at v2.1.0 and the API's default since v2.2; the MPI
# runtimes' mlPolicy.mpi.numProcPerNode).
RUNTIME_NPROC = {
    "torch-distributed": "auto",
    "deepspeed-distributed": "1",
    "mlx-distributed": "1",
}


def read_fields(
    spec: dict[str, Any],
    target: str,
    out: dict[str, Any],
    notes: list[Problem],
    *,
    beside: Callable[[str, str], list[dict[str, Any]]] = lambda kind, name: [],
) -> dict[str, Any]:
    """runtimeRef unless it is the framework's default, numProcPerNode (the runtime's
    where the TrainJob leaves it out and kgen's default differs, or a note where the
    spec cannot say it), the runtime's ML policy where kgen does not know the runtime
    by name, the initializers, suspend and managedBy unless they are the defaults.

    The runtime is read from `beside` (the objects of a kind and name imported beside
    the TrainJob) when it is there (kgen.kinds.trainer.runtime), else known by name from the runtimes
    Kubeflow installs."""
    section: dict[str, Any] = {}
    ref = _mapping(spec.get("runtimeRef"))
    kind = ref.get("kind") or "ClusterTrainingRuntime"
    default = RUNTIMES.get(str(out.get("framework")), "")
    if ref.get("name") and (ref["name"] != default or kind != "ClusterTrainingRuntime"):
        section["runtimeRef"] = {"name": ref["name"]} | (
            {"kind": kind} if kind != "ClusterTrainingRuntime" else {}
        )
    name = ref.get("name") or default
    inherited = runtime_beside(str(kind), str(name), beside)
    section |= _runtime_policy(inherited, kind, name)
    trainer = _mapping(spec.get("trainer"))
    nproc = trainer.get("numProcPerNode")
    installed = (
        INSTALLED_POLICIES.get(name) if kind == "ClusterTrainingRuntime" else None
    )
    torch = (inherited.policy if inherited is not None else installed) != "mpi"
    at, started = _started(trainer) if torch else (("spec",), Launch())
    if nproc is not None:
        section["numProcPerNode"] = nproc
    elif started.nproc is not None:  # torchrun's own count wins over the runtime's
        section |= _runtime_nproc(started.nproc, out, named=True)
    else:  # the runtime's
        runtime = RUNTIME_NPROC.get(name) if kind == "ClusterTrainingRuntime" else None
        runtime = inherited.nproc if inherited is not None else runtime
        section |= _runtime_nproc(runtime, out)
        notes += _left_to_runtime(name, runtime, out, at, started)
    initializer = _initializer(spec.get("initializer"))
    if initializer:
        section["initializer"] = initializer
    if spec.get("suspend") is True:
        section["suspend"] = True
    if spec.get("managedBy") not in (None, CONTROLLER):
        section["managedBy"] = spec["managedBy"]
    return {"trainJob": section} if section else {}


def _runtime_policy(
    inherited: Inherited | None, kind: str, name: str
) -> dict[str, Any]:
    """The policy of a runtime read beside the TrainJob, where kgen does not know the
    runtime by name (kgen.kinds.trainer.policy): on an MPI runtime kgen's render
    overrides the launcher's pods too, and the rules and `kgen explain` follow it."""
    if inherited is None or inherited.policy not in ("torch", "mpi"):
        return {}
    if kind == "ClusterTrainingRuntime" and name in INSTALLED_POLICIES:
        return {}
    return {"runtimePolicy": inherited.policy}


def _runtime_nproc(
    runtime: str | None, out: dict[str, Any], *, named: bool = False
) -> dict[str, Any]:
    """The runtime's number where kgen's default would differ (an MPI runtime's 1
    slot on GPU nodes): written out, the hostfile keeps its slots. `named`: a count
    torchrun's command line gives, which may be auto, cpu or gpu too."""
    if runtime is None or runtime == default_nproc(out):
        return {}
    # Not '²' or '٣' (str.isdigit() takes both), nor past int32 (or int()'s 4,300).
    if not (runtime.isascii() and runtime.isdigit() and len(runtime) <= 10):
        return {"numProcPerNode": runtime} if named else {}
    return {"numProcPerNode": int(runtime)}


def _started(trainer: dict[str, Any]) -> tuple[DataPath, Launch]:
    """What the trainer's command line says of torchrun, and where it is."""
    key = "command" if trainer.get("command") else "args"
    line = command_line(trainer.get("command"), trainer.get("args"))
    return ("spec", "trainer", key), launch(line)


def _left_to_runtime(
    name: str,
    runtime: str | None,
    out: dict[str, Any],
    at: DataPath,
    started: Launch,
) -> list[Problem]:
    """What the spec cannot say of a count the TrainJob left to its runtime: torchrun's
    auto on nodes without GPUs, or the count of a runtime kgen does not know."""
    where = ("spec", "trainer")
    if runtime == "auto":
        by, key = f"the runtime {name}", "trainJob.numProcPerNode"
        return unread_count(started, out, at=at, job_at=where, key=key, by=by)
    if runtime is not None:
        return []
    return [
        Problem(
            f"numProcPerNode is left to the runtime {name}, whose default kgen cannot"
            f" read; kgen renders {default_nproc(out)}",
            "import-default-differs",
            path=where,
            hint="set trainJob.numProcPerNode to the runtime's mlPolicy numProcPerNode",
            severity="warning",
        )
    ]


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
