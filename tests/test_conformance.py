"""Every rendered job against the real upstream CRDs (../shared/reference/crds), used as an
oracle only in tests; and the v1beta2/v1beta1 field sets of kubeflow-api.md §2.3.

Output for training-operator 1.3-1.6 is checked against the 1.6 CRDs
(kubeflow/trainer@v1.6.0:manifests/base/crds), output for 1.7 and later against the
1.9.4 CRDs: the environment's target (from kgen.yaml and its overlays) picks the CRD,
never the output itself.

Unknown fields count as errors: a structural CRD makes the API server prune them silently,
so a misplaced field would vanish from the cluster without a word.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from tests.conftest import REPO, SHARED

CRDS = SHARED / "crds"
pytestmark = pytest.mark.skipif(
    not CRDS.is_dir(), reason="../shared/reference/crds is not present"
)

OUTPUT_ROOTS = [
    REPO / "manifests",
    *sorted((REPO / "tests" / "cases" / "positive").glob("*/expected")),
]
REPLICA_KEY = {
    "PyTorchJob": "pytorchReplicaSpecs",
    "TFJob": "tfReplicaSpecs",
    "MPIJob": "mpiReplicaSpecs",
    "XGBoostJob": "xgbReplicaSpecs",
    "JAXJob": "jaxReplicaSpecs",
    "PaddleJob": "paddleReplicaSpecs",
}
ROLES = {
    "PyTorchJob": {"Master", "Worker"},
    "TFJob": {"Chief", "Worker", "PS", "Evaluator"},
    "MPIJob": {"Launcher", "Worker"},
    "XGBoostJob": {"Master", "Worker"},
    "JAXJob": {"Worker"},
    "PaddleJob": {"Master", "Worker"},
}
# The operator's named container and port (each kind's *_types.go constants). MPIJob:
# both operators use the first container and open no port.
CONTAINER = {
    "PyTorchJob": ("pytorch", "pytorchjob-port", 23456),
    "TFJob": ("tensorflow", "tfjob-port", 2222),
    "XGBoostJob": ("xgboost", "xgboostjob-port", 9999),
    "JAXJob": ("jax", "jaxjob-port", 6666),
    "PaddleJob": ("paddle", "master", 36543),
}
# The kinds only training-operator 1.4+ (and mpi-operator) serve: current shapes only.
NEWER_SHAPES = {
    "MPIJob": {"v1", "v2beta1"},
    "XGBoostJob": {"v1"},
    "JAXJob": {"v1"},
    "PaddleJob": {"v1"},
}
# kubeflow-api.md §2.2 and §2.3: the spec fields of each older shape.
LEGACY_RUN_FIELDS = {
    "activeDeadlineSeconds",
    "backoffLimit",
    "cleanPodPolicy",
    "ttlSecondsAfterFinished",
}
SPEC_FIELDS = {
    ("kubeflow.org/v1", "legacy"): LEGACY_RUN_FIELDS
    | {"successPolicy", "enableDynamicWorker"},
    ("kubeflow.org/v1beta2", ""): LEGACY_RUN_FIELDS,
    ("kubeflow.org/v1beta1", ""): {"cleanPodPolicy", "ttlSecondsAfterFinished"},
}


def _targets(project: Path) -> dict[str, str]:
    """Each environment's target, as kgen.yaml and its overlays say (the last wins)."""
    config = yaml.safe_load((project / "kgen.yaml").read_text())
    overlays = project / config.get("overlays", "overlays")
    out = {}
    for env, settings in config["environments"].items():
        names = settings if isinstance(settings, list) else settings.get("overlays", [])
        target = "v1"
        for name in names:
            overlay = yaml.safe_load((overlays / f"{name}.yaml").read_text()) or {}
            target = overlay.get("target", target)
        out[env] = target
    return out


def _release_crds(target: str) -> str:
    """Which saved CRDs a training-operator target is checked against."""
    if target == "v1":
        return "v1"
    minor = int(target.rsplit(".", 1)[1])
    return "v1" if minor >= 7 else "v1-1.6"


TARGET_OF: dict[str, str] = {}


def _jobs() -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    for root in OUTPUT_ROOTS:
        # manifests/ is the repository's output; a case's is <case>/expected.
        targets = _targets(root.parent)
        for path in sorted(root.rglob("*.yaml")):
            if path.name == "kustomization.yaml":
                continue
            name = path.relative_to(REPO).as_posix()
            TARGET_OF[name] = targets[path.parent.name]
            docs = yaml.safe_load_all(path.read_text())
            found.extend(
                (name, doc) for doc in docs if doc and doc.get("kind") in REPLICA_KEY
            )
    return found


JOBS = _jobs()


def _strict(schema: Any) -> Any:
    """Forbid unknown fields wherever the CRD lists the known ones."""
    if isinstance(schema, dict):
        out = {k: _strict(v) for k, v in schema.items()}
        if (
            "properties" in out
            and "additionalProperties" not in out
            and not out.get("x-kubernetes-preserve-unknown-fields")
        ):
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [_strict(item) for item in schema]
    return schema


@functools.cache
def _crd_schema(kind: str, version: str) -> dict[str, Any]:
    files = {
        ("PyTorchJob", "v1"): "pytorchjob-v1.yaml",
        ("TFJob", "v1"): "tfjob-v1.yaml",
        ("PyTorchJob", "v1-1.6"): "pytorchjob-v1-training-operator-1.6.yaml",
        ("TFJob", "v1-1.6"): "tfjob-v1-training-operator-1.6.yaml",
        ("PyTorchJob", "v1beta2"): "pytorchjob-v1beta2.yaml",
        ("TFJob", "v1beta2"): "tfjob-v1beta2.yaml",
        ("PyTorchJob", "legacy"): "pytorchjob-v1beta2.yaml",
        ("TFJob", "legacy"): "tfjob-v1-v1beta2-multiversion.yaml",
        ("MPIJob", "v1"): "mpijob-v1-training-operator-1.9.yaml",
        ("MPIJob", "v2beta1"): "mpijob-v2beta1-mpi-operator-0.8.0.yaml",
        ("XGBoostJob", "v1"): "xgboostjob-v1-training-operator-1.9.yaml",
        ("JAXJob", "v1"): "jaxjob-v1-training-operator-1.9.yaml",
        ("PaddleJob", "v1"): "paddlejob-v1-training-operator-1.9.yaml",
    }
    crd = yaml.safe_load((CRDS / files[(kind, version)]).read_text())
    if version in ("v1", "v1-1.6", "v2beta1"):
        served_name = "v2beta1" if version == "v2beta1" else "v1"
        (served,) = [v for v in crd["spec"]["versions"] if v["name"] == served_name]
        return _strict(served["schema"]["openAPIV3Schema"])
    # apiextensions v1beta1 CRDs: one schema for every version, replica bounds only.
    return crd["spec"]["validation"]["openAPIV3Schema"]


def _errors(schema: dict[str, Any], doc: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft7Validator(schema)
    return [
        f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
        for e in validator.iter_errors(doc)
    ]


def _shape(doc: dict[str, Any], name: str = "") -> str:
    if doc["apiVersion"] == "kubeflow.org/v1":
        if "runPolicy" not in doc["spec"]:
            return "legacy"
        if name in TARGET_OF:
            return _release_crds(TARGET_OF[name])
        # A render outside the committed trees (property tests): suspend is in the CRD
        # from 1.7, and kgen emits it exactly there.
        return "v1" if "suspend" in doc["spec"]["runPolicy"] else "v1-1.6"
    return doc["apiVersion"].rsplit("/", 1)[1]


def test_there_are_jobs_of_every_shape():
    shapes = {(doc["kind"], _shape(doc, name)) for name, doc in JOBS}
    for kind in REPLICA_KEY:
        for shape in NEWER_SHAPES.get(
            kind, ("v1", "v1-1.6", "legacy", "v1beta2", "v1beta1")
        ):
            assert (kind, shape) in shapes


@pytest.mark.parametrize(
    ("name", "doc"), JOBS, ids=[f"{n}#{d['kind']}" for n, d in JOBS]
)
def test_job_conforms(name: str, doc: dict[str, Any]):
    check_job(name, doc)


def check_job(name: str, doc: dict[str, Any]) -> None:
    """A rendered job against its CRD (unknown fields are errors), the older shapes'
    field sets and the operator's contract; also used by the property tests."""
    kind, shape = doc["kind"], _shape(doc, name)
    if shape in ("v1", "v1-1.6", "legacy", "v1beta2") or kind == "MPIJob":
        assert _errors(_crd_schema(kind, shape), doc) == []
    if shape not in ("v1", "v1-1.6", "v2beta1"):
        known = SPEC_FIELDS[(doc["apiVersion"], "legacy" if shape == "legacy" else "")]
        extra = set(doc["spec"]) - known - {REPLICA_KEY[kind]}
        assert not extra, f"{name}: {shape} has no {sorted(extra)}"
    _check_operator_contract(kind, doc, shape)


def _check_operator_contract(kind: str, doc: dict[str, Any], shape: str) -> None:
    """What the operator and its webhook require, beyond the schema (§2.4, §3.3, §4.1)."""
    replicas = doc["spec"][REPLICA_KEY[kind]]
    assert set(replicas) <= ROLES[kind], "replica keys are exact CamelCase"
    if kind == "PyTorchJob" and "Master" in replicas:
        assert replicas["Master"]["replicas"] == 1
    if kind == "TFJob" and "Chief" in replicas:
        assert replicas["Chief"]["replicas"] == 1
    if kind in NEWER_SHAPES:
        _check_newer_kind(kind, doc)
    for spec in replicas.values():
        assert isinstance(spec["replicas"], int) and spec["replicas"] >= 1
        assert spec["restartPolicy"] in ("Always", "OnFailure", "Never", "ExitCode")
        if kind not in CONTAINER:
            continue
        container_name, port_name, port = CONTAINER[kind]
        (container,) = [
            c
            for c in spec["template"]["spec"]["containers"]
            if c["name"] == container_name
        ]
        assert container["image"]
        assert {
            "name": port_name,
            "containerPort": port,
            "protocol": "TCP",
        } in container["ports"]
    policy = doc["spec"].get("runPolicy", doc["spec"])
    assert policy["cleanPodPolicy"] in ("None", "Running", "All")
    if kind == "TFJob" and "PS" in replicas:
        assert policy["cleanPodPolicy"] != "None", "PS pods would run forever"
    if shape == "v1":
        assert doc["spec"]["runPolicy"]["suspend"] is False


def _check_newer_kind(kind: str, doc: dict[str, Any]) -> None:
    """What the webhooks (kubeflow/trainer@v1.9.4:pkg/webhooks/) and, for MPIJob, the
    controllers' own validation (training-operator mpi_validation.go;
    kubeflow/mpi-operator@v0.8.0:pkg/apis/kubeflow/validation/validation.go) require."""
    spec = doc["spec"]
    replicas = spec[REPLICA_KEY[kind]]
    if kind == "XGBoostJob":
        assert replicas["Master"]["replicas"] == 1, "Master must be present, 1 replica"
    if kind != "MPIJob":
        return
    assert replicas["Launcher"]["replicas"] == 1, "exactly one launcher"
    assert isinstance(spec["slotsPerWorker"], int) and spec["slotsPerWorker"] >= 1
    for replica in replicas.values():
        (first, *_) = replica["template"]["spec"]["containers"]
        assert first["image"] and "ports" not in first
    if doc["apiVersion"] == "kubeflow.org/v2beta1":
        for replica in replicas.values():
            assert replica["restartPolicy"] in ("Never", "OnFailure")
        # The CRD persists these defaults; written out, Argo CD stays in sync.
        assert spec["mpiImplementation"] in ("OpenMPI", "Intel", "MPICH")
        assert {
            "sshAuthMountPath",
            "launcherCreationPolicy",
            "runLauncherAsWorker",
        } <= set(spec)


def test_oracle_rejects_unknown_and_misplaced_fields():
    # The oracle must be able to fail: a misplaced run field and a typo in the pod spec.
    (_, doc) = next(
        (n, d)
        for n, d in JOBS
        if d["kind"] == "PyTorchJob"
        and _shape(d) == "v1"
        and "Master" in d["spec"]["pytorchReplicaSpecs"]
    )
    bad = copy.deepcopy(doc)
    bad["spec"]["cleanPodPolicy"] = "All"
    bad["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"][
        "nodeSelecter"
    ] = {}
    errors = _errors(_crd_schema("PyTorchJob", "v1"), bad)
    assert len(errors) == 2, errors


def test_legacy_layout_would_be_pruned_by_a_current_operator():
    # Why the v1-legacy target exists as its own shape (kubeflow-api.md §2.2).
    (_, doc) = next((n, d) for n, d in JOBS if _shape(d) == "legacy")
    assert any(
        "cleanPodPolicy" in e for e in _errors(_crd_schema(doc["kind"], "v1"), doc)
    )


def test_beta_crds_enforce_replica_bounds():
    (_, doc) = next(
        (n, d) for n, d in JOBS if d["kind"] == "PyTorchJob" and _shape(d) == "v1beta2"
    )
    bad = copy.deepcopy(doc)
    bad["spec"]["pytorchReplicaSpecs"]["Master"]["replicas"] = 2
    assert _errors(_crd_schema("PyTorchJob", "v1beta2"), bad)


def test_outputs_exist() -> None:
    assert all(Path(root).is_dir() for root in OUTPUT_ROOTS)


def _core_objects() -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    for root in OUTPUT_ROOTS:
        for path in sorted(root.rglob("*.yaml")):
            name = path.relative_to(REPO).as_posix()
            docs = yaml.safe_load_all(path.read_text())
            found.extend(
                (name, d) for d in docs if d and d["apiVersion"] in ("v1", "apps/v1")
            )
    return found


CORE = _core_objects()


def test_there_are_core_objects_of_every_kind():
    assert {d["kind"] for _, d in CORE} == {
        "PersistentVolumeClaim",
        "Deployment",
        "Service",
        # The team's own objects, from resources/ (issue 18).
        "Namespace",
        "ResourceQuota",
        "DaemonSet",
    }


@pytest.mark.parametrize(
    ("name", "doc"), CORE, ids=[f"{n}#{d['kind']}" for n, d in CORE]
)
def test_core_object_is_strictly_valid(name: str, doc: dict[str, Any]):
    import kubernetes_validate

    kubernetes_validate.validate(doc, "1.33", strict=True)


def test_kubeflow_tensorboards_use_a_clean_pvc_logspath():
    boards = [
        d
        for root in OUTPUT_ROOTS
        for path in root.rglob("*.tensorboard.yaml")
        for d in yaml.safe_load_all(path.read_text())
        if d
    ]
    assert boards
    for board in boards:
        assert board["apiVersion"] == "tensorboard.kubeflow.org/v1alpha1"
        assert set(board["spec"]) == {"logspath"}
        logspath = board["spec"]["logspath"]
        assert logspath.startswith("pvc://") and "//" not in logspath[len("pvc://") :]


def test_strict_core_validation_can_fail():
    import kubernetes_validate

    (_, doc) = next((n, d) for n, d in CORE if d["kind"] == "Deployment")
    bad = copy.deepcopy(doc)
    bad["spec"]["template"]["spec"]["containers"][0]["imagePullPolcy"] = "Always"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(bad, "1.33", strict=True)


def test_mpi_operator_fields_would_be_pruned_by_training_operator():
    # Why MPIJob v2beta1 is its own target: training-operator's MPIJob v1 CRD has none
    # of mpi-operator's fields, so the API server would drop them without a word.
    (_, doc) = next((n, d) for n, d in JOBS if _shape(d) == "v2beta1")
    errors = _errors(_crd_schema("MPIJob", "v1"), doc)
    for field in ("mpiImplementation", "sshAuthMountPath", "launcherCreationPolicy"):
        assert any(field in e for e in errors), (field, errors)
    assert _errors(_crd_schema("MPIJob", "v2beta1"), doc) == []
    bad = copy.deepcopy(doc)
    bad["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]["hostname"] = 1
    bad["spec"]["slotsPerWorkers"] = 2
    assert len(_errors(_crd_schema("MPIJob", "v2beta1"), bad)) == 2


def test_pre_17_output_fails_the_17_crds_and_17_output_fails_the_16_crds():
    # Why releases are targets: the same job as 1.7+ output has fields the 1.6 CRDs
    # prune (spec.nprocPerNode, runPolicy.suspend), and the oracle must see it.
    (_, doc) = next(
        (n, d)
        for n, d in JOBS
        if d["kind"] == "PyTorchJob"
        and _shape(d, n) == "v1"
        and "nprocPerNode" in d["spec"]
    )
    errors = _errors(_crd_schema("PyTorchJob", "v1-1.6"), doc)
    assert any("nprocPerNode" in e for e in errors), errors
    assert any("suspend" in e for e in errors), errors


def test_the_repository_has_a_training_operator_16_environment():
    targets = _targets(REPO)
    assert "training-operator-1.6" in targets.values()
    older = [n for n in TARGET_OF if TARGET_OF[n] == "training-operator-1.6"]
    assert older and all(_shape(d, n) == "v1-1.6" for n, d in JOBS if n in older)
