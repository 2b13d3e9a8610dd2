"""The records a kind declares and reports: its roles and the pods the operator
creates (kgen.kinds.base, which kinds import them from)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from kgen.errors import DataPath, Problem
    from kgen.spec.job import JobSpec

    # A kind's rule over one rendered pod template: the job's spec, the role (its
    # `roles:` key) and the pod's spec; each problem with its path in that pod spec.
    PodRule = Callable[
        [JobSpec, str, dict[str, Any]], Iterator[tuple[DataPath, Problem]]
    ]


# Records are NamedTuples: Python 3.11 compiles a frozen dataclass's methods from source
# as its module is imported (0.5 ms a class).
class SingleRole(NamedTuple):
    """A role of one pod: more replicas are the error `code`, worded as `words`."""

    code: str
    words: str  # "exactly one" (PyTorch's master), "at most one" (TF's chief)


class RoleDef(NamedTuple):
    """One replica type of a kind, in the order the output lists them."""

    name: str  # the key under `roles:` in a spec
    key: str  # the replica type in the output
    description: str
    example_replicas: int
    single: SingleRole | None = None
    # A role without GPUs unless its own resources ask (a parameter server).
    gpu_by_default: bool = True
    # A role whose pods serve until deleted (a parameter server): the job's pods are
    # cleaned up once it ends unless the spec says otherwise (cleanPodPolicy Running).
    never_exits: bool = False
    # The role an autoscaler scales (elastic PyTorch workers).
    scaled: bool = False


class Replica(NamedTuple):
    """One pod the operator will create, and the variables it injects."""

    pod: str
    env: dict[str, str]
    # Why `env` is empty, when it is (`kgen explain` says so).
    why_empty: str = ""
    # Which of the pod's containers get `env` ("every container", "container tensorflow",
    # "first container").
    where: str = ""
    # Pods of the same role left out just before this one (kgen explain's limit).
    skipped: int = 0
    # Files the operator writes into the pod (an MPI hostfile): path and lines.
    files: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # What the runtime is and what it does not set, said once before the pods.
    note: str = ""
    # Variables of `env` the operator adds only to a container without one of that
    # name (MPIJob v1's I_MPI_HYDRA_BOOTSTRAP_EXEC): the job's own is kept, never
    # overridden (kgen.render.operator_env).
    if_absent: frozenset[str] = frozenset()


def shown_indices(replicas: int, limit: int | None) -> list[tuple[int, int]]:
    """The pod indices a role shows, each with the pods left out before it: all, or
    past `limit` the first `limit - 1` and the last (`kgen explain` stays linear)."""
    if limit is None or replicas <= limit:
        return [(index, 0) for index in range(replicas)]
    return [
        *((index, 0) for index in range(limit - 1)),
        (replicas - 1, replicas - limit),
    ]
