"""MPIJob's spec for mpi-operator's kubeflow.org/v2beta1 and training-operator's
kubeflow.org/v1 (the environment's target says which operator the cluster runs).

Keys follow the operator's Go struct (kubeflow/mpi-operator@v0.8.0:
pkg/apis/kubeflow/v2beta1/types.go MPIJobSpec). The CRD persists its defaults
(slotsPerWorker 1, sshAuthMountPath /root/.ssh, mpiImplementation OpenMPI,
launcherCreationPolicy AtStartup, runLauncherAsWorker false) into the live object, so
kgen writes them out: Argo CD would otherwise show the job OutOfSync.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kgen.errors import Problem
from kgen.kinds.mpi import KIND, V2
from kgen.kinds.mpi.spec import MPIJobSpec, own, slots
from kgen.kinds.targets import MPI_OPERATOR, ApiTarget
from kgen.render.base import Environment
from kgen.render.pod import replica_specs
from kgen.render.roles import role_settings
from kgen.render.runpolicy import cannot_express, place_run_policy
from kgen.spec.job import JobSpec, role_items

# mpi-operator v0.8.0 defaults (pkg/apis/kubeflow/v2beta1/default.go, constants.go).
V2_DEFAULTS = (
    ("sshAuthMountPath", "ssh_auth_mount_path", "/root/.ssh"),
    ("launcherCreationPolicy", "launcher_creation_policy", "AtStartup"),
    ("mpiImplementation", "mpi_implementation", "OpenMPI"),
)
# mpi-operator's launcher is a batch/v1 Job restarted OnFailure by default
# (DefaultLauncherRestartPolicy); training-operator's MPIJob v1 defaults both to Never.
V2_LAUNCHER_RESTART = "OnFailure"
V2_RESTART = ("Never", "OnFailure")


def render(spec: JobSpec, env: Environment) -> tuple[dict[str, Any], list[Problem]]:
    job = own(spec)
    target = env.target
    v2 = target.name in V2
    run: dict[str, Any] = {}
    problems = place_run_policy(run, job, KIND, target)
    body: dict[str, Any] = {"slotsPerWorker": slots(job)}
    if v2:
        body["runLauncherAsWorker"] = bool(job.run_launcher_as_worker)
    body |= run
    body[KIND.replica_key] = _replicas(job, v2=v2)
    for key, attr, default in V2_DEFAULTS:
        value = getattr(job, attr)
        if v2:
            body[key] = value or default
        elif value is not None:
            problems.append(_v2_only(key, target))
    if not v2 and job.run_launcher_as_worker is not None:
        problems.append(_v2_only("runLauncherAsWorker", target))
    if v2:
        problems += _v2_problems(job, target)
    return body, problems


def _v2_only(key: str, target: ApiTarget) -> Problem:
    """mpi-operator's own field on training-operator's MPIJob v1, which prunes it."""
    problem = cannot_express((key,), target)
    hint = f"{key} is mpi-operator's (target {MPI_OPERATOR}); training-operator's MPIJob v1 has none: remove it for this environment in an overlay (`{key}: null`)"
    return replace(problem, hint=hint)


def _replicas(job: MPIJobSpec, *, v2: bool) -> dict[str, Any]:
    """The replica specs without the port the other kinds carry: neither operator opens
    one (ranks talk over ssh or kubectl exec, to the first container)."""
    specs = {}
    # New maps on the way down: the replica specs are shared (kgen.render.pod).
    for key, shared in replica_specs(job, KIND).items():
        template = shared["template"]
        pod = template["spec"]
        containers = [
            {k: v for k, v in container.items() if k != "ports"}
            for container in pod["containers"]
        ]
        pod = {**pod, "containers": containers}
        replica = {**shared, "template": {**template, "spec": pod}}
        role = KIND.role_for_key(key)
        if v2 and role is not None and role.name == "launcher":
            launcher = job.roles.launcher
            if launcher is not None and launcher.restart_policy is None:
                replica["restartPolicy"] = V2_LAUNCHER_RESTART
        specs[key] = replica
    return specs


def _v2_problems(job: MPIJobSpec, target: ApiTarget) -> list[Problem]:
    """What mpi-operator's validation rejects with only an event (no webhook, no status
    condition: kubeflow/mpi-operator@v0.8.0:pkg/apis/kubeflow/validation/validation.go),
    and GPUs it would hide."""
    problems = []
    for name, role in role_items(job):
        if role.restart_policy is not None and role.restart_policy not in V2_RESTART:
            problems.append(
                Problem(
                    f"mpi-operator accepts restartPolicy Never or OnFailure, not {role.restart_policy}",
                    "mpi-restart-policy",
                    path=("roles", name, "restartPolicy"),
                    hint=f"use OnFailure or Never for API target {target.name}",
                )
            )
    launcher = job.roles.launcher
    if launcher is not None and not job.run_launcher_as_worker:
        limits = role_settings(job, "launcher", launcher).limits
        if limits.get(job.resources.gpu_resource):
            problems.append(
                Problem(
                    "mpi-operator hides the launcher's GPUs (NVIDIA_VISIBLE_DEVICES is empty) unless runLauncherAsWorker is true",
                    "mpi-launcher-gpu-hidden",
                    path=("roles", "launcher", "resources"),
                    at_key=True,
                    hint="remove the launcher's GPUs, or set runLauncherAsWorker: true to run ranks on it",
                )
            )
    return problems


def live_pointers(spec: JobSpec) -> list[str]:
    """Nothing in an MPIJob changes in the cluster by design."""
    return []
