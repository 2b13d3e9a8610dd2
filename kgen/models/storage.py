"""Volumes: existing or created PersistentVolumeClaims, ConfigMaps and Secrets."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from kgen.fields import AbsolutePath, DnsLabel, ObjectName, Quantity, SubPath
from kgen.models.base import OneOf, SpecModel

AccessMode = Literal[
    "ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"
]


def _read_write_once() -> list[AccessMode]:
    return ["ReadWriteOnce"]


class ClaimSpec(SpecModel):
    """Create the claim (kgen renders a PersistentVolumeClaim named after `claim`)."""

    size: Quantity
    storage_class: str | None = None
    access_modes: list[AccessMode] = Field(
        default_factory=_read_write_once, min_length=1
    )
    volume_mode: Literal["Filesystem", "Block"] = "Filesystem"


class Volume(OneOf):
    """Mount a volume into every replica: a claim (existing or `create`d), a ConfigMap or a Secret."""

    _sources = ("claim", "config_map", "secret")
    _what = "a volume"

    name: DnsLabel
    mount_path: AbsolutePath
    sub_path: SubPath | None = None
    read_only: bool = False
    claim: ObjectName | None = None
    create: ClaimSpec | None = None
    config_map: ObjectName | None = None
    secret: ObjectName | None = None
