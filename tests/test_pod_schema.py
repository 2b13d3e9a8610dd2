"""A release's CRD embeds the pod template of the Kubernetes its operator was built
with, and a structural CRD prunes what that template lacks: a pod field newer than it
fails validate for that target, naming the release (kgen.kinds.targets POD_SCHEMA).

The facts: the k8s.io/api of each release's go.mod, from which controller-gen writes
the CRD's pod template; for a minor line, its oldest patch release's. Pull requests in
kubeflow/trainer (formerly training-operator) and kubeflow/mpi-operator; where the
saved upstream CRDs (../shared/reference/crds) can hold a fact, a test below does.
- training-operator v1.3.0 (k8s.io/api 0.19), v1.4.0, v1.5.0 (0.24, #1604): older
  than the oldest Kubernetes kgen has definitions of, checked as 1.25.
- v1.6.0: 0.25 (kubeflow/common#198, for #1684); its CRDs (v1.6.0:manifests/base/crds)
  have no pod field newer than 1.25.
- v1.7.0: 0.27 (CHANGELOG.md v1.7.0-rc.0, "Upgrade the kubernetes dependencies to
  v1.27", #1834; the 1.28 bump #1920 is in v1.8.0).
- v1.8.0, v1.8.1: 0.29 (CHANGELOG.md v1.8.0, #2038, #2039 "Support K8s v1.29").
- v1.9.0 to v1.9.3: 0.31.3 (CHANGELOG.md v1.9.0, #2330); v1.9.4: 0.36.3 (#3924, the
  release-1.9 branch regenerating its CRDs): the saved v1.9.4 CRDs accept every 1.31
  field.
- mpi-operator v0.8.0: 0.35.1 (mpi-operator#769); its CRD's pod template is 1.35's.
- Kubeflow Trainer v2.1.0: 0.34 (CHANGELOG.md v2.1.0, #2804); v2.2.0: 0.35 (#3127);
  v2.2.1 and v2.3.0 moved to 0.36 (#3514), but their TrainJob's pod parts
  (podTemplateOverrides, runtimePatches) hold nothing 1.35 lacks: checked as 1.35.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kgen.check.core import definitions, supported_versions
from kgen.kinds.targets import TARGETS, pod_schema_version
from tests.conftest import SHARED, RunKgen

CRDS = SHARED / "crds"
oracle = pytest.mark.skipif(
    not CRDS.is_dir(), reason="../shared/reference/crds is not present"
)


def _pod_spec(schema: Any) -> dict[str, Any] | None:
    """The first schema below `schema` with a pod's `containers` and `volumes`."""
    if isinstance(schema, dict):
        if {"containers", "volumes"} <= set(schema.get("properties") or {}):
            return schema
        children = list(schema.values())
    elif isinstance(schema, list):
        children = schema
    else:
        return None
    for child in children:
        found = _pod_spec(child)
        if found is not None:
            return found
    return None


def _fields(
    schema: Any, defs: dict[str, Any], path: str = "", depth: int = 0
) -> set[str]:
    """Every field path below a schema (`.containers[].restartPolicy`), through
    `$ref`s; not into an object's metadata (CRDs keep only its type)."""
    while isinstance(schema, dict) and "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[-1]]
    found: set[str] = set()
    if not isinstance(schema, dict) or depth > 14:
        return found
    for key, inner in (schema.get("properties") or {}).items():
        found.add(f"{path}.{key}")
        if key != "metadata":
            found |= _fields(inner, defs, f"{path}.{key}", depth + 1)
    if isinstance(schema.get("items"), dict):
        found |= _fields(schema["items"], defs, f"{path}[]", depth + 1)
    if isinstance(schema.get("additionalProperties"), dict):
        found |= _fields(schema["additionalProperties"], defs, f"{path}{{}}", depth + 1)
    return found


def _crd_pod_fields(name: str) -> set[str]:
    crd = next(d for d in yaml.safe_load_all((CRDS / name).read_text()) if d)
    schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    pod = _pod_spec(schema)
    assert pod is not None
    return _fields(pod, {})


def _kubernetes_pod_fields(version: str) -> set[str]:
    defs = definitions(version)
    return _fields(defs["io.k8s.api.core.v1.PodSpec"], defs)


def _next(version: str) -> str:
    known = supported_versions()
    return known[known.index(version) + 1]


# CRD file, the target it is the oracle of, and whether it is the oldest release of
# that target's line (then kgen's claim must be exactly its pod template).
FULL_POD_TEMPLATES = [
    ("pytorchjob-v1-training-operator-1.6.yaml", "training-operator-1.6", False),
    ("tfjob-v1-training-operator-1.6.yaml", "training-operator-1.6", False),
    ("pytorchjob-v1.yaml", "training-operator-1.9", False),
    ("tfjob-v1.yaml", "training-operator-1.9", False),
    ("mpijob-v2beta1-mpi-operator-0.8.0.yaml", "mpi-operator", True),
]


@oracle
@pytest.mark.parametrize(("crd", "target", "oldest"), FULL_POD_TEMPLATES)
def test_kgen_accepts_no_pod_field_the_release_crd_prunes(
    crd: str, target: str, oldest: bool
) -> None:
    claimed = TARGETS[target].pod_schema
    assert claimed is not None
    crd_fields = _crd_pod_fields(crd)
    assert _kubernetes_pod_fields(claimed) - crd_fields == set()
    if oldest:  # and no older than it need be
        assert _kubernetes_pod_fields(_next(claimed)) - crd_fields != set()


# TrainJob CRDs embed parts of a pod (podTemplateOverrides, runtimePatches): each has
# a field its claimed Kubernetes has and the one before lacks, and none newer.
TRAINJOBS = [
    ("trainjob-trainer-v2.1.0.yaml", "trainer-v2.1"),
    ("trainjob-trainer-v2.2.1.yaml", "trainer-v2.2"),
    ("trainjob-trainer-v2.3.0.yaml", "trainer-v2.3"),
]


@oracle
@pytest.mark.parametrize(("crd", "target"), TRAINJOBS)
def test_trainjob_pod_parts_are_of_the_claimed_kubernetes(
    crd: str, target: str
) -> None:
    claimed = TARGETS[target].pod_schema
    assert claimed is not None
    known = supported_versions()
    before = known[known.index(claimed) - 1]
    crd_fields = _crd_pod_fields(crd)
    assert crd_fields - _kubernetes_pod_fields(claimed) == set()
    assert crd_fields - _kubernetes_pod_fields(before) != set()


def test_the_cluster_older_than_the_release_wins() -> None:
    assert pod_schema_version("training-operator-1.6", "1.35") == "1.25"
    assert pod_schema_version("training-operator-1.6", "1.25") == "1.25"
    assert pod_schema_version("mpi-operator", "1.30") == "1.30"
    # The operators before training-operator: CRDs without a pod schema prune nothing.
    assert pod_schema_version("v1-legacy", "1.35") == "1.35"
    assert pod_schema_version("v1beta2", "1.35") == "1.35"


# appArmorProfile arrived in Kubernetes 1.30 (KEP-24).
APP_ARMOR_JOB = """
    framework: pytorch
    image: registry.example.com/train:1
    command: [torchrun, /app/train.py]
    podSecurityContext:
      appArmorProfile: {type: RuntimeDefault}
    resources:
      requests: {cpu: "1", memory: 1Gi}
      limits: {memory: 1Gi}
    roles:
      master: {replicas: 1}
"""


def _release_project(project: Any, target: str, extra: str = "") -> Path:
    return project(
        {
            "kgen.yaml": f"""
                environments:
                  prod: {{overlays: [release], namespace: ml}}
                {extra}
            """,
            "overlays/release.yaml": f"target: {target}\npatch: {{nprocPerNode: null}}\n",
            "jobs/native.yaml": APP_ARMOR_JOB,
        },
        base={},
    )


def test_a_newer_pod_field_on_training_operator_1_6_fails_naming_the_release(
    project: Any, run_kgen: RunKgen
) -> None:
    root = _release_project(project, "training-operator-1.6")
    result = run_kgen("validate", cwd=root)
    assert result.code == 1, result
    assert result.err == (
        "jobs/native.yaml:5:20: error: the rendered PyTorchJob 'native' is invalid at"
        " spec.pytorchReplicaSpecs.Master.template.spec.securityContext.appArmorProfile:"
        " unknown field: the PyTorchJob CRD of training-operator 1.6 has the pod"
        " template of Kubernetes 1.25, which has no such property (output-schema)\n"
        "    hint: the API server prunes it without a word; remove it for this"
        " environment in an overlay, or use a target whose CRD has it:"
        " training-operator-1.9\n"
        "kgen: 1 error in 1 file\n"
    )


NATIVE_SIDECAR_JOB = """
    framework: pytorch
    image: registry.example.com/train:1
    resources:
      requests: {cpu: "1", memory: 1Gi}
      limits: {memory: 1Gi}
    initContainers:
      - {name: logs, image: "registry.example.com/fluent-bit:3", restartPolicy: Always}
    roles:
      master: {replicas: 1}
"""


def test_a_native_sidecar_on_v1_names_the_releases_that_keep_it(
    project: Any, run_kgen: RunKgen
) -> None:
    # `v1` (the default, training-operator 1.7's CRD) embeds Kubernetes 1.27's pod
    # template; 1.8 embeds 1.29's and 1.9 1.31's, both with an init container's
    # restartPolicy (Kubernetes 1.28). The hint names those targets, not a Kubernetes
    # version no target is named after.
    root = project(
        {
            "kgen.yaml": "environments:\n  prod: {overlays: [release], namespace: ml}\n",
            "overlays/release.yaml": "target: v1\n",
            "jobs/native.yaml": NATIVE_SIDECAR_JOB,
        },
        base={},
    )
    result = run_kgen("validate", cwd=root)
    assert result.code == 1, result
    assert result.err == (
        "jobs/native.yaml:7:77: error: the rendered PyTorchJob 'native' is invalid at"
        " spec.pytorchReplicaSpecs.Master.template.spec.initContainers[0].restartPolicy:"
        " unknown field: the PyTorchJob CRD of training-operator 1.7 has the pod"
        " template of Kubernetes 1.27, which has no such property (output-schema)\n"
        "    hint: the API server prunes it without a word; remove it for this"
        " environment in an overlay, or use a target whose CRD has it:"
        " training-operator-1.8, training-operator-1.9\n"
        "kgen: 1 error in 1 file\n"
    )


def test_the_same_field_on_a_release_that_has_it_is_valid(
    project: Any, run_kgen: RunKgen
) -> None:
    root = _release_project(project, "training-operator-1.9")
    result = run_kgen("validate", cwd=root)
    assert result.code == 0, result


@oracle
def test_a_field_the_release_crd_also_lacks_is_said_once(
    project: Any, run_kgen: RunKgen
) -> None:
    root = _release_project(project, "training-operator-1.6")
    crd = root / "crds" / "pytorchjob-1.6.yaml"
    crd.parent.mkdir()
    crd.write_bytes((CRDS / "pytorchjob-v1-training-operator-1.6.yaml").read_bytes())
    alone = run_kgen("validate", cwd=root)
    result = run_kgen("validate", "--crd", "crds/pytorchjob-1.6.yaml", cwd=root)
    assert result.code == 1, result
    assert result.err == alone.err
