"""Pod volumes and mounts, created claims, and where TensorBoard finds the logs."""

from __future__ import annotations

import posixpath
from typing import Any, NamedTuple

from kgen.spec.job import JobSpec
from kgen.spec.storage import SOURCE_DEFINITIONS, Volume

SHM_VOLUME = "dshm"
CODE_VOLUME = "code-sync"
RESERVED_MOUNTS = {"/dev/shm": "sharedMemory"}
# Created claims outlive the job and hold training data: Argo CD must neither prune them
# nor delete them with the app (argo-cd docs, sync-options.md). No sync wave either:
# a PVC in an earlier wave deadlocks with WaitForFirstConsumer (kubeflow-api.md §8.2).
CLAIM_SYNC_OPTIONS = {"argocd.argoproj.io/sync-options": "Prune=false,Delete=false"}


def pod_volumes(spec: JobSpec, shared_memory: str | None) -> list[dict[str, Any]]:
    volumes = [{"name": v.name, **_source(v)} for v in spec.volumes]
    if shared_memory:
        volumes.append(
            {
                "name": SHM_VOLUME,
                "emptyDir": {"medium": "Memory", "sizeLimit": shared_memory},
            }
        )
    if spec.code_sync:
        volumes.append({"name": CODE_VOLUME, "emptyDir": {}})
    return volumes


def _source(volume: Volume) -> dict[str, Any]:
    for name, (key, _definition) in SOURCE_DEFINITIONS.items():
        value = getattr(volume, name)
        if value is not None:
            return {key: value}
    if volume.config_map is not None:
        return {"configMap": {"name": volume.config_map}}
    if volume.secret is not None:
        return {"secret": {"secretName": volume.secret}}
    return {"persistentVolumeClaim": {"claimName": volume.claim}}


def container_mounts(spec: JobSpec, shared_memory: str | None) -> list[dict[str, Any]]:
    """The trainer's mounts: each volume with a mountPath (a sidecar's own volume has
    none), shared memory and the code."""
    mounts = [mount(v) for v in spec.volumes if v.mount_path is not None]
    if shared_memory:
        mounts.append({"name": SHM_VOLUME, "mountPath": "/dev/shm"})
    if spec.code_sync:
        mounts.append({"name": CODE_VOLUME, "mountPath": spec.code_sync.path})
    return mounts


def mount(volume: Volume, *, read_only: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"name": volume.name, "mountPath": volume.mount_path}
    if volume.sub_path:
        out["subPath"] = volume.sub_path
    if volume.read_only or read_only:
        out["readOnly"] = True
    return out


def claim_body(volume: Volume, meta: dict[str, Any]) -> dict[str, Any]:
    create = volume.create
    assert create is not None
    spec: dict[str, Any] = {"accessModes": list(create.access_modes)}
    if create.storage_class is not None:
        spec["storageClassName"] = create.storage_class
    spec["volumeMode"] = create.volume_mode
    spec["resources"] = {"requests": {"storage": create.size}}
    annotations = dict(
        sorted({**meta.get("annotations", {}), **CLAIM_SYNC_OPTIONS}.items())
    )
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {**meta, "annotations": annotations},
        "spec": spec,
    }


class LogSource(NamedTuple):
    """The claim volume holding TensorBoard's logDir, and the logDir's path inside the
    claim. A NamedTuple: a frozen dataclass's methods were compiled from source at
    import."""

    volume: Volume
    path_in_claim: str


def tensorboard_source(spec: JobSpec) -> LogSource | None:
    if spec.tensorboard is None:
        return None
    log_dir = posixpath.normpath(spec.tensorboard.log_dir)
    best: Volume | None = None
    for volume in spec.volumes:
        if volume.mount_path is None:
            continue
        root = posixpath.normpath(volume.mount_path)
        inside = log_dir == root or log_dir.startswith(root.rstrip("/") + "/")
        if (
            volume.claim is not None
            and inside
            and (best is None or len(root) > len(best.mount_path or ""))
        ):
            best = volume
    if best is None:
        return None
    relative = posixpath.relpath(log_dir, posixpath.normpath(best.mount_path or "/"))
    parts = [p for p in (best.sub_path, "" if relative == "." else relative) if p]
    return LogSource(best, "/".join(parts))
