"""Volumes: existing or created PersistentVolumeClaims, ConfigMaps, Secrets, and every
other core volume source as a core object."""

from typing import Any, ClassVar, Literal

from pydantic import Field

from kgen.spec.base import OneOf, SpecModel
from kgen.spec.fields import AbsolutePath, DnsLabel, ObjectName, Quantity, SubPath

AccessMode = Literal[
    "ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"
]


# The core volume sources kgen takes as core objects (checked by kgen.check.core against
# the definition named here), by spec key.
CORE_SOURCES: tuple[str, ...] = (
    "empty_dir",
    "host_path",
    "projected",
    "csi",
    "ephemeral",
    "nfs",
)
SOURCE_DEFINITIONS: dict[str, tuple[str, str]] = {
    "empty_dir": ("emptyDir", "io.k8s.api.core.v1.EmptyDirVolumeSource"),
    "host_path": ("hostPath", "io.k8s.api.core.v1.HostPathVolumeSource"),
    "projected": ("projected", "io.k8s.api.core.v1.ProjectedVolumeSource"),
    "csi": ("csi", "io.k8s.api.core.v1.CSIVolumeSource"),
    "ephemeral": ("ephemeral", "io.k8s.api.core.v1.EphemeralVolumeSource"),
    "nfs": ("nfs", "io.k8s.api.core.v1.NFSVolumeSource"),
}
CoreSource = dict[str, Any]


def _read_write_once() -> list[AccessMode]:
    return ["ReadWriteOnce"]


class ClaimSpec(SpecModel):
    """Create the claim: kgen renders a PersistentVolumeClaim named after `claim`, which
    Argo CD never prunes or deletes (it holds training data)."""

    size: Quantity = Field(description="Requested storage.", examples=["100Gi"])
    storage_class: str | None = Field(
        None,
        description="StorageClass; the cluster default if unset.",
        examples=["nfs-client"],
    )
    access_modes: list[AccessMode] = Field(
        default_factory=_read_write_once,
        min_length=1,
        description="Use ReadWriteMany when several pods mount it (workers, TensorBoard on other nodes): with ReadWriteOnce kgen warns (claim-rwo-many-pods).",
        examples=[["ReadWriteMany"]],
    )
    volume_mode: Literal["Filesystem", "Block"] = Field(
        "Filesystem",
        description="Filesystem or raw block device.",
        examples=["Filesystem"],
    )


class Volume(OneOf):
    """A volume of every replica: a claim (existing or `create`d), a ConfigMap, a Secret,
    or a core volume source (emptyDir, hostPath, projected, csi, ephemeral, nfs). With a
    `mountPath` the trainer mounts it; sidecars mount it by name in their volumeMounts."""

    _sources: ClassVar[tuple[str, ...]] = (
        "claim",
        "config_map",
        "secret",
        *CORE_SOURCES,
    )
    _what: ClassVar[str] = "a volume"

    name: DnsLabel = Field(
        description="Volume name, unique in the job.", examples=["data"]
    )
    mount_path: AbsolutePath | None = Field(
        None,
        description="Where it appears in the trainer; none for a sidecar's volume.",
        examples=["/data"],
    )
    sub_path: SubPath | None = Field(
        None, description="Mount only this folder of the volume.", examples=["run-7"]
    )
    read_only: bool = Field(False, description="Mount read-only.", examples=[True])
    claim: ObjectName | None = Field(
        None,
        description="A PersistentVolumeClaim (existing, or made by `create`).",
        examples=["mnist-data"],
    )
    create: ClaimSpec | None = Field(
        None,
        description="Create the claim (see below).",
        examples=[{"size": "20Gi", "accessModes": ["ReadWriteMany"]}],
    )
    config_map: ObjectName | None = Field(
        None, description="A ConfigMap's keys as files.", examples=["train-config"]
    )
    secret: ObjectName | None = Field(
        None, description="A Secret's keys as files.", examples=["gcs-writer-key"]
    )
    empty_dir: CoreSource | None = Field(
        None,
        description="Scratch space: an EmptyDirVolumeSource.",
        examples=[{"medium": "Memory", "sizeLimit": "1Gi"}],
    )
    host_path: CoreSource | None = Field(
        None,
        description="A node's folder: a HostPathVolumeSource (a policy rule).",
        examples=[{"path": "/mnt/nvme", "type": "Directory"}],
    )
    projected: CoreSource | None = Field(
        None,
        description="A ProjectedVolumeSource.",
        examples=[{"sources": [{"serviceAccountToken": {"path": "token"}}]}],
    )
    csi: CoreSource | None = Field(
        None,
        description="A CSIVolumeSource.",
        examples=[{"driver": "gcsfuse.csi.storage.gke.io"}],
    )
    ephemeral: CoreSource | None = Field(
        None,
        description="An EphemeralVolumeSource (a claim per pod).",
        examples=[
            {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"]}}}
        ],
    )
    nfs: CoreSource | None = Field(
        None,
        description="An NFSVolumeSource.",
        examples=[{"server": "nfs.example.com", "path": "/exports/data"}],
    )
