"""Names kgen and the operator derive from a job's name."""

from __future__ import annotations

from kgen.models import JobSpec, PyTorchJobSpec, role_items


def tensorboard_name(job: str) -> str:
    return f"{job}-tensorboard"


def generated_names(spec: JobSpec) -> list[tuple[str, str]]:
    """Every derived name with what it names, the longest per role first."""
    names = []
    for role, settings in role_items(spec):
        replicas = settings.replicas
        policy = spec.elastic_policy if isinstance(spec, PyTorchJobSpec) else None
        if policy is not None:
            replicas = max(replicas, policy.max_replicas or 0)
        names.append(
            (
                f"{spec.name}-{role}-{replicas - 1}",
                f"the operator's pod and service for {role} {replicas - 1}",
            )
        )
    if spec.tensorboard is not None:
        names.append((tensorboard_name(spec.name), "the TensorBoard service"))
    return names
