"""What `kgen import` reads of a PyTorchJob beyond what every kind shares."""

from __future__ import annotations

from typing import Any

from kgen.errors import DataPath, Problem, printable, shortened
from kgen.kinds.pytorch import KIND, TORCHRUN
from kgen.kinds.pytorch.launch import Launch, command_line, launch
from kgen.kinds.targets import TARGETS
from kgen.spec.validate import MAX_QUOTED


def read_fields(
    spec: dict[str, Any], target: str, out: dict[str, Any], notes: list[Problem]
) -> dict[str, Any]:
    """elasticPolicy as it is, and nprocPerNode where it differs from kgen's default.

    A field the input leaves out means the operator's default, which kgen's defaults do
    not always match on purpose: keep the job's meaning by writing it out (from
    training-operator 1.7 the operator runs torchrun with `auto`). On pods without
    GPUs `auto` starts one process per CPU core, which kgen refuses (nproc-auto-on-cpu):
    there the import leaves it out, kgen renders 1, and the import says so.
    """
    fields: dict[str, Any] = {}
    if spec.get("elasticPolicy") not in (None, ""):
        fields["elasticPolicy"] = spec["elasticPolicy"]
    known = TARGETS.get(target)
    operator_auto = known is not None and known.has("nprocPerNode")
    at, started = _started(spec)
    # torchrun's own --nproc_per_node wins over the operator's PET_NPROC_PER_NODE.
    count = started.nproc if operator_auto else None
    implied = operator_auto and gpus(out) > 0
    nproc = spec.get("nprocPerNode") or count or ("auto" if implied else None)
    if nproc and nproc != default_nproc(out):
        fields["nprocPerNode"] = nproc
    if operator_auto and not spec.get("nprocPerNode"):
        notes += unread_count(
            started, out, at=at, job_at=("spec",), key="nprocPerNode", by="the operator"
        )
    return fields


def unread_count(
    started: Launch,
    out: dict[str, Any],
    *,
    at: DataPath,
    job_at: DataPath,
    key: str,
    by: str,
) -> list[Problem]:
    """What the import says of a process count the job leaves to `by` (the operator,
    the runtime), which runs torchrun with auto: where the command line passes one kgen
    cannot read, or runs a script it cannot look into (at the command line, `at`), or
    starts torchrun without one on pods without GPUs (auto_on_cpu, at the job's `job_at`)."""
    if started.nproc is not None:
        return []
    if started.unread is not None:
        return [_unread(at, started.unread, key, default_nproc(out))]
    if gpus(out):  # auto is the GPUs, kgen's default too
        return []
    if started.script is not None:
        return [_unseen(at, started.script, key, by)]
    if started.torchrun or runs_torchrun(out):
        return [auto_on_cpu(job_at, key, by)]
    return []


def _quoted(text: str) -> str:
    """A word of the command line, as a message quotes a value: 200 characters."""
    return printable(shortened(text, MAX_QUOTED))


def _unread(at: DataPath, value: str, key: str, default: str) -> Problem:
    return Problem(
        f"torchrun's process count is {_quoted(value)} on the command line, which"
        f" kgen cannot read; the spec says {key} {default}",
        "import-default-differs",
        path=at,
        hint=f"set {key} to the count it holds, so kgen explain and the rules see the"
        " processes each pod starts",
        severity="warning",
    )


def _unseen(at: DataPath, script: str, key: str, by: str) -> Problem:
    return Problem(
        f"the command runs {_quoted(script)}, which kgen cannot look into: if it"
        f" starts torchrun without --nproc_per_node, {by}'s auto starts one process"
        " per CPU core on pods without GPUs; kgen renders 1",
        "import-default-differs",
        path=at,
        hint=f"set {key} to the processes each pod should start (`auto` keeps {by}'s)",
        severity="warning",
    )


def _started(spec: dict[str, Any]) -> tuple[DataPath, Launch]:
    """What the first trainer container whose command line says anything of torchrun
    says, and where its command (or args) is."""
    roles = spec.get(KIND.replica_key)
    for role, body in (roles if isinstance(roles, dict) else {}).items():
        pod = ((body or {}).get("template") or {}).get("spec") or {}
        for index, container in enumerate(pod.get("containers") or []):
            if container.get("name") != KIND.container:
                continue
            found = launch(
                command_line(container.get("command"), container.get("args"))
            )
            if found != Launch():
                key = "command" if container.get("command") else "args"
                base = ("spec", KIND.replica_key, role, "template", "spec")
                return (*base, "containers", index, key), found
    return ("spec",), Launch()


def auto_on_cpu(path: DataPath, key: str, by: str) -> Problem:
    """A process count left to torchrun's `auto` on pods without GPUs, which kgen's
    spec does not say (nproc-auto-on-cpu): kgen renders 1 instead."""
    return Problem(
        f"the process count is left to {by}, which runs torchrun with auto: one process"
        " per CPU core on pods without GPUs; kgen renders 1",
        "import-default-differs",
        path=path,
        hint=f"set {key} to the processes each pod should start (auto started one per"
        " CPU core of its node)",
        severity="warning",
    )


def runs_torchrun(spec: dict[str, Any]) -> bool:
    """Whether the imported job's command names torchrun, the one reader of the count
    (without it WORLD_SIZE counts pods alike with `auto` and 1)."""
    roles = [r for r in (spec.get("roles") or {}).values() if isinstance(r, dict)]
    words = [
        word
        for part in (spec, *roles)
        for key in ("command", "args")
        for word in part.get(key) or []
    ]
    return any(name in str(word) for word in words for name in TORCHRUN)


def gpus(spec: dict[str, Any]) -> int:
    roles = spec.get("roles") or {}
    counts = [
        (settings.get("resources") or {}).get("gpu") or 0
        for settings in roles.values()
        if isinstance(settings, dict)
    ]
    own = (spec.get("resources") or {}).get("gpu") or 0
    return int(max([own, *counts]))


def default_nproc(spec: dict[str, Any]) -> str:
    """What kgen renders without nprocPerNode (kgen.kinds.pytorch.render)."""
    gpu = gpus(spec)
    return str(gpu) if gpu else "1"
