"""What `kgen import` reads of a PyTorchJob beyond what every kind shares."""

from __future__ import annotations

from typing import Any

from kgen.kinds.targets import TARGETS


def read_fields(
    spec: dict[str, Any], target: str, out: dict[str, Any]
) -> dict[str, Any]:
    """elasticPolicy as it is, and nprocPerNode where it differs from kgen's default.

    A field the input leaves out means the operator's default, which kgen's defaults do
    not always match on purpose: keep the job's meaning by writing it out (from
    training-operator 1.7 the operator runs torchrun with `auto`). On pods without
    GPUs `auto` starts one process per CPU core, which kgen refuses (nproc-auto-on-cpu):
    there the import leaves it out, and kgen renders 1, so the project validates.
    """
    fields: dict[str, Any] = {}
    if spec.get("elasticPolicy") not in (None, ""):
        fields["elasticPolicy"] = spec["elasticPolicy"]
    known = TARGETS.get(target)
    implied = known is not None and known.has("nprocPerNode") and _gpus(out) > 0
    nproc = spec.get("nprocPerNode") or ("auto" if implied else None)
    if nproc and nproc != _default_nproc(out):
        fields["nprocPerNode"] = nproc
    return fields


def _gpus(spec: dict[str, Any]) -> int:
    roles = spec.get("roles") or {}
    counts = [
        (settings.get("resources") or {}).get("gpu") or 0
        for settings in roles.values()
        if isinstance(settings, dict)
    ]
    own = (spec.get("resources") or {}).get("gpu") or 0
    return int(max([own, *counts]))


def _default_nproc(spec: dict[str, Any]) -> str:
    """What kgen renders without nprocPerNode (kgen.kinds.pytorch.render)."""
    gpu = _gpus(spec)
    return str(gpu) if gpu else "1"
