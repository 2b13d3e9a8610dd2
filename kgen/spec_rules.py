"""Rules over a validated job spec that relate several fields.

Each rule yields problems carrying the data path of the field to fix; the pipeline turns
paths into file:line:col through provenance, whichever file set the value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from kgen.errors import Problem
from kgen.models import JobSpec, PyTorchJobSpec, TFJobSpec, role_items
from kgen.quantity import parse_quantity

MAX_NAME = 63


def _unique_env(spec: JobSpec) -> Iterator[Problem]:
    seen: set[str] = set()
    for index, var in enumerate(spec.env):
        if var.name in seen:
            yield Problem(
                f"environment variable '{var.name}' is set twice",
                "duplicate-env",
                path=("env", index, "name"),
            )
        seen.add(var.name)


def _unique_volumes(spec: JobSpec) -> Iterator[Problem]:
    names: set[str] = set()
    paths: set[str] = set()
    for index, volume in enumerate(spec.volumes):
        if volume.name in names:
            yield Problem(
                f"volume '{volume.name}' is declared twice",
                "duplicate-volume",
                path=("volumes", index, "name"),
            )
        if volume.mount_path in paths:
            yield Problem(
                f"two volumes are mounted at '{volume.mount_path}'",
                "duplicate-mount-path",
                path=("volumes", index, "mountPath"),
            )
        names.add(volume.name)
        paths.add(volume.mount_path)


def _requests_within_limits(spec: JobSpec) -> Iterator[Problem]:
    requests, limits = spec.resources.requests, spec.resources.limits
    for field, info in type(requests).model_fields.items():
        key = info.alias or field
        wanted, allowed = getattr(requests, field), getattr(limits, field)
        if wanted is None or allowed is None:
            continue
        low, high = parse_quantity(wanted), parse_quantity(allowed)
        if low is not None and high is not None and low > high:
            yield Problem(
                f"{key} request {wanted} is more than its limit {allowed}",
                "requests-exceed-limits",
                path=("resources", "requests", key),
                hint="Kubernetes rejects a pod whose request is above its limit",
            )


def _pytorch_roles(spec: JobSpec) -> Iterator[Problem]:
    if not isinstance(spec, PyTorchJobSpec):
        return
    master, worker = spec.roles.master, spec.roles.worker
    if master is not None and master.replicas != 1:
        yield Problem(
            f"a PyTorchJob has exactly one master, not {master.replicas}",
            "pytorch-master-replicas",
            path=("roles", "master", "replicas"),
            hint="add the extra pods to roles.worker.replicas instead",
        )
    if master is None and worker is None:
        yield Problem(
            "a PyTorchJob needs a master role",
            "pytorch-no-roles",
            path=("roles",),
            at_key=True,
        )
    elif master is None:
        # Without a Master the operator sets no MASTER_ADDR/RANK: every pod is rank 0 and
        # the job hangs (kubeflow-api.md §6.2; trainer#1988).
        yield Problem(
            "a worker-only PyTorchJob gets no MASTER_ADDR or RANK, so every pod is rank 0",
            "pytorch-worker-only",
            path=("roles",),
            at_key=True,
            hint="add `master: {replicas: 1}` under roles",
        )


def _tf_roles(spec: JobSpec) -> Iterator[Problem]:
    if not isinstance(spec, TFJobSpec):
        return
    chief = spec.roles.chief
    if chief is not None and chief.replicas != 1:
        yield Problem(
            f"a TFJob has at most one chief, not {chief.replicas}",
            "tf-chief-replicas",
            path=("roles", "chief", "replicas"),
            hint="add the extra pods to roles.worker.replicas instead",
        )
    if chief is None and spec.roles.worker is None:
        yield Problem(
            "a TFJob needs a chief or worker role to do the training",
            "tf-no-trainer",
            path=("roles",),
            at_key=True,
        )


def _generated_names_fit(spec: JobSpec) -> Iterator[Problem]:
    # The operator names each pod and its headless Service `{job}-{role}-{index}`; a
    # Service name is a DNS-1035 label of at most 63 characters (kubeflow-api.md §4.2).
    for role, settings in role_items(spec):
        longest = f"{spec.name}-{role}-{settings.replicas - 1}"
        if len(longest) > MAX_NAME:
            room = MAX_NAME - (len(longest) - len(spec.name))
            yield Problem(
                f"job name is too long: the operator would name a pod and service"
                f" '{longest}' ({len(longest)} characters, limit {MAX_NAME})",
                "name-too-long",
                path=("name",),
                hint=f"shorten the name to at most {room} characters",
            )
            return


SPEC_RULES: tuple[Callable[[JobSpec], Iterator[Problem]], ...] = (
    _unique_env,
    _unique_volumes,
    _requests_within_limits,
    _pytorch_roles,
    _tf_roles,
    _generated_names_fit,
)


def check_spec(spec: JobSpec) -> list[Problem]:
    return [problem for rule in SPEC_RULES for problem in rule(spec)]
