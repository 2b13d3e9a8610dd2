"""MPIJob's own fields in the output schema (kgen.check.envelope builds the rest):
mpi-operator v0.8.0's MPIJobSpec, or training-operator's MPIJob v1."""

from __future__ import annotations

from typing import Any

from kgen.check.envelope import CLEAN, INT32
from kgen.kinds.mpi import V2
from kgen.kinds.targets import ApiTarget


def fields(target: ApiTarget) -> dict[str, Any]:
    out: dict[str, Any] = {"slotsPerWorker": INT32}
    if target.name in V2:
        return out | {
            "runLauncherAsWorker": {"type": "boolean"},
            "sshAuthMountPath": {"type": "string"},
            "launcherCreationPolicy": {"enum": ["AtStartup", "WaitForWorkersReady"]},
            "mpiImplementation": {"enum": ["OpenMPI", "Intel", "MPICH"]},
        }
    # MPIJob v1 keeps the deprecated top-level cleanPodPolicy beside runPolicy's.
    return out | {"cleanPodPolicy": CLEAN, "mainContainer": {"type": "string"}}
