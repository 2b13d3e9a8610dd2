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
    kind = kind_of(spec)
    names = [] if kind.replica_key else _replicated_job(spec, job, kind.container)
    # Where an autoscaler scales the job, every role is counted at its limit: the
    # longest name any pod could get.
    limit = kind.scale_limit(spec)
    for role, settings in role_items(spec) if kind.replica_key else ():
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


def _replicated_job(spec: JobSpec, job: str, replicated: str) -> list[tuple[str, str]]:
    """A kind without replica specs (TrainJob) runs its nodes as one replicated job of
    a JobSet, named after the runtime's job: hosts `{job}-{replicated}-0-{index}`."""
    nodes = sum(role.replicas for _, role in role_items(spec))
    if not nodes:
        return []
    last = nodes - 1
    return [(f"{job}-{replicated}-0-{last}", f"the JobSet's pod for node {last}")]
