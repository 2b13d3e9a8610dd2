"""Every rendered TrainJob against the upstream TrainJob CRD of its trainer release
(../shared/reference/crds, oracles in tests only): kubeflow/trainer@v2.1.0
(73c9bece), @v2.2.1 (c505fc7c) and @v2.3.0 (658725bd), manifests/base/crds/
trainer.kubeflow.org_trainjobs.yaml. Unknown fields are errors: the structural CRD
would prune them without a word. The runtime patch targets what the runtime Kubeflow
installs has (manifests/base/runtimes/torch_distributed.yaml at v2.3.0 and v2.1.0).
kgen's own envelope carries the CEL rules of the Go markers: the same rules, at the
same nodes, as the CRDs controller-gen made from those markers.
"""

from __future__ import annotations

import functools
from typing import Any

import jsonschema
import pytest
import yaml

from kgen.check.envelope import envelope
from kgen.kinds import kind_for
from kgen.kinds.targets import TARGETS, TRAINER_TARGETS
from kgen.kinds.trainer import INSTALLED_RUNTIMES, RUNTIMES
from kgen.render.base import Environment
from kgen.render.job import render_job
from tests.conftest import REPO, SHARED
from tests.test_conformance import _strict, _targets

CRDS = SHARED / "crds"
pytestmark = pytest.mark.skipif(
    not CRDS.is_dir(), reason="../shared/reference/crds is not present"
)
CRD_OF = {
    "trainer-v2.1": "trainjob-trainer-v2.1.0.yaml",
    "trainer-v2.2": "trainjob-trainer-v2.2.1.yaml",
    "trainer-v2.3": "trainjob-trainer-v2.3.0.yaml",
}
RUNTIME_OF = {
    "trainer-v2.1": "torch_distributed-v2.1.0.yaml",
    "trainer-v2.2": "torch_distributed.yaml",
    "trainer-v2.3": "torch_distributed.yaml",
}
OUTPUT_ROOTS = [
    REPO / "manifests",
    *sorted((REPO / "tests" / "cases" / "positive").glob("*/expected")),
]


@functools.cache
def _crd(target: str) -> dict[str, Any]:
    crd = yaml.safe_load((CRDS / CRD_OF[target]).read_text())
    (version,) = crd["spec"]["versions"]
    assert version["name"] == "v1alpha1"
    schema: dict[str, Any] = version["schema"]["openAPIV3Schema"]
    return schema


def _errors(target: str, doc: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft7Validator(_strict(_crd(target)))
    return [
        f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
        for e in validator.iter_errors(doc)
    ]


def _committed() -> list[tuple[str, str, dict[str, Any]]]:
    found = []
    for root in OUTPUT_ROOTS:
        targets = _targets(root.parent)
        for path in sorted(root.rglob("*.trainjob.yaml")):
            target = targets[path.parent.name]
            name = path.relative_to(REPO).as_posix()
            docs = yaml.safe_load_all(path.read_text())
            found += [(name, target, doc) for doc in docs if doc]
    return found


COMMITTED = _committed()


def test_the_repository_has_trainjobs_for_v21_and_v23():
    assert {target for _, target, _ in COMMITTED} >= {"trainer-v2.1", "trainer-v2.3"}


@pytest.mark.parametrize(
    ("name", "target", "doc"), COMMITTED, ids=[n for n, _, _ in COMMITTED]
)
def test_committed_trainjob_conforms(name: str, target: str, doc: dict[str, Any]):
    check_trainjob(target, doc)


def check_trainjob(target: str, doc: dict[str, Any]) -> None:
    assert _errors(target, doc) == []
    spec = doc["spec"]
    # What the controller and the torch runtime need beyond the schema.
    assert spec["trainer"]["numNodes"] >= 1
    assert isinstance(spec["trainer"]["numProcPerNode"], int)
    runtime = yaml.safe_load(
        (CRDS / "trainer-runtimes-v2.3.0" / RUNTIME_OF[target]).read_text()
    )
    if spec["runtimeRef"]["name"] == runtime["metadata"]["name"]:
        _check_targets_runtime(spec, runtime)


def _check_targets_runtime(spec: dict[str, Any], runtime: dict[str, Any]) -> None:
    """The override names a replicated job and a container the runtime has."""
    jobs = {
        job["name"]: [
            c["name"] for c in job["template"]["spec"]["template"]["spec"]["containers"]
        ]
        for job in runtime["spec"]["template"]["spec"]["replicatedJobs"]
    }
    pods: list[tuple[str, dict[str, Any]]] = []
    for override in spec.get("podTemplateOverrides", []):
        pods += [(t["name"], override) for t in override["targetJobs"]]
    for patch in spec.get("runtimePatches", []):
        replicated = patch["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"]
        pods += [
            (job["name"], job["template"]["spec"]["template"]) for job in replicated
        ]
    for job, template in pods:
        assert job in jobs
        for container in template.get("spec", {}).get("containers", []):
            assert container["name"] in jobs[job]


def _repo_spec(name: str, overrides: dict[str, Any]) -> Any:
    data = yaml.safe_load((REPO / "jobs" / f"{name}.yaml").read_text())
    data = {"name": name, **data, **overrides}
    return kind_for("pytorch", "trainer-v2.3").model().model_validate(data)


# The repository's jobs as the trainer overlays leave them, and a job with every pod
# setting an override can hold.
SPECS: dict[str, tuple[str, dict[str, Any]]] = {
    "mnist-ddp": ("mnist-ddp", {"command": ["torchrun", "/opt/mnist/src/mnist.py"]}),
    "llm-elastic": (
        "llm-elastic",
        {
            "elasticPolicy": None,
            "trainJob": {
                "numProcPerNode": 2,
                "initializer": {
                    "model": {"storageUri": "s3://models/llm", "secret": "s3"}
                },
                "suspend": True,
                "managedBy": "kueue.x-k8s.io/multikueue",
            },
        },
    ),
    "everything": (
        "mnist-ddp",
        {
            "command": ["torchrun", "train.py"],
            "serviceAccountName": "trainer",
            "imagePullSecrets": ["registry"],
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {"key": "zone", "operator": "In", "values": ["a"]}
                                ]
                            }
                        ]
                    }
                }
            },
            "podAnnotations": {"team": "vision"},
            "runPolicy": {"activeDeadlineSeconds": 3600},
        },
    ),
}


@pytest.mark.parametrize("target", sorted(TRAINER_TARGETS))
@pytest.mark.parametrize("case", SPECS)
def test_every_trainer_target_renders_what_its_crd_accepts(case: str, target: str):
    name, overrides = SPECS[case]
    spec = _repo_spec(name, overrides)
    manifests, problems = render_job(spec, Environment("e", TARGETS[target], "ns"))
    deadline = "activeDeadlineSeconds" in overrides.get("runPolicy", {})
    if target == "trainer-v2.1" and deadline:
        assert [p.code for p in problems] == ["trainjob-cannot-map"]
    else:
        assert problems == []
    (job,) = [m for m in manifests if m.kind == "TrainJob"]
    check_trainjob(target, job.body)


def _rules(schema: Any, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], list[Any]]:
    """Every x-kubernetes-validations by the property path it sits at."""
    found: dict[tuple[str, ...], list[Any]] = {}
    if not isinstance(schema, dict):
        return found
    if "x-kubernetes-validations" in schema:
        found[path] = sorted(
            schema["x-kubernetes-validations"], key=lambda r: (r["rule"], r["message"])
        )
    for key, value in (schema.get("properties") or {}).items():
        found |= _rules(value, (*path, key))
    if isinstance(schema.get("items"), dict):
        found |= _rules(schema["items"], (*path, "[]"))
    return found


@pytest.mark.parametrize("target", sorted(TRAINER_TARGETS))
def test_the_envelope_carries_the_crds_cel_rules(target: str):
    ours = _rules(envelope(kind_for("pytorch", target), TARGETS[target]))
    theirs = _rules(_crd(target))
    # The pod parts of the patch are core types here; their own rules (a container
    # list's immutability from v2.3) are the one place kgen does not repeat them.
    pod = (
        "spec",
        "runtimePatches",
        "[]",
        "trainingRuntimeSpec",
        "template",
        "spec",
        "replicatedJobs",
        "[]",
        "template",
        "spec",
        "template",
        "spec",
    )
    theirs = {
        path: rules
        for path, rules in theirs.items()
        if path[: len(pod)] != pod and path[:1] != ("status",)
    }
    assert ours == theirs


def test_the_installed_runtimes_have_no_initializer_jobs():
    """trainjob-initializer-unused: Kubeflow's own ClusterTrainingRuntimes, each with
    only its training jobs (kubeflow/trainer@v2.3.0:manifests/base/runtimes)."""
    names = set()
    for path in sorted((CRDS / "trainer-runtimes-v2.3.0").glob("*.yaml")):
        runtime = yaml.safe_load(path.read_text())
        names.add(runtime["metadata"]["name"])
        jobs = runtime["spec"]["template"]["spec"]["replicatedJobs"]
        assert not {"dataset-initializer", "model-initializer"} & {
            j["name"] for j in jobs
        }
    assert names == INSTALLED_RUNTIMES
    assert set(RUNTIMES.values()) <= names
