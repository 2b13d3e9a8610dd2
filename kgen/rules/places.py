"""The job and each of its roles, with the pod fields each sets: one walk over a spec
that the pod, security and secrets rules share.

Each of those rules walked the job and its roles on its own, asking every place for
its containers, ports, security contexts, node selector and tolerations, and nearly
every spec sets none of them (a cold build of 1,000 jobs: six walks of each job's
first merged spec, a fifth of its rules' time). Here the job's and each role's fields
are read once, and a rule visits only the places that set what it reads, in the same
order as before: the job first, then the roles in the order the kind declares them.

A field counts as set when its value is truthy: an empty list or mapping holds nothing
a rule would report. Kept for the last spec asked about (by identity, held, so its id
is not reused), as kgen.spec.role_list keeps its roles.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import BaseModel

from kgen.errors import DataPath
from kgen.spec.job import role_items

if TYPE_CHECKING:
    from kgen.spec.job import JobSpec

# The fields the rules ask a place for, by attribute: what kgen.rules.pod checks as
# core objects, what kgen.rules.pod_security reads, and where
# kgen.rules.secret_keys finds values under secret-like names.
FIELDS = frozenset(
    {
        "liveness_probe",
        "readiness_probe",
        "startup_probe",
        "lifecycle",
        "dns_config",
        "security_context",
        "pod_security_context",
        "containers",
        "init_containers",
        "ports",
        "host_aliases",
        "topology_spread_constraints",
        "node_selector",
        "tolerations",
        "affinity",
    }
)


class Place(NamedTuple):
    """The job (path `()`) or one role (`("roles", name)`), and the FIELDS it sets
    (truthy), by attribute, in the order of its model's fields."""

    owner: Any
    path: DataPath
    set: dict[str, Any]


_LAST: list[Any] = [None, ()]


def places(spec: JobSpec) -> tuple[Place, ...]:
    """The job, then each role it sets; shared, so no caller may change them."""
    last = _LAST
    if last[0] is not spec:
        owners: list[tuple[Any, DataPath]] = [(spec, ())]
        owners += [(role, ("roles", name)) for name, role in role_items(spec)]
        last[:] = (spec, tuple(_place(owner, path) for owner, path in owners))
    found: tuple[Place, ...] = last[1]
    return found


def _place(owner: Any, path: DataPath) -> Place:
    # A model's fields are in its __dict__, in the order of its fields.
    values = owner.__dict__
    model = type(owner)
    asked = _ASKED.get(model)
    if asked is None:
        asked = _ASKED[model] = tuple(n for n in model.model_fields if n in FIELDS)
    return Place(owner, path, {a: v for a in asked if (v := values.get(a))})


# The FIELDS of each model, in the order of its fields.
_ASKED: dict[type[BaseModel], tuple[str, ...]] = {}


def setting(spec: JobSpec, *attrs: str) -> list[Place]:
    """The places that set any of `attrs`; none for most specs."""
    return [p for p in places(spec) if any(a in p.set for a in attrs)]
