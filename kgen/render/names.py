"""Names kgen and the operator derive from a job's name."""

from __future__ import annotations

from kgen.kinds import kind_of
from kgen.spec.job import JobSpec, role_items

# Stands for the 8 hex digits of `jobNames: content-hash` where no render exists yet.
HASH_PLACEHOLDER = "########"


def tensorboard_name(job: str) -> str:
    return f"{job}-tensorboard"


def run_name(spec: JobSpec, job_names: str) -> str:
    """The job object's name under the naming policy (the hash shown as a placeholder)."""
    if spec.run_id:
        return f"{spec.name}-{spec.run_id}"
    if job_names == "content-hash":
        return f"{spec.name}-{HASH_PLACEHOLDER}"
    return spec.name


def generated_names(spec: JobSpec, job_names: str = "plain") -> list[tuple[str, str]]:
    """Every derived name with what it names."""
    job = run_name(spec, job_names)
    # Where an autoscaler scales the job, every role is counted at its limit: the
    # longest name any pod could get.
    limit = kind_of(spec).scale_limit(spec)
    names = []
    for role, settings in role_items(spec):
        replicas = settings.replicas
        if limit is not None:
            replicas = max(replicas, limit)
        last = replicas - 1
        names.append(
            (
                f"{job}-{role}-{last}",
                f"the operator's pod and service for {role} {last}",
            )
        )
    if spec.tensorboard is not None:
        names.append((tensorboard_name(spec.name), "the TensorBoard service"))
    return names
