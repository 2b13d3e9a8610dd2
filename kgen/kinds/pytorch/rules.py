"""Rules of a PyTorchJob spec: its roles, elastic training, processes per pod on CPU
nodes, and literal secrets in rendezvous options. (One master at most is RoleDef data,
checked with every kind's roles in kgen.rules.spec.)"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from kgen.check import core, core_objects
from kgen.errors import DataPath, Problem
from kgen.kinds.pytorch.spec import PyTorchJobSpec, own
from kgen.rules.context import Rule, RuleContext
from kgen.rules.reads import reads
from kgen.rules.secrets import allowed_literals, literal_problem, named_literal
from kgen.spec.job import JobSpec, role_items

if TYPE_CHECKING:
    from kgen.kinds.roles import PodRule


@reads("roles", "elasticPolicy")
def _roles(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    job = own(spec)
    master, worker = job.roles.master, job.roles.worker
    if master is None and worker is None:
        yield Problem(
            "a PyTorchJob needs a master or a worker role",
            "pytorch-no-roles",
            path=("roles",),
            at_key=True,
        )
    elif master is None and job.elastic_policy is None:
        # Without a Master the operator sets no MASTER_ADDR/RANK: every pod is rank 0 and
        # the job hangs (kubeflow-api.md §6.2; trainer#1988). Elastic jobs rendezvous.
        yield Problem(
            "a worker-only PyTorchJob gets no MASTER_ADDR or RANK, so every pod is rank 0",
            "pytorch-worker-only",
            path=("roles",),
            at_key=True,
            hint="add `master: {replicas: 1}` under roles, or an elasticPolicy",
        )


@reads("elasticPolicy", "roles")
def _elastic(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    job = own(spec)
    policy, worker = job.elastic_policy, job.roles.worker
    if policy is None:
        return
    if worker is None:
        yield Problem(
            "elasticPolicy scales the worker role, and there is none",
            "elastic-needs-worker",
            path=("elasticPolicy",),
            at_key=True,
        )
        return
    low = policy.min_replicas or worker.replicas
    high = policy.max_replicas or worker.replicas
    if low > high:
        yield Problem(
            f"minReplicas {low} is more than maxReplicas {high}",
            "elastic-min-max",
            path=("elasticPolicy", "minReplicas"),
        )
    elif not low <= worker.replicas <= high:
        yield Problem(
            f"{worker.replicas} workers is outside elasticPolicy's range {low}..{high}",
            "elastic-replicas-range",
            path=("roles", "worker", "replicas"),
        )
    for index, metric in enumerate(policy.metrics or []):
        yield from core_objects.check_object(
            metric,
            core.METRIC_SPEC,
            path=("elasticPolicy", "metrics", index),
            version=ctx.kubernetes_version,
        )


@reads("nprocPerNode", "resources.gpu", "roles")
def _nproc_on_cpu(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    # torchrun's auto falls back to os.cpu_count() without GPUs (kubeflow-api.md §3.3);
    # `gpu` finds no device at all.
    job = own(spec)
    if _gpus(job):
        return
    effect = {
        "auto": "starts one process per CPU core",
        "cpu": "starts one process per CPU core",
        "gpu": "finds no GPU and fails",
    }
    if job.nproc_per_node in effect:
        yield Problem(
            f"nprocPerNode {job.nproc_per_node} on pods without GPUs"
            f" {effect[job.nproc_per_node]}",
            "nproc-auto-on-cpu",
            path=("nprocPerNode",),
            hint="delete it (`nprocPerNode: null`) in the CPU overlay; without GPUs the default is 1",
        )


def _gpus(spec: PyTorchJobSpec) -> int:
    roles = [
        r.resources.gpu
        for _, r in role_items(spec)
        if r.resources and r.resources.gpu is not None
    ]
    return max([spec.resources.gpu, *roles])


@reads("elasticPolicy", "lint")
def _rendezvous_options(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    """`rdzvConf: [{key: password, value: hunter2}]` puts a secret in git."""
    policy = own(spec).elastic_policy
    if policy is None or not policy.rdzv_conf:
        return
    allowed = allowed_literals(spec, ctx)
    for index, option in enumerate(policy.rdzv_conf):
        if named_literal(option.key, option.value, allowed):
            yield literal_problem(
                ("elasticPolicy", "rdzvConf", index, "value"),
                f"a literal value for {option.key}",
            )


# The operator adds an init container of this name to each Worker pod of a job with a
# Master, to wait for the master's DNS name (kubeflow-api.md §6.2; initcontainer.go
# since pytorch-operator). Container names are unique in a pod: one of the job's under
# that name makes the API server refuse every worker pod, and the job never starts.
OPERATOR_INIT = "init-pytorch"


@reads("roles", "containers", "initContainers")
def _operator_init_name(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    job = own(spec)
    worker = job.roles.worker
    if job.roles.master is None or worker is None:
        return
    places = (
        (("initContainers",), job.init_containers),
        (("containers",), job.containers),
        (("roles", "worker", "initContainers"), worker.init_containers or []),
        (("roles", "worker", "containers"), worker.containers or []),
    )
    for path, containers in places:
        for index in _named_init(containers):
            yield _init_name_problem((*path, index, "name"))


def _pod_init_name(
    spec: JobSpec, role: str, pod: dict[str, Any]
) -> Iterator[tuple[DataPath, Problem]]:
    """The same over a worker's rendered pod template: a container a patch added."""
    if role != "worker" or own(spec).roles.master is None:
        return
    for key in ("initContainers", "containers"):
        for index in _named_init(pod.get(key)):
            yield (key, index, "name"), _init_name_problem(())


def _named_init(containers: Any) -> Iterator[int]:
    for index, container in enumerate(containers or ()):
        if isinstance(container, dict) and container.get("name") == OPERATOR_INIT:
            yield index


def _init_name_problem(path: DataPath) -> Problem:
    return Problem(
        f"'{OPERATOR_INIT}' is the init container the operator adds to each worker pod: the API server refuses a pod with two containers of one name",
        "pytorch-init-container-name",
        path=path,
        hint="rename the container",
    )


RULES: tuple[Rule, ...] = (
    _roles,
    _elastic,
    _nproc_on_cpu,
    _rendezvous_options,
    _operator_init_name,
)
# Over a rendered pod template (kgen.render.patched_pods).
POD_RULES: tuple[PodRule, ...] = (_pod_init_name,)
