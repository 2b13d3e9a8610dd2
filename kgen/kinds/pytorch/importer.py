"""What `kgen import` reads of a PyTorchJob beyond what every kind shares."""

from __future__ import annotations

from typing import Any


def read_fields(
    spec: dict[str, Any], target: str, out: dict[str, Any]
) -> dict[str, Any]:
    """elasticPolicy as it is, and nprocPerNode where it differs from kgen's default.

    A field the input leaves out means the operator's default, which kgen's defaults do
    not always match on purpose: keep the job's meaning by writing it out (the operator
    runs torchrun with `auto` on target v1).
    """
    fields: dict[str, Any] = {}
    if spec.get("elasticPolicy") not in (None, ""):
        fields["elasticPolicy"] = spec["elasticPolicy"]
    nproc = spec.get("nprocPerNode") or ("auto" if target == "v1" else None)
    if nproc and nproc != _default_nproc(out):
        fields["nprocPerNode"] = nproc
    return fields


def _default_nproc(spec: dict[str, Any]) -> str:
    """What kgen renders without nprocPerNode (kgen.kinds.pytorch.render)."""
    gpu = (spec.get("resources") or {}).get("gpu", 0)
    return str(gpu) if gpu else "1"
