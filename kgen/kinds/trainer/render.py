"""TrainJob's spec for a trainer target (kubeflow-api.md §9; kubeflow/trainer@v2.1.0,
v2.2.1, v2.3.0: pkg/apis/trainer/v1alpha1/trainjob_types.go).

The job's image, command, args, env, node count (every role's pods), resources and
processes per node go into `trainer`; its pod settings into the release's override of
the runtime's `node` job (podTemplateOverrides on v2.1, a runtimePatch from v2.2).
Fields the CRD defaults (runtimeRef's apiGroup and kind, suspend, managedBy) are
written out, so Argo CD sees no difference once the API server has defaulted them;
suspend not for a TrainJob Kueue admits, whose suspend Kueue holds (kgen.render.kueue).
"""

from __future__ import annotations

from typing import Any

from kgen.errors import Problem
from kgen.kinds.targets import ApiTarget
from kgen.kinds.trainer import CONTROLLER, GROUP, LAUNCHER, NODE, RUNTIMES
from kgen.kinds.trainer.policy import policy
from kgen.kinds.trainer.spec import StorageSource, TrainJobSpec, own
from kgen.kinds.trainer.unmappable import unmappable
from kgen.render.base import Environment
from kgen.render.kueue import queued
from kgen.render.pod import env_entry, template_metadata
from kgen.render.roles import RoleSettings, role_settings
from kgen.render.volumes import container_mounts, pod_volumes
from kgen.spec.job import JobSpec, role_items

# Who owns kgen's runtime patch (RuntimePatch.manager, the list's key).
PATCH_MANAGER = "kgen.io/kgen"


def render(spec: JobSpec, env: Environment) -> tuple[dict[str, Any], list[Problem]]:
    job = own(spec)
    target = env.target
    problems = unmappable(job, target)
    roles = role_items(job)
    if not roles:  # pytorch-no-roles says so
        return {"runtimeRef": runtime_ref(job)}, problems
    settings = role_settings(job, *roles[0])
    out: dict[str, Any] = {"runtimeRef": runtime_ref(job)}
    initializer = _initializer(job)
    if initializer:
        out["initializer"] = initializer
    out["trainer"] = _trainer(job, settings, target)
    pod = pod_override(job, settings, target)
    if pod:
        out |= _placed(pod, target, override_jobs(job))
    # Kueue holds a queued job's suspend (kgen.render.kueue); a `suspend: true` asked
    # for is kept, with the warning trainjob-suspend-queued.
    if job.train_job.suspend or not queued(job):
        out["suspend"] = job.train_job.suspend
    deadline = job.run_policy.active_deadline_seconds
    if deadline is not None and target.has("trainer.activeDeadlineSeconds"):
        out["activeDeadlineSeconds"] = deadline
    out["managedBy"] = job.train_job.managed_by or CONTROLLER
    return out, problems


def runtime_ref(job: TrainJobSpec) -> dict[str, str]:
    ref = job.train_job.runtime_ref
    name = ref.name if ref else RUNTIMES[job.framework]
    kind = ref.kind if ref else "ClusterTrainingRuntime"
    return {"name": name, "apiGroup": GROUP, "kind": kind}


def _initializer(job: TrainJobSpec) -> dict[str, Any]:
    init = job.train_job.initializer
    if init is None:
        return {}
    sources = (("dataset", init.dataset), ("model", init.model))
    return {key: _source(source) for key, source in sources if source is not None}


def _source(source: StorageSource) -> dict[str, Any]:
    out: dict[str, Any] = {"storageUri": source.storage_uri}
    if source.secret:
        out["secretRef"] = {"name": source.secret}
    return out


def _trainer(
    job: TrainJobSpec, settings: RoleSettings, target: ApiTarget
) -> dict[str, Any]:
    # Left out, the runtime's trainer node keeps its own image.
    out: dict[str, Any] = {} if settings.image is None else {"image": settings.image}
    if settings.command is not None:
        out["command"] = list(settings.command)
    if settings.args is not None:
        out["args"] = list(settings.args)
    if settings.env:
        out["env"] = [env_entry(var) for var in settings.env]
    out["numNodes"] = num_nodes(job)
    resources = {
        k: v
        for k, v in (("limits", settings.limits), ("requests", settings.requests))
        if v
    }
    if resources:
        out["resourcesPerNode"] = resources
    nproc = num_proc_per_node(job)
    out["numProcPerNode"] = int(nproc) if nproc.isdigit() else nproc
    return out


def num_nodes(job: TrainJobSpec) -> int:
    """Every role's pods: a PyTorchJob's master and workers are all torchrun nodes
    (kubeflow/trainer@v2.3.0:docs/operator-guides/migration.md)."""
    return sum(role.replicas for _, role in role_items(job))


def num_proc_per_node(job: TrainJobSpec) -> str:
    """Explicit, never the torch runtime's `auto` by accident (one process per CPU core
    on a CPU node, kubeflow-api.md §3.3): the spec's, else the GPUs per node, else 1."""
    if job.train_job.num_proc_per_node is not None:
        return job.train_job.num_proc_per_node
    gpus = [job.resources.gpu] + [
        r.resources.gpu for _, r in role_items(job) if r.resources and r.resources.gpu
    ]
    return str(max(gpus)) if max(gpus) else "1"


def pod_override(
    job: TrainJobSpec, settings: RoleSettings, target: ApiTarget
) -> dict[str, Any]:
    """The pod template the release's override puts on the runtime's `node` pods:
    only fields it holds (the others are errors, kgen.kinds.trainer.unmappable)."""
    newer = target.has("trainer.securityContext")
    container: dict[str, Any] = {}
    mounts = container_mounts(job, settings.shared_memory)
    if mounts:
        container["volumeMounts"] = mounts
    if newer and settings.security_context is not None:
        container["securityContext"] = settings.security_context
    pod: dict[str, Any] = {}
    if job.service_account_name:
        pod["serviceAccountName"] = job.service_account_name
    if settings.node_selector:
        pod["nodeSelector"] = settings.node_selector
    if settings.affinity is not None:
        pod["affinity"] = settings.affinity
    if settings.tolerations:
        pod["tolerations"] = [
            t.model_dump(by_alias=True, exclude_none=True) for t in settings.tolerations
        ]
    volumes = pod_volumes(job, settings.shared_memory)
    if volumes:
        pod["volumes"] = volumes
    if container:
        pod["containers"] = [{"name": NODE, **container}]
    if job.image_pull_secrets:
        pod["imagePullSecrets"] = [{"name": name} for name in job.image_pull_secrets]
    if newer and settings.pod_security_context is not None:
        pod["securityContext"] = settings.pod_security_context
    grace = job.termination_grace_period_seconds
    if grace is not None and target.has("trainer.terminationGracePeriodSeconds"):
        pod["terminationGracePeriodSeconds"] = grace
    template: dict[str, Any] = {}
    metadata = template_metadata(settings)
    if metadata:
        template["metadata"] = metadata
    if pod:
        template["spec"] = pod
    return template


def override_jobs(job: TrainJobSpec) -> tuple[str, ...]:
    """The runtime's jobs whose pods run the training: `node`, and on an MPI runtime
    also its `launcher`, a node itself (runLauncherAsNode in Kubeflow's MPI runtimes,
    kubeflow/trainer@v2.3.0 manifests/base/runtimes/deepspeed_distributed.yaml)."""
    return (NODE, LAUNCHER) if policy(job) == "mpi" else (NODE,)


def _placed(
    template: dict[str, Any], target: ApiTarget, jobs: tuple[str, ...]
) -> dict[str, Any]:
    """v2.1: a podTemplateOverride for the runtime's jobs; v2.2+: kgen's runtime patch
    of those replicated jobs' pod template."""
    if target.has("trainer.podTemplateOverrides"):
        targets = [{"name": name} for name in jobs]
        return {"podTemplateOverrides": [{"targetJobs": targets, **template}]}
    nodes = [
        {"name": name, "template": {"spec": {"template": template}}} for name in jobs
    ]
    patch = {"template": {"spec": {"replicatedJobs": nodes}}}
    return {
        "runtimePatches": [{"manager": PATCH_MANAGER, "trainingRuntimeSpec": patch}]
    }


def live_pointers(spec: JobSpec) -> list[str]:
    """Kueue suspends a queued TrainJob and resumes it on admission."""
    return ["/spec/suspend"] if queued(spec) else []
