"""A variable the job sets that the operator sets too, on the environment's release.

The training operators append their variables after the container's own env
(docs/env-contract.md; kubeflow-api.md §6.2, §6.3), and Kubernetes keeps the last of two
variables of one name: the job's value never reaches the process. A RANK or
MASTER_ADDR the job sets is dead configuration, and a PYTHONUNBUFFERED=1 the job sets is
turned back to 0 on training-operator 1.4 to 1.6. Which names collide depends on the
release, so this is checked per environment, against the kind's own env contract. A
value equal to the operator's in every pod of the role is left alone, and so is a
variable the operator adds only where the container has none (`Replica.if_absent`).
Which containers get the variables is the contract's `where`: every container, the one
of a name, or the first (MPIJob); the containers a patch writes are checked against the
same contract (kgen.render.patched_pods). The first container is the one first after
the patches: where a patch puts another there, the job's main container gets nothing,
and a sidecar of the job's that ends up first gets the variables.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import TYPE_CHECKING, Any

from kgen.errors import DataPath, Problem
from kgen.render.base import Environment
from kgen.spec.job import JobSpec, role_items
from kgen.spec.pod import EnvVar

if TYPE_CHECKING:
    from kgen.kinds.base import Kind

# Pods compared per role: the operator's names are the same in each, and a value that
# differs between pods (RANK, TF_CONFIG) differs from the job's in one of the first.
SHOWN = 8
CODE = "operator-env"
EVERY_CONTAINER = "every container"
FIRST_CONTAINER = "first container"
SHORT_VALUE = 40

# Per role: each variable the operator sets there, with the values it gives its pods.
ByRole = dict[str, dict[str, set[str]]]
# Per role of a patched job: the name of the container first in its pod template after
# the patches (None when it has none), whether a patch put it there, and the names of
# its variables a patch wrote (kgen.render.patched_pods reports those, at the patch).
First = dict[str, tuple[str | None, bool, frozenset[str]]]


def operator_env_problems(
    kind: Kind, spec: JobSpec, env: Environment, first: First | None = None
) -> list[Problem]:
    """The job's variables the operator of `env`'s target overrides; `first` is what
    the patches left first in each pod template, None without patches."""
    if not kind.appends_env or not _may_collide(spec):
        return []
    by_role, where = contract(kind, spec, env)
    moved = {
        role: found
        for role, found in (first or {}).items()
        if where.get(role) == FIRST_CONTAINER
        and not _main_first(kind, spec, role, found)
    }
    problems = list(_collisions(spec, env, by_role, skip=moved.keys()))
    if EVERY_CONTAINER in where.values():
        problems += _sidecar_collisions(spec, env, by_role)
    for role, (name, _, written) in moved.items():
        problems += _first_sidecar(spec, env, by_role, role, name, written)
    return problems


def _main_first(
    kind: Kind, spec: JobSpec, role: str, found: tuple[str | None, bool, frozenset[str]]
) -> bool:
    """Whether the job's main container is still first in `role`'s pods: no patch put
    another there, and the one there is not one of the job's sidecars (a merge's
    `$patch: delete` took the main one out). A patch may rename it."""
    name, placed, _ = found
    if placed or name is None:
        return False
    return name == kind.container or not _sidecar(spec, role, name)


def contract(
    kind: Kind, spec: JobSpec, env: Environment
) -> tuple[ByRole, dict[str, str]]:
    """What the operator sets in each role's pods, and in which of their containers."""
    name = f"{spec.name}-{spec.run_id}" if spec.run_id else spec.name
    pods = kind.env_contract(spec, env, name=name, limit=SHOWN)
    by_role: ByRole = {}
    where: dict[str, str] = {}
    for role, _ in role_items(spec):
        values = by_role.setdefault(role, {})
        for pod in pods:
            # `{job}-{role}-{index}`; MPIJob's launcher is `{job}-launcher`.
            if pod.pod == f"{name}-{role}" or pod.pod.startswith(f"{name}-{role}-"):
                where.setdefault(role, pod.where)
                for variable, value in pod.env.items():
                    if variable not in pod.if_absent:
                        values.setdefault(variable, set()).add(value)
    return by_role, where


def receives(where: str, index: int, container: Any) -> bool:
    """Whether the pod's container at `index` of `containers` gets the variables."""
    if where == EVERY_CONTAINER:
        return True
    if where == FIRST_CONTAINER:
        return index == 0
    named = where.removeprefix("container ")
    return (
        named != where
        and isinstance(container, dict)
        and container.get("name") == named
    )


# Every name some release of these operators sets, or starts with (tested against
# their env contracts): a job that sets none of them, most jobs, costs one pass over its
# env names, not the contract of its pods.
OPERATOR_NAMES = frozenset(
    {
        "PYTHONUNBUFFERED",
        "MASTER_PORT",
        "MASTER_ADDR",
        "WORLD_SIZE",
        "RANK",
        "TF_CONFIG",
        "WORKER_PORT",
        "WORKER_ADDRS",
        "COORDINATOR_PORT",
        "COORDINATOR_ADDRESS",
        "NUM_PROCESSES",
        "PROCESS_ID",
        "POD_IP_DUMMY",
        # MPIJob (kgen.kinds.mpi.env).
        "K_MPI_JOB_ROLE",
        "NVIDIA_VISIBLE_DEVICES",
        "NVIDIA_DRIVER_CAPABILITIES",
    }
)
OPERATOR_PREFIXES = ("PET_", "PADDLE_", "OMPI_MCA_", "I_MPI_", "HYDRA_")


def may_collide(name: str) -> bool:
    """Whether some release of some operator sets a variable of this name."""
    return name in OPERATOR_NAMES or name.startswith(OPERATOR_PREFIXES)


def _may_collide(spec: JobSpec) -> bool:
    names = [var.name for var in spec.env]
    for _, settings in role_items(spec):
        names += [var.name for var in settings.env or []]
        names += _sidecar_names(settings.containers or [])
    names += _sidecar_names(spec.containers)
    return any(map(may_collide, names))


def _sidecar_names(containers: list[Any]) -> list[str]:
    return [
        var["name"]
        for c in containers
        if isinstance(c, dict) and isinstance(c.get("env"), list)
        for var in c["env"]
        if isinstance(var, dict) and isinstance(var.get("name"), str)
    ]


def _collisions(
    spec: JobSpec, env: Environment, by_role: ByRole, skip: Collection[str]
) -> Iterator[Problem]:
    """The main container's: the job's env and each role's, but in the roles of
    `skip`, whose main container a patch moved from first place."""
    own = {
        role: {v.name for v in settings.env or []}
        for role, settings in role_items(spec)
    }
    for index, var in enumerate(spec.env):
        roles = [r for r in by_role if var.name not in own[r] and r not in skip]
        yield from problem(_pair(var), ("env", index), roles, by_role, env)
    for role, settings in role_items(spec):
        if role in skip:
            continue
        for index, var in enumerate(settings.env or []):
            path = ("roles", role, "env", index)
            yield from problem(_pair(var), path, [role], by_role, env)


def _sidecar_collisions(
    spec: JobSpec, env: Environment, by_role: ByRole
) -> Iterator[Problem]:
    """Where the operator fills every container, a sidecar's (`containers:`) env too;
    never an init container's."""
    places: list[tuple[DataPath, list[Any], list[str]]] = [
        (("containers",), spec.containers, list(by_role))
    ]
    for role, settings in role_items(spec):
        places.append(
            (("roles", role, "containers"), settings.containers or [], [role])
        )
    for path, containers, roles in places:
        for index, container in enumerate(containers):
            variables = container.get("env") if isinstance(container, dict) else None
            for at, var in enumerate(variables or []):
                if isinstance(var, dict) and isinstance(var.get("name"), str):
                    pair = (var["name"], var.get("value"))
                    where = (*path, index, "env", at)
                    yield from problem(pair, where, roles, by_role, env)


def _first_sidecar(
    spec: JobSpec,
    env: Environment,
    by_role: ByRole,
    role: str,
    name: str | None,
    written: frozenset[str],
) -> Iterator[Problem]:
    """A sidecar of the job's that the patches left first in `role`'s pods: its
    variables a patch did not write."""
    found = _sidecar(spec, role, name) if name is not None else None
    if found is None:
        return
    path, container = found
    variables = container.get("env")
    for at, var in enumerate(variables if isinstance(variables, list) else []):
        named = isinstance(var, dict) and isinstance(var.get("name"), str)
        if named and var["name"] not in written:
            pair = (var["name"], var.get("value"))
            yield from problem(pair, (*path, "env", at), [role], by_role, env)


def _sidecar(
    spec: JobSpec, role: str, name: str
) -> tuple[DataPath, dict[str, Any]] | None:
    """The job's sidecar of `name` in `role`'s pods, and its path: the role's
    `containers:` over the job's."""
    settings = dict(role_items(spec))[role]
    places: list[tuple[DataPath, list[Any]]] = [
        (("roles", role, "containers"), settings.containers or []),
        (("containers",), spec.containers),
    ]
    for path, containers in places:
        for index, container in enumerate(containers):
            if isinstance(container, dict) and container.get("name") == name:
                return (*path, index), container
    return None


def _pair(var: EnvVar) -> tuple[str, str | None]:
    return var.name, var.value


def problem(
    var: tuple[str, Any],
    path: DataPath,
    roles: list[str],
    by_role: ByRole,
    env: Environment,
) -> Iterator[Problem]:
    """The error for variable `var` (name, value) at `path` in the pods of `roles`, if
    the operator overrides it there."""
    name, value = var
    hit = [r for r in roles if _overridden(value, by_role[r].get(name))]
    if not hit:
        return
    values = sorted(set().union(*(by_role[r][name] for r in hit)))
    short = len(values) == 1 and len(values[0]) <= SHORT_VALUE
    shown = f" ({name}={values[0]})" if short else ""
    pods = " and ".join(hit)
    yield Problem(
        f"{name} is set by {env.target.release_name} in the {pods} pods{shown}: "
        "the operator appends it after the job's env and Kubernetes keeps the last, so the job's value never reaches the process",
        CODE,
        path=(*path, "name"),
        hint="remove it; `kgen explain JOB --env ENV` lists what each pod gets",
    )


def _overridden(value: Any, operator: set[str] | None) -> bool:
    if operator is None:
        return False
    return not isinstance(value, str) or operator != {value}
