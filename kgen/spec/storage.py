"""Volumes: existing or created PersistentVolumeClaims, ConfigMaps and Secrets."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from kgen.spec.base import OneOf, SpecModel
from kgen.spec.fields import AbsolutePath, DnsLabel, ObjectName, Quantity, SubPath

AccessMode = Literal[
    "ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"
]


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
        description="Use ReadWriteMany when several pods write (workers, TensorBoard on other nodes).",
        examples=[["ReadWriteMany"]],
    )
    volume_mode: Literal["Filesystem", "Block"] = Field(
        "Filesystem",
        description="Filesystem or raw block device.",
        examples=["Filesystem"],
    )


class Volume(OneOf):
    """Mount a volume into every replica: a claim (existing or `create`d), a ConfigMap or a Secret."""

    _sources: ClassVar[tuple[str, ...]] = ("claim", "config_map", "secret")
    _what: ClassVar[str] = "a volume"

    name: DnsLabel = Field(
        description="Volume name, unique in the job.", examples=["data"]
    )
    mount_path: AbsolutePath = Field(
        description="Where it appears in the container.", examples=["/data"]
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
