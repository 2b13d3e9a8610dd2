"""Keys written as Kubernetes names them where kgen names them otherwise: the hint
points at kgen's key, with the user's own value in it."""

from __future__ import annotations

from typing import Any

from kgen.errors import DataPath
from kgen.spec.hidden import value_at

# A volume source kgen takes by its own name: Kubernetes key -> (kgen key, the
# Kubernetes field that holds the name).
_VOLUME_SOURCES = {
    "persistentVolumeClaim": ("claim", "claimName"),
}


def kubernetes_key_hint(key: str, loc: DataPath, data: Any) -> str | None:
    """The hint for `key`, unknown at `loc`, if it is a Kubernetes volume source kgen
    names otherwise (`persistentVolumeClaim: {claimName: d}` is `claim: d`)."""
    if key not in _VOLUME_SOURCES or len(loc) < 3 or loc[-3] != "volumes":
        return None
    ours, field = _VOLUME_SOURCES[key]
    source = value_at(data, loc)
    name = source.get(field) if isinstance(source, dict) else None
    shown = name if isinstance(name, str) and name else "<name>"
    return f"write `{ours}: {shown}` in the volume; kgen renders it as {key}.{field}"
