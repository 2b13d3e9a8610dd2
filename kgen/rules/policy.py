"""Policy rules: what a cluster would accept but a team should not ship (floating image
tags, pods without resources, GPU pods that cannot reach GPU nodes; a kind adds its own,
such as PS pods left running). Each is silenceable with a reason (kgen.rules.catalog).
Literal secrets, which no reason excuses, are kgen.rules.secrets."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kgen.errors import DataPath, Problem
from kgen.render.requests import container_requests
from kgen.render.roles import RoleSettings, role_gpus, role_settings
from kgen.rules.claim_access import CLAIM_RULES
from kgen.rules.context import Rule, RuleContext
from kgen.rules.reads import reads
from kgen.spec.job import JobSpec, Role, role_items
from kgen.spec.pod import Resources
from kgen.spec.validate import gpu_hint


@reads("image", "roles")
def _image_pinned(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    # A TrainJob may leave its image to the runtime, which pins its own.
    images: list[tuple[str, DataPath]] = (
        [(spec.image, ("image",))] if spec.image else []
    )
    images += [
        (r.image, ("roles", name, "image")) for name, r in role_items(spec) if r.image
    ]
    for image, path in images:
        if "@" in image:
            continue
        tag = image.rsplit("/", 1)[-1].partition(":")[2]
        if tag in ("", "latest"):
            what = "is tagged latest" if tag else "has no tag"
            yield Problem(
                f"image {image} {what}, so what runs changes over time",
                "image-latest",
                path=path,
                hint="pin a version tag or a digest",
            )


@reads("resources", "roles")
def _resources_set(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    for name, role in role_items(spec):
        settings = role_settings(spec, name, role)
        missing = [
            f"requests.{k}" for k in ("cpu", "memory") if k not in settings.requests
        ]
        missing += [] if "memory" in settings.limits else ["limits.memory"]
        if not missing:
            continue
        # Point at the resources that fall short: the role's own, the job's, or the role.
        if role.resources is not None:
            where: DataPath = ("roles", name, "resources")
        elif spec.resources != Resources():
            where = ("resources",)
        else:
            where = ("roles", name)
        yield Problem(
            f"{name} pods have no {', '.join(missing)}",
            "resources-missing",
            path=where,
            at_key=True,
            hint="set requests for cpu and memory, and a memory limit",
        )


@reads(
    "resources", "roles", "nodeSelector", "tolerations", "containers", "initContainers"
)
def _gpu_placement(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    placement = ctx.gpu_placement
    if placement is None:
        return
    for name, role in role_items(spec):
        settings = role_settings(spec, name, role)
        gpu_path = _gpus_asked(spec, name, role, settings)
        if gpu_path is None:
            continue
        selected = set(settings.node_selector) & set(placement.node_selector_keys)
        tolerated = {t.key for t in settings.tolerations} & set(
            placement.toleration_keys
        )
        if not selected and not tolerated:
            keys = ", ".join(
                [*placement.node_selector_keys, *placement.toleration_keys]
            )
            yield Problem(
                f"{name} pods request GPUs but neither select nor tolerate GPU nodes",
                "gpu-placement",
                path=gpu_path,
                hint=f"add a nodeSelector or toleration for one of: {keys} (kgen.yaml gpuPlacement)",
            )


def _gpus_asked(
    spec: JobSpec, name: str, role: Role, settings: RoleSettings
) -> DataPath | None:
    """Where the role's pods ask for GPUs: the trainer's, else the first sidecar or
    init container that does (each needs a GPU node as much); None if none does."""
    gpus = spec.resources.gpu_resource
    # GPUs written in limits as `nvidia.com/gpu` are an unknown-key error already
    # (kgen.rules.pod): a warning about them would follow from a value in error.
    in_error = gpu_hint(gpus, ("resources", "limits", gpus)) is not None
    if gpus in settings.limits and not (in_error and not role_gpus(spec, name, role)):
        if role.resources and role.resources.gpu:
            return ("roles", name, "resources", "gpu")
        return ("resources", "gpu")
    own: list[tuple[DataPath, list[dict[str, Any]]]] = [
        (("roles", name, "containers"), role.containers or []),
        (("containers",), spec.containers),
        (("roles", name, "initContainers"), role.init_containers or []),
        (("initContainers",), spec.init_containers),
    ]
    for container in [*settings.containers, *settings.init_containers]:
        if container_requests(container, (gpus,)).get(gpus, 0) <= 0:
            continue
        for where, written in own:
            index = next((i for i, c in enumerate(written) if c == container), None)
            if index is not None:
                return _container_gpu_path((*where, index), container, gpus)
    return None


def _container_gpu_path(
    where: DataPath, container: dict[str, Any], gpus: str
) -> DataPath:
    resources = container.get("resources")
    limits = resources.get("limits") if isinstance(resources, dict) else None
    side = "limits" if isinstance(limits, dict) and gpus in limits else "requests"
    return (*where, "resources", side, gpus)


POLICY_RULES: tuple[Rule, ...] = (
    _image_pinned,
    _resources_set,
    _gpu_placement,
    *CLAIM_RULES,
)
