"""Rules over a validated job spec that relate several fields, whatever its kind; each
kind adds its own (kgen/kinds/<kind>/rules.py).

Each rule yields problems carrying the data path of the field to fix; the pipeline turns
paths into file:line:col through provenance, whichever file set the value.
"""

from __future__ import annotations

from collections.abc import Iterator

from kgen.check import core, core_objects
from kgen.errors import DataPath, Problem
from kgen.kinds import kind_of
from kgen.render.names import generated_names
from kgen.render.volumes import RESERVED_MOUNTS, tensorboard_source
from kgen.rules.context import Rule, RuleContext
from kgen.rules.pod import POD_RULES
from kgen.rules.policy import POLICY_RULES
from kgen.rules.reads import reads
from kgen.rules.secrets import SECRET_RULES
from kgen.rules.values import VALUE_RULES
from kgen.spec.addons import TensorBoard
from kgen.spec.job import JobSpec, role_items
from kgen.spec.pod import EnvVar, ResourceAmounts
from kgen.spec.quantity import parse_quantity

MAX_NAME = 63


@reads("env", "roles")
def _unique_env(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    yield from _unique_names(spec.env, ("env",))
    for role, settings in role_items(spec):
        yield from _unique_names(settings.env or [], ("roles", role, "env"))


def _unique_names(env: list[EnvVar], path: DataPath) -> Iterator[Problem]:
    seen: set[str] = set()
    for index, var in enumerate(env):
        if var.name in seen:
            yield Problem(
                f"environment variable '{var.name}' is set twice",
                "duplicate-env",
                path=(*path, index, "name"),
            )
        seen.add(var.name)


@reads("volumes", "sharedMemory", "codeSync")
def _unique_volumes(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    names: set[str] = set()
    paths = dict(RESERVED_MOUNTS) if spec.shared_memory else {}
    if spec.code_sync:
        paths[spec.code_sync.path] = "codeSync.path"
    for index, volume in enumerate(spec.volumes):
        if volume.name in names:
            yield Problem(
                f"volume '{volume.name}' is declared twice",
                "duplicate-volume",
                path=("volumes", index, "name"),
            )
        if volume.mount_path is not None and volume.mount_path in paths:
            user = paths[volume.mount_path]
            yield Problem(
                f"'{volume.mount_path}' is already mounted ({user})",
                "duplicate-mount-path",
                path=("volumes", index, "mountPath"),
            )
        if volume.create is not None and volume.claim is None:
            yield Problem(
                "`create` makes a PersistentVolumeClaim; name it with `claim`",
                "create-needs-claim",
                path=("volumes", index, "create"),
                at_key=True,
            )
        names.add(volume.name)
        if volume.mount_path is not None:
            paths[volume.mount_path] = f"volume '{volume.name}'"


@reads("resources.requests", "resources.limits", "roles")
def _requests_within_limits(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    yield from _within(spec.resources.requests, spec.resources.limits, ("resources",))
    for role, settings in role_items(spec):
        if settings.resources is not None:
            requests = settings.resources.requests or spec.resources.requests
            limits = settings.resources.limits or spec.resources.limits
            yield from _within(requests, limits, ("roles", role, "resources"))


def _within(
    requests: ResourceAmounts, limits: ResourceAmounts, path: DataPath
) -> Iterator[Problem]:
    for name, info in type(requests).model_fields.items():
        key = info.alias or name
        wanted, allowed = getattr(requests, name), getattr(limits, name)
        low, high = parse_quantity(wanted or ""), parse_quantity(allowed or "")
        if low is not None and high is not None and low > high:
            yield Problem(
                f"{key} request {wanted} is more than its limit {allowed}",
                "requests-exceed-limits",
                path=(*path, "requests", key),
                hint="Kubernetes rejects a pod whose request is above its limit",
            )


def _article(word: str) -> str:
    # Read as letters: an MPIJob, an XGBoostJob, a PyTorchJob, a TFJob.
    return "an" if word[0] in "AEFHILMNORSX" else "a"


@reads("roles")
def _single_roles(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    # A role of one pod (PyTorch's master, TF's chief) with more replicas; the extra
    # pods belong in the kind's first role of many.
    kind = kind_of(spec)
    many = next(role.name for role in kind.roles if role.single is None)
    for name, role in role_items(spec):
        single = kind.role(name).single
        if single is not None and role.replicas != 1:
            yield Problem(
                f"{_article(kind.kind)} {kind.kind} has {single.words} {name}, not {role.replicas}",
                single.code,
                path=("roles", name, "replicas"),
                hint=f"add the extra pods to roles.{many}.replicas instead",
            )


@reads("name", "runId", "roles", "elasticPolicy", "tensorboard")
def _generated_names_fit(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    # Pods and their headless Services are `{job}-{role}-{index}` (kubeflow-api.md §4.2);
    # a Service name is a DNS-1035 label of at most 63 characters.
    names = generated_names(spec, ctx.job_names)
    if not names:  # no roles: the kind's own rule says so
        return
    generated, what = max(names, key=lambda pair: len(pair[0]))
    if len(generated) > MAX_NAME:
        room = MAX_NAME - (len(generated) - len(spec.name))
        yield Problem(
            f"job name is too long: {what} would be named '{generated}'"
            f" ({len(generated)} characters, limit {MAX_NAME})",
            "name-too-long",
            path=("name",),
            hint=f"shorten the name to at most {room} characters",
        )


@reads("runPolicy")
def _ttl_acknowledged(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    policy = spec.run_policy
    if policy.ttl_seconds_after_finished is not None and not policy.ttl_acknowledged:
        yield Problem(
            "ttlSecondsAfterFinished deletes the job object; under GitOps self-heal it is re-created and trains again",
            "ttl-under-gitops",
            path=("runPolicy", "ttlSecondsAfterFinished"),
            at_key=True,
            hint="remove it and delete finished jobs through git, or set `ttlAcknowledged: true` if nothing re-applies this job",
        )


@reads("tensorboard", "volumes")
def _tensorboard(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    board = spec.tensorboard
    if board is None:
        return
    if tensorboard_source(spec) is None:
        yield Problem(
            f"TensorBoard's logDir {board.log_dir} is not inside a mounted claim of this job",
            "tensorboard-logdir",
            path=("tensorboard", "logDir"),
            hint="write logs under the mountPath of one of the job's claim volumes",
        )
    if board.kind == "kubeflow":
        yield from _kubeflow_board(board)
    if board.kind == "kubeflow" and board.image is not None:
        yield Problem(
            "Kubeflow's Tensorboard resource takes its image from the controller, not per object",
            "tensorboard-image",
            path=("tensorboard", "image"),
            at_key=True,
            hint="delete it for this environment (`image: null`) or use kind: deployment",
        )


# What Kubeflow's Tensorboard resource cannot say (its spec is only logspath), by field.
_KUBEFLOW_BOARD = {
    "service_type": ("serviceType", "the controller's Service is ClusterIP"),
    "requests": ("requests", "the controller sets the pod's resources"),
    "limits": ("limits", "the controller sets the pod's resources"),
}


def _kubeflow_board(board: TensorBoard) -> Iterator[Problem]:
    for field, (key, why) in _KUBEFLOW_BOARD.items():
        if field not in board.model_fields_set:
            continue
        if field == "service_type" and board.service_type == "ClusterIP":
            continue
        yield Problem(
            f"Kubeflow's Tensorboard resource has no {key}: {why}",
            "tensorboard-kubeflow-field",
            path=("tensorboard", key),
            at_key=True,
            hint=f"delete it for this environment (`tensorboard: {{{key}: null}}`) or use kind: deployment",
        )


@reads("affinity", "securityContext", "podSecurityContext", "roles")
def _kube_objects(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    checks: list[tuple[object, str, DataPath]] = [
        (spec.affinity, core.AFFINITY, ("affinity",)),
        (spec.security_context, core.SECURITY_CONTEXT, ("securityContext",)),
        (
            spec.pod_security_context,
            core.POD_SECURITY_CONTEXT,
            ("podSecurityContext",),
        ),
    ]
    checks += [
        (r.affinity, core.AFFINITY, ("roles", name, "affinity"))
        for name, r in role_items(spec)
    ]
    for value, definition, path in checks:
        if value is not None:
            yield from core_objects.check_object(
                value, definition, path=path, version=ctx.kubernetes_version
            )


SPEC_RULES: tuple[Rule, ...] = (
    _unique_env,
    _unique_volumes,
    _requests_within_limits,
    _single_roles,
    _generated_names_fit,
    _ttl_acknowledged,
    _tensorboard,
    _kube_objects,
)


def check_spec(spec: JobSpec, ctx: RuleContext | None = None) -> list[Problem]:
    """Structural rules, the kind's own (kgen/kinds/<kind>/rules.py), the rules over
    every value (control characters, credentials: kgen.rules.values,
    kgen.rules.secrets), then policy rules (kgen.rules.policy)."""
    context = ctx or RuleContext()
    return [problem for rule in spec_rules(spec) for problem in rule(spec, context)]


def spec_rules(spec: JobSpec) -> tuple[Rule, ...]:
    """The rules of `spec`, in the order their findings are reported."""
    kind = kind_of(spec)
    rules = _BY_KIND.get(kind.package)
    if rules is None:
        rules = _BY_KIND[kind.package] = (
            *SPEC_RULES,
            *POD_RULES,
            *kind.rules(),
            *VALUE_RULES,
            *SECRET_RULES,
            *POLICY_RULES,
        )
    return rules


# Each kind's rules (by its package), made once: reuse (kgen.rules.reuse) keys on them.
_BY_KIND: dict[str, tuple[Rule, ...]] = {}
