"""What a job spec says that a TrainJob on a given trainer release cannot hold: each an
error at the key that says it, naming the target, never a silent drop.

A TrainJob has one pod template for all its nodes, which its runtime supplies; the job
overrides it only through the release's override mechanism, whose fields are in
kubeflow/trainer@v2.1.0 (PodTemplateOverride: serviceAccountName, nodeSelector,
affinity, tolerations, volumes, initContainers/containers as env and volumeMounts of
existing containers, schedulingGates, imagePullSecrets) and @v2.2.1/@v2.3.0
(RuntimePatch's PodSpecPatch: the same plus securityContext of the pod and of its
containers; terminationGracePeriodSeconds from v2.3.0), all in
pkg/apis/trainer/v1alpha1/trainjob_types.go. The runtime's containers come from the
runtime: a TrainJob cannot add one (its `containers` and `initContainers` only patch
containers the runtime has).
"""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import BaseModel
from pydantic.alias_generators import to_camel

from kgen.errors import DataPath, Problem
from kgen.kinds.targets import TRAINER_ARRIVED, ApiTarget
from kgen.kinds.trainer.spec import TrainJobSpec
from kgen.render.runpolicy import overlay_patch
from kgen.spec.job import role_items

CODE = "trainjob-cannot-map"
# Job keys no TrainJob holds, and why.
_NEVER: dict[str, str] = {
    "elastic_policy": "a TrainJob has no elastic training",
    "nproc_per_node": "a TrainJob takes trainJob.numProcPerNode instead",
    "image_pull_policy": "the override mechanism has no imagePullPolicy",
    "working_dir": "the override mechanism has no workingDir",
    "env_from": "the override mechanism has no envFrom",
    "containers": "a TrainJob cannot add containers to its runtime's pods",
    "init_containers": "a TrainJob cannot add init containers to its runtime's pods",
    "code_sync": "codeSync needs an init container, which a TrainJob cannot add",
    "ports": "the override mechanism has no container ports",
    "liveness_probe": "the override mechanism has no probes",
    "readiness_probe": "the override mechanism has no probes",
    "startup_probe": "the override mechanism has no probes",
    "lifecycle": "the override mechanism has no lifecycle hooks",
    "runtime_class_name": "the override mechanism has no runtimeClassName",
    "dns_policy": "the override mechanism has no dnsPolicy",
    "dns_config": "the override mechanism has no dnsConfig",
    "host_aliases": "the override mechanism has no hostAliases",
    "topology_spread_constraints": "the override mechanism has no topologySpreadConstraints",
    "host_network": "the override mechanism has no hostNetwork",
    "host_ipc": "the override mechanism has no hostIPC",
    "host_pid": "the override mechanism has no hostPID",
    "priority_class_name": "the override mechanism has no priorityClassName",
    "scheduler_name": "the override mechanism has no schedulerName",
}
_RUN_POLICY: dict[str, str] = {
    "clean_pod_policy": "a TrainJob has no cleanPodPolicy (JobSet cleans up)",
    "backoff_limit": "a TrainJob has no backoffLimit (the runtime's JobSet failurePolicy decides)",
    "ttl_seconds_after_finished": "a TrainJob has no ttlSecondsAfterFinished",
    "scheduling_policy": "a TrainJob's gang scheduling is the runtime's podGroupPolicy",
}
# Job keys only some releases hold: the feature of kgen.kinds.targets that carries them.
_SINCE: dict[str, str] = {
    "security_context": "trainer.securityContext",
    "pod_security_context": "trainer.securityContext",
    "termination_grace_period_seconds": "trainer.terminationGracePeriodSeconds",
}
# Role keys a TrainJob can take: the pod count (numNodes sums them).
_ROLE_KEYS = {"replicas"}
_ROLE_WHY = {"restart_policy": "the runtime's JobSet decides restarts"}


def unmappable(spec: TrainJobSpec, target: ApiTarget) -> list[Problem]:
    return [
        *_job_keys(spec, target),
        *_run_policy(spec, target),
        *_roles(spec, target),
        *_train_job(spec, target),
    ]


def _set(value: object) -> bool:
    return value is not None and value is not False and value != [] and value != {}


def _key(model: BaseModel, name: str) -> str:
    """The YAML key of `model`'s field `name` (`hostPID`, not `hostPid`)."""
    return type(model).model_fields[name].alias or to_camel(name)


def _job_keys(spec: TrainJobSpec, target: ApiTarget) -> Iterator[Problem]:
    for name, why in _NEVER.items():
        if _set(getattr(spec, name)):
            yield cannot_map((_key(spec, name),), target, why)
    for name, feature in _SINCE.items():
        if _set(getattr(spec, name)) and not target.has(feature):
            yield cannot_map((_key(spec, name),), target, _not_yet(feature, target))


def _not_yet(feature: str, target: ApiTarget) -> str:
    since = TRAINER_ARRIVED[feature]
    version = f"{since[0]}.{since[1]}"
    return f"it arrived in Kubeflow Trainer {version} (target trainer-v{version})"


def _run_policy(spec: TrainJobSpec, target: ApiTarget) -> Iterator[Problem]:
    policy = spec.run_policy
    for name, why in _RUN_POLICY.items():
        if getattr(policy, name) is not None:
            yield cannot_map(("runPolicy", _key(policy, name)), target, why)
    deadline = "trainer.activeDeadlineSeconds"
    if policy.active_deadline_seconds is not None and not target.has(deadline):
        why = _not_yet(deadline, target)
        yield cannot_map(("runPolicy", "activeDeadlineSeconds"), target, why)


def _roles(spec: TrainJobSpec, target: ApiTarget) -> Iterator[Problem]:
    for name, role in role_items(spec):
        for key in type(role).model_fields:
            if key not in _ROLE_KEYS and _set(getattr(role, key)):
                why = _ROLE_WHY.get(key, "every node of a TrainJob runs the same pod")
                yield cannot_map(("roles", name, _key(role, key)), target, why)


def _train_job(spec: TrainJobSpec, target: ApiTarget) -> Iterator[Problem]:
    nproc = spec.train_job.num_proc_per_node
    names = "trainer.numProcPerNode.names"
    if nproc is not None and not nproc.isdigit() and not target.has(names):
        why = "from Kubeflow Trainer 2.2 numProcPerNode is a number"
        yield cannot_map(("trainJob", "numProcPerNode"), target, why)


def cannot_map(path: DataPath, target: ApiTarget, why: str) -> Problem:
    """`path` has no place in a TrainJob on `target`: the overlay patch that removes it."""
    return Problem(
        f"{path[-1]} cannot be expressed in a TrainJob for {target.release_name}: {why}",
        CODE,
        path=path,
        at_key=True,
        hint=f"remove it for this environment in an overlay (`{overlay_patch(path)}`) or keep the job on a training-operator target",
    )
