"""`kgen import`, the PersistentVolumeClaims among the inputs: a job that mounts one
creates it (`create:`), and what it has beyond that is kept as a patch
(kgen.importer.leftover), compared with the claim of the job's own folder where there
is one; a claim no imported job creates goes to resources/ whole, never dropped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgen.errors import Problem
from kgen.importer.beside import Beside, beside_object
from kgen.load.document import Document


def beside(
    claims: dict[str, list[Document]], job: Document
) -> dict[tuple[str, str], Document]:
    """Each claim by kind and name: the one in the job's folder, else the last read
    (the one whose spec `create:` was read from)."""
    folder = Path(job.file).parent
    return {
        ("PersistentVolumeClaim", name): next(
            (d for d in docs if Path(d.file).parent == folder), docs[-1]
        )
        for name, docs in claims.items()
    }


def unclaimed(
    claims: dict[str, list[Document]],
    specs: list[dict[str, Any]],
    problems: list[Problem],
) -> list[Beside]:
    """The claims no imported job creates, as objects beside the jobs (their names
    checked as any object's, since they name files)."""
    created = {
        volume.get("claim")
        for spec in specs
        for holder in [spec, *(spec.get("roles") or {}).values()]
        for volume in holder.get("volumes") or []
        if isinstance(volume, dict) and "create" in volume
    }
    found = [
        beside_object(doc, problems)
        for name, docs in sorted(claims.items())
        if name not in created
        for doc in docs
    ]
    return [obj for obj in found if obj is not None]


def claim_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """A claim's spec as a volume's `create:` says it."""
    out: dict[str, Any] = {
        "size": str(
            ((spec.get("resources") or {}).get("requests") or {}).get("storage", "1Gi")
        )
    }
    if "storageClassName" in spec:
        out["storageClass"] = spec["storageClassName"]
    if spec.get("accessModes") and spec["accessModes"] != ["ReadWriteOnce"]:
        out["accessModes"] = spec["accessModes"]
    if spec.get("volumeMode") == "Block":
        out["volumeMode"] = "Block"
    return out
