"""What `kgen import` reads of a PyTorchJob beyond what every kind shares."""

from __future__ import annotations

from typing import Any

from kgen.errors import DataPath, Problem
from kgen.kinds.pytorch import TORCHRUN
from kgen.kinds.targets import TARGETS


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
    implied = operator_auto and gpus(out) > 0
    nproc = spec.get("nprocPerNode") or ("auto" if implied else None)
    if nproc and nproc != default_nproc(out):
        fields["nprocPerNode"] = nproc
    if operator_auto and not nproc and runs_torchrun(out):
        notes.append(auto_on_cpu(("spec",), "nprocPerNode", "the operator"))
    return fields


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
