"""A claim the job creates for one node, mounted by pods that may run on several
(claim-rwo-many-pods).

`create:` asks for ReadWriteOnce unless it says otherwise, and a ReadWriteOnce volume
attaches to one node at a time: a second pod on another node waits in
ContainerCreating with a Multi-Attach error (the attach/detach controller lets a
volume attach to several nodes only with ReadWriteMany or ReadOnlyMany among its
modes: kubernetes/kubernetes pkg/volume/util/util.go IsMultiAttachAllowed). ReadWriteOncePod is stricter still: the scheduler runs one pod of the claim and
keeps every other Pending. Every pod of a job mounts every volume of it, and kgen's
TensorBoard Deployment mounts the logs' claim. Kubeflow's Tensorboard is not counted:
its controller pins it to the node of a pod that mounts a ReadWriteOnce claim
(RWO_PVC_SCHEDULING, kubeflow-api.md §10).

Only claims the job creates are checked: kgen does not know an existing claim's modes.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from kgen.errors import DataPath, Problem
from kgen.kinds import kind_of
from kgen.render.volumes import tensorboard_source
from kgen.rules.context import Rule, RuleContext
from kgen.rules.reads import reads
from kgen.spec.job import JobSpec, role_items
from kgen.spec.storage import Volume

# Modes under which a volume attaches to many nodes at once.
_MANY_NODES = frozenset({"ReadWriteMany", "ReadOnlyMany"})


@reads("volumes", "roles", "elasticPolicy", "tensorboard")
def _claim_on_one_node(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    created = [
        (index, volume)
        for index, volume in enumerate(spec.volumes)
        if volume.create is not None and volume.claim is not None
    ]
    if not created:
        return
    pods = _pods(spec)
    source = tensorboard_source(spec)
    board = spec.tensorboard is not None and spec.tensorboard.kind == "deployment"
    for index, volume in created:
        assert volume.create is not None
        modes = volume.create.access_modes
        if _MANY_NODES.intersection(modes):
            continue
        users = list(pods)
        if board and source is not None and source.volume is volume:
            users.append(("TensorBoard", 1))
        if sum(count for _, count in users) > 1:
            yield _problem(volume, index, modes, users)


def _pods(spec: JobSpec) -> list[tuple[str, int]]:
    """Each role as shown (`worker 3`; an elastic one at its most, `worker up to 8`,
    as kgen.pipeline.facts counts it) and its pods."""
    kind = kind_of(spec)
    limit = kind.scale_limit(spec)
    out = []
    for name, role in role_items(spec):
        count = role.replicas
        if limit is not None and kind.role(name).scaled:
            count = max(count, limit or count)
        upto = "up to " if count != role.replicas else ""
        out.append((f"{name} {upto}{count}", count))
    return out


def _problem(
    volume: Volume, index: int, modes: Sequence[str], users: list[tuple[str, int]]
) -> Problem:
    assert volume.create is not None
    # At the modes where they are written, else at `create`, whose default they are.
    written = "access_modes" in volume.create.model_fields_set
    path: DataPath = ("volumes", index, "create", *(["accessModes"] if written else []))
    many = "ask for `accessModes: [ReadWriteMany]` (of a storage class that offers it)"
    if "ReadWriteOncePod" in modes:
        mode, outcome = "ReadWriteOncePod", "one runs and the others stay Pending"
        hint = f"{many}, or mount the claim in one pod only"
    else:
        mode, outcome = "ReadWriteOnce", "those on a second node hang in Multi-Attach"
        hint = f"{many}, or mount it in one pod only (ReadWriteOncePod then says so)"
    count = sum(n for _, n in users)
    shown = ", ".join(name for name, _ in users)
    return Problem(
        f"claim {volume.claim} is created {mode} and mounted by {count} pods ({shown}): {outcome}",
        "claim-rwo-many-pods",
        path=path,
        at_key=True,
        hint=hint,
    )


CLAIM_RULES: tuple[Rule, ...] = (_claim_on_one_node,)
