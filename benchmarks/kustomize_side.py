"""kustomize on the same work as kgen: from kgen's output for one environment (prod-gpu)
as the base, one overlay per environment of generate.KGEN_YAML that must yield kgen's
output for that environment, object for object. Each overlay holds a few patches, one
per change and kind, each targeted by selector (`target: {kind: PyTorchJob}`), as a
team would write them; a patch per job would make kustomize scan every object once per
job and time that instead.

Before anything is timed, each overlay's output is compared with kgen's, object by
object (objects.differences); any difference stops the bench.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from objects import differences, objects_of, tree_objects

BASE_ENV = "prod-gpu"
BASE_NAMESPACE = "ml-prod"
# The container and the roles of each kind in generate.py's jobs (index 0: one container).
ROLES = {
    "PyTorchJob": ("pytorch", "Master", "Worker"),
    "TFJob": ("tf", "Chief", "Worker"),
}
ALL_ROLES = {"PyTorchJob": ("Master", "Worker"), "TFJob": ("Chief", "Worker", "PS")}
GPU_LIMIT = "resources/limits/nvidia.com~1gpu"


def cpu_ops(kind: str, *, nproc: bool) -> list[str]:
    """From the GPU pool to CPU: no GPU limit, node selector or toleration."""
    short, *gpu_roles = ROLES[kind]
    replicas = f"/spec/{short}ReplicaSpecs"
    ops = [
        f"{{op: remove, path: {replicas}/{role}/template/spec/containers/0/{GPU_LIMIT}}}"
        for role in gpu_roles
    ]
    for role in ALL_ROLES[kind]:
        ops.append(
            f"{{op: remove, path: {replicas}/{role}/template/spec/nodeSelector}}"
        )
        ops.append(f"{{op: remove, path: {replicas}/{role}/template/spec/tolerations}}")
    if nproc and kind == "PyTorchJob":
        ops.append("{op: replace, path: /spec/nprocPerNode, value: '1'}")
    return ops


def old_api_ops(kind: str, *, api: str | None) -> list[str]:
    """From v1 to the v1-legacy (Kubeflow 1.2) or v1beta2 shape: run fields at the top
    of spec, no nprocPerNode."""
    ops = [
        "{op: move, from: /spec/runPolicy/cleanPodPolicy, path: /spec/cleanPodPolicy}",
        "{op: remove, path: /spec/runPolicy}",
    ]
    if kind == "PyTorchJob":
        ops.append("{op: remove, path: /spec/nprocPerNode}")
    if api is not None:
        ops.append(f"{{op: replace, path: /apiVersion, value: kubeflow.org/{api}}}")
    return ops


def patch(target: str, ops: list[str]) -> str:
    body = "".join(f"\n    - {op}" for op in ops)
    return f"- target: {{{target}}}\n  patch: |-{body}\n"


def env_ops(env: str, kind: str) -> list[str]:
    """The JSON 6902 operations that turn a prod-gpu object of `kind` into env's."""
    if env == "dev-cpu":
        return cpu_ops(kind, nproc=True)
    if env == "kf12-gpu":
        return old_api_ops(kind, api=None)
    if env == "kf06-cpu":
        return cpu_ops(kind, nproc=False) + old_api_ops(kind, api="v1beta2")
    return []


def overlays() -> dict[str, str]:
    """kustomization.yaml of each environment's overlay, by environment name."""
    result = {}
    namespaces = {"dev-cpu": "namespace: ml-dev\n", "kf12-gpu": "namespace: kubeflow\n"}
    for env in (BASE_ENV, "dev-cpu", "kf12-gpu", "kf06-cpu"):
        patches = "".join(
            patch(f"kind: {kind}", env_ops(env, kind))
            for kind in ROLES
            if env_ops(env, kind)
        )
        if env == "kf06-cpu":  # no namespace in that environment
            patches += patch(
                f"namespace: {BASE_NAMESPACE}",
                ["{op: remove, path: /metadata/namespace}"],
            )
        text = "resources: [../base]\n" + namespaces.get(env, "")
        result[env] = text + (f"patches:\n{patches}" if patches else "")
    return result


def set_up(manifests: Path, work: Path) -> list[Path]:
    """The base and the overlays under `work`; the overlay folders, in order."""
    shutil.copytree(manifests / BASE_ENV, work / "base")
    folders = []
    for env, text in overlays().items():
        folder = work / env
        folder.mkdir()
        (folder / "kustomization.yaml").write_text(text)
        folders.append(folder)
    return folders


def check_same_objects(kubectl: str, manifests: Path, folders: list[Path]) -> int:
    """Render each overlay once and compare it with kgen's environment; the object
    count compared. Raises SystemExit with the differences when any."""
    compared = 0
    for folder in folders:
        rendered = subprocess.run(
            [kubectl, "kustomize", str(folder)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        expected = tree_objects(manifests / folder.name)
        found = differences(expected, objects_of([rendered]))
        if found:
            shown = "\n  ".join(found[:20])
            raise SystemExit(
                f"bench: kustomize's {folder.name} is not kgen's ({len(found)}"
                f" differences):\n  {shown}"
            )
        compared += len(expected)
    return compared


def command(kubectl: str, folders: list[Path]) -> list[str]:
    """One process that renders every overlay, as kgen's build renders every
    environment in one."""
    script = " && ".join(f"'{kubectl}' kustomize '{f}' > /dev/null" for f in folders)
    return ["sh", "-c", script]
