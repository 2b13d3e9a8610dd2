"""Which spec value produced a place in a rendered TrainJob (kgen.check.trace asks the
kind, which has no replica specs): an error in the output points at the job's line."""

from __future__ import annotations

from kgen.errors import DataPath
from kgen.kinds.trainer.importer import PATCHED_POD, V21_POD

_TRAINER: dict[str, DataPath] = {
    "image": ("image",),
    "command": ("command",),
    "args": ("args",),
    "env": ("env",),
    "numNodes": ("roles",),
    "resourcesPerNode": ("resources",),
    "numProcPerNode": ("trainJob", "numProcPerNode"),
}
_POD: dict[str, str] = {
    "affinity": "affinity",
    "nodeSelector": "nodeSelector",
    "tolerations": "tolerations",
    "volumes": "volumes",
    "securityContext": "podSecurityContext",
    "serviceAccountName": "serviceAccountName",
    "imagePullSecrets": "imagePullSecrets",
    "terminationGracePeriodSeconds": "terminationGracePeriodSeconds",
}
_OWN = ("runtimeRef", "suspend", "managedBy")
# On an MPI runtime the same pod template also patches the launcher, the second job.
_LAUNCHER_POD = (*PATCHED_POD[:6], 1, *PATCHED_POD[7:])


def spec_path(out: DataPath) -> DataPath:
    """The spec path of `out`, a path under the TrainJob's `spec`."""
    field, rest = str(out[0]), out[1:]
    if field == "trainer" and rest:
        found = _TRAINER.get(str(rest[0]), ("image",))
        return (*found, *rest[1:]) if found[0] in ("env", "resources") else found
    if field == "initializer":
        return ("trainJob", "initializer", *rest[:2])
    if field in _OWN:
        return ("trainJob", field)
    if field == "activeDeadlineSeconds":
        return ("runPolicy", field)
    for prefix in (V21_POD, PATCHED_POD, _LAUNCHER_POD):
        if out[: len(prefix)] == prefix:
            return _pod(out[len(prefix) :])
    return (field,)


def _pod(out: DataPath) -> DataPath:
    if out[:2] == ("metadata", "labels"):
        return ("podLabels",)
    if out[:2] == ("metadata", "annotations"):
        return ("podAnnotations",)
    if out[:1] != ("spec",) or len(out) < 2:
        return ()
    field = str(out[1])
    if field == "containers":
        inner = out[3:4]
        return (
            ("securityContext", *out[4:])
            if inner == ("securityContext",)
            else ("volumes",)
        )
    name = _POD.get(field, field)
    return (name, *out[2:]) if name in ("affinity", "podSecurityContext") else (name,)
