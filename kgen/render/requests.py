"""A pod's effective request, as Kubernetes charges it: what the scheduler reserves on a
node and what a ResourceQuota's `requests.*` counts for the pod.

The rule is k8s.io/component-helpers resource.PodRequests (the sidecar KEP 753's
"resources calculation for scheduling and pod admission"): the regular containers and
the native sidecars (init containers with `restartPolicy: Always`) add up; an ordinary
init container runs beside the sidecars started before it, and the pod needs at least
the most any of those moments needs; the pod's `overhead` comes on top. A container
that gives a resource a limit and no request requests its limit (the API server's
defaulting), which is how a GPU, an extended resource set as a limit, is requested.
kgen renders no pod-level `resources`, so they are not read.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from kgen.render.pod import git_sync_container
from kgen.spec.quantity import parse_quantity, quantity_text

if TYPE_CHECKING:
    from kgen.render.roles import RoleSettings
    from kgen.spec.job import JobSpec

Amounts = dict[str, Decimal]


def pods_requests(
    pods: list[tuple[int, dict[str, Any]]], *, gpu: str
) -> tuple[int, int, Decimal, Decimal]:
    """Pods, GPUs (of the extended resource `gpu`), CPU and memory that `pods`, each
    a count and a PodSpec, request together."""
    count = gpus = 0
    cpu = memory = Decimal(0)
    names = ("cpu", "memory", gpu)  # only these are counted: only these are parsed
    for replicas, pod in pods:
        wanted = pod_requests(pod, names)
        count += replicas
        gpus += replicas * int(wanted.get(gpu, 0))
        cpu += replicas * wanted.get("cpu", Decimal(0))
        memory += replicas * wanted.get("memory", Decimal(0))
    return count, gpus, cpu, memory


def pod_requests(pod: Mapping[str, Any], names: tuple[str, ...]) -> Amounts:
    """The effective request of each of the resources `names` of one pod (its
    PodSpec)."""
    containers = _items(pod.get("containers"))
    inits = _items(pod.get("initContainers"))
    if len(containers) == 1 and not inits and "overhead" not in pod:
        return container_requests(containers[0], names)  # the trainer alone
    total: Amounts = {}
    for container in containers:
        _add(total, container_requests(container, names))
    sidecars: Amounts = {}
    init_peak: Amounts = {}
    for container in inits:
        own = container_requests(container, names)
        if container.get("restartPolicy") == "Always":
            # A sidecar runs for the pod's life, and beside every init container after it.
            _add(total, own)
            _add(sidecars, own)
            _raise_to(init_peak, sidecars)
        else:
            running = dict(sidecars)
            _add(running, own)
            _raise_to(init_peak, running)
    _raise_to(total, init_peak)
    overhead = pod.get("overhead")
    if isinstance(overhead, Mapping):
        _add(total, _amounts(overhead, names))
    return total


def container_requests(container: Mapping[str, Any], names: tuple[str, ...]) -> Amounts:
    """A container's requests of the resources `names`, each it only limits at its
    limit."""
    resources = container.get("resources")
    if not isinstance(resources, Mapping):
        return {}
    limits = resources.get("limits")
    requests = resources.get("requests")
    out = _amounts(limits, names) if isinstance(limits, Mapping) else {}
    if isinstance(requests, Mapping):
        out.update(_amounts(requests, names))
    return out


def _items(value: Any) -> list[Mapping[str, Any]]:
    # The core check refuses what is not a list of mappings; until then, skip it.
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, Mapping)]


def _amounts(values: Mapping[Any, Any], names: tuple[str, ...]) -> Amounts:
    out: Amounts = {}
    for name in names:
        if name in values:
            amount = _quantity(values[name])
            if amount is not None:
                out[name] = amount
    return out


def _quantity(value: Any) -> Decimal | None:
    """A quantity as written in a container (`cpu: 2`, `cpu: 500m`), else None: a
    value the core check refuses counts for nothing here."""
    try:
        return parse_quantity(quantity_text(value))
    except ValueError:
        return None


def _add(total: Amounts, more: Mapping[str, Decimal]) -> None:
    for name, amount in more.items():
        total[name] = total.get(name, Decimal(0)) + amount


def _raise_to(total: Amounts, floor: Mapping[str, Decimal]) -> None:
    for name, amount in floor.items():
        if amount > total.get(name, Decimal(0)):
            total[name] = amount


def role_pod(spec: JobSpec, settings: RoleSettings) -> dict[str, Any]:
    """The containers of one role's pod as kgen renders them (kgen.render.pod), with
    only what the request reads: the trainer with the role's resources, the sidecars,
    git-sync and the init containers."""
    trainer = {"resources": {"requests": settings.requests, "limits": settings.limits}}
    init = [git_sync_container(spec.code_sync)] if spec.code_sync is not None else []
    return {
        "containers": [trainer, *settings.containers],
        "initContainers": [*init, *settings.init_containers],
    }
