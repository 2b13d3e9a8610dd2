"""TrainJob (Kubeflow Trainer v2): the registry's target-aware lookup, the exact render
per release, health in Argo CD (run in Lua) and Flux (run in CEL), import and plan.

Facts: kubeflow/trainer@v2.1.0, v2.2.1 and v2.3.0 pkg/apis/trainer/v1alpha1/
trainjob_types.go (fields, conditions Complete/Failed/Suspended, no Running);
manifests/base/runtimes/torch_distributed.yaml (the `node` job and container)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kgen.check.trace import trace
from kgen.gitops.cel import health_exprs
from kgen.gitops.health import health_lua
from kgen.kinds import ALL_KINDS, KINDS, kind_for, kind_named, kinds_on
from kgen.kinds.targets import TARGETS, TRAINER_TARGETS, target_of_manifest
from kgen.render.base import Environment
from kgen.render.job import render_job
from tests.conftest import REPO, RunKgen, write_tree

TRAINJOB = kind_for("pytorch", "trainer-v2.3")


def test_pytorch_renders_as_a_trainjob_on_trainer_targets_only():
    assert {"trainer-v2.1", "trainer-v2.2", "trainer-v2.3"} == TRAINER_TARGETS
    for name, target in TARGETS.items():
        kind = kind_for("pytorch", target).kind
        assert kind == ("TrainJob" if name in TRAINER_TARGETS else "PyTorchJob")
    assert kind_for("pytorch") is KINDS["pytorch"]
    assert kind_for("tensorflow", "trainer-v2.3") is KINDS["tensorflow"]
    assert kind_named("TrainJob") is TRAINJOB and TRAINJOB in ALL_KINDS
    assert TRAINJOB not in KINDS.values()
    assert [k.kind for k in kinds_on(TARGETS["trainer-v2.1"])] == ["TrainJob"]


def _spec(**extra: Any) -> Any:
    data = {
        "name": "llm",
        "framework": "pytorch",
        "image": "registry.example.com/llm:1.0",
        "command": ["torchrun", "train.py"],
        "env": [{"name": "NCCL_DEBUG", "value": "INFO"}],
        "resources": {"requests": {"cpu": "8"}, "limits": {"memory": "64Gi"}, "gpu": 2},
        "sharedMemory": "8Gi",
        "volumes": [{"name": "data", "claim": "data", "mountPath": "/data"}],
        "nodeSelector": {"pool": "gpu"},
        "serviceAccountName": "trainer",
        "podSecurityContext": {"fsGroup": 1000},
        "podLabels": {"team": "nlp"},
        "roles": {"master": {"replicas": 1}, "worker": {"replicas": 3}},
        "trainJob": {
            "initializer": {"model": {"storageUri": "hf://org/model", "secret": "hf"}}
        },
    }
    return TRAINJOB.model().model_validate(data | extra)


def _render(target: str, **extra: Any) -> tuple[dict[str, Any], list[str]]:
    manifests, problems = render_job(
        _spec(**extra), Environment("e", TARGETS[target], "ns")
    )
    return manifests[0].body["spec"], [p.message for p in problems]


POD: dict[str, Any] = {
    "metadata": {"labels": {"team": "nlp"}},
    "spec": {
        "serviceAccountName": "trainer",
        "nodeSelector": {"pool": "gpu"},
        "volumes": [
            {"name": "data", "persistentVolumeClaim": {"claimName": "data"}},
            {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}},
        ],
        "containers": [
            {
                "name": "node",
                "volumeMounts": [
                    {"name": "data", "mountPath": "/data"},
                    {"name": "dshm", "mountPath": "/dev/shm"},
                ],
            }
        ],
    },
}
HEAD: dict[str, Any] = {
    "runtimeRef": {
        "name": "torch-distributed",
        "apiGroup": "trainer.kubeflow.org",
        "kind": "ClusterTrainingRuntime",
    },
    "initializer": {
        "model": {"storageUri": "hf://org/model", "secretRef": {"name": "hf"}}
    },
    "trainer": {
        "image": "registry.example.com/llm:1.0",
        "command": ["torchrun", "train.py"],
        "env": [{"name": "NCCL_DEBUG", "value": "INFO"}],
        "numNodes": 4,
        "resourcesPerNode": {
            "limits": {"memory": "64Gi", "nvidia.com/gpu": "2"},
            "requests": {"cpu": "8"},
        },
        "numProcPerNode": 2,
    },
}
TAIL = {"suspend": False, "managedBy": "trainer.kubeflow.org/trainjob-controller"}


def test_v23_renders_the_pod_as_kgens_runtime_patch():
    spec, problems = _render("trainer-v2.3")
    assert problems == []
    pod = {**POD, "spec": {**POD["spec"], "securityContext": {"fsGroup": 1000}}}
    node = {"name": "node", "template": {"spec": {"template": pod}}}
    patch = {
        "manager": "kgen.io/kgen",
        "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [node]}}},
    }
    assert spec == {**HEAD, "runtimePatches": [patch], **TAIL}
    assert list(spec) == [*HEAD, "runtimePatches", *TAIL]


def test_v21_renders_the_pod_as_a_pod_template_override():
    spec, problems = _render("trainer-v2.1", podSecurityContext=None)
    assert problems == []
    override = {"targetJobs": [{"name": "node"}], **POD}
    assert spec == {**HEAD, "podTemplateOverrides": [override], **TAIL}


def test_v21_names_the_release_of_a_security_context():
    _, problems = _render("trainer-v2.1")
    assert problems == [
        "podSecurityContext cannot be expressed in a TrainJob for API target"
        " trainer-v2.1 (trainer.kubeflow.org/v1alpha1 TrainJob, Kubeflow Trainer 2.1):"
        " it arrived in Kubeflow Trainer 2.2 (target trainer-v2.2)"
    ]


def test_a_named_runtime_suspend_managed_by_and_a_deadline():
    spec, problems = _render(
        "trainer-v2.3",
        trainJob={
            "runtimeRef": {"name": "llm", "kind": "TrainingRuntime"},
            "numProcPerNode": 4,
            "suspend": True,
            "managedBy": "kueue.x-k8s.io/multikueue",
        },
        runPolicy={"activeDeadlineSeconds": 3600},
    )
    assert problems == []
    assert spec["runtimeRef"]["name"] == "llm"
    assert spec["runtimeRef"]["kind"] == "TrainingRuntime"
    assert spec["trainer"]["numProcPerNode"] == 4
    assert (spec["suspend"], spec["activeDeadlineSeconds"], spec["managedBy"]) == (
        True,
        3600,
        "kueue.x-k8s.io/multikueue",
    )


def test_kueue_suspends_a_queued_trainjob():
    assert TRAINJOB.live_pointers(_spec(labels={"kueue.x-k8s.io/queue-name": "q"})) == [
        "/spec/suspend"
    ]
    assert TRAINJOB.live_pointers(_spec()) == []


# --- health: Argo CD's Lua and Flux's CEL from the same table
lupa = pytest.importorskip("lupa")
celpy = pytest.importorskip("celpy")


def _conditions(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"type": t, "status": s, "message": f"{t} message"} for t, s in pairs]


def _lua(status: dict[str, Any] | None) -> str:
    lua = lupa.LuaRuntime(unpack_returned_tuples=True)
    check = lua.eval(f"function(obj)\n{health_lua(TRAINJOB.health)}\nend")
    obj = {"kind": "TrainJob"} | ({"status": status} if status is not None else {})
    result = check(_to_lua(lua, obj))
    return str(result["status"])


def _to_lua(lua: Any, value: Any) -> Any:
    if isinstance(value, dict):
        return lua.table_from({k: _to_lua(lua, v) for k, v in value.items()})
    if isinstance(value, list):
        return lua.table_from([_to_lua(lua, v) for v in value])
    return value


def _flux(status: dict[str, Any]) -> str:
    env = celpy.Environment()
    exprs = health_exprs(TRAINJOB.health)
    truth = {
        name: bool(
            env.program(env.compile(text)).evaluate(
                {"status": celpy.json_to_cel(status)}
            )
        )
        for name, text in exprs.items()
    }
    assert sum(truth.values()) <= 1, truth
    names = (("inProgress", "InProgress"), ("failed", "Failed"), ("current", "Current"))
    return next((shown for name, shown in names if truth.get(name)), "InProgress")


RUNNING = [{"name": "node", "ready": 4, "active": 4, "succeeded": 0, "failed": 0}]
PENDING = [{"name": "node", "ready": 0, "active": 0, "succeeded": 0, "failed": 0}]


@pytest.mark.parametrize(
    ("status", "argo", "flux"),
    [
        ({}, "Progressing", "InProgress"),
        ({"jobsStatus": PENDING}, "Progressing", "InProgress"),
        # No Running condition: the JobSet's ready or active jobs say it is up.
        ({"jobsStatus": RUNNING}, "Progressing", "Current"),
        (
            {"conditions": _conditions(("Suspended", "False")), "jobsStatus": RUNNING},
            "Progressing",
            "Current",
        ),
        ({"conditions": _conditions(("Complete", "True"))}, "Healthy", "Current"),
        ({"conditions": _conditions(("Failed", "True"))}, "Degraded", "Failed"),
        (
            {"conditions": _conditions(("Complete", "True"), ("Failed", "True"))},
            "Degraded",
            "Failed",
        ),
        (
            {"conditions": _conditions(("Suspended", "True")), "jobsStatus": RUNNING},
            "Suspended",
            "InProgress",
        ),
        (
            {"conditions": _conditions(("Failed", "True")), "jobsStatus": RUNNING},
            "Degraded",
            "Failed",
        ),
    ],
)
def test_health_in_argo_cd_and_flux(status: dict[str, Any], argo: str, flux: str):
    assert _lua(status) == argo
    assert _flux(status) == flux


def test_a_trainjob_without_status_is_progressing():
    assert _lua(None) == "Progressing"


# --- import and plan
V21 = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: sft, namespace: ml}
spec:
  runtimeRef: {name: torch-distributed}
  trainer:
    image: registry.example.com/sft:1.0
    command: [torchrun, sft.py]
    numNodes: 2
    numProcPerNode: auto
    resourcesPerNode: {limits: {nvidia.com/gpu: 4}}
  podTemplateOverrides:
    - targetJobs: [{name: node}]
      spec:
        nodeSelector: {pool: a100}
        hostAliases: [{ip: 10.0.0.1, hostnames: [store]}]
  managedBy: kueue.x-k8s.io/multikueue
"""


def test_an_imported_field_no_trainjob_holds_is_an_error_on_build(
    tmp_path: Path, run_kgen: RunKgen
):
    write_tree(tmp_path, {"in/sft.yaml": V21})
    result = run_kgen("import", "in/sft.yaml", "--out", "out", cwd=tmp_path)
    assert result.code == 0, result
    built = run_kgen("build", "-C", str(tmp_path / "out"))
    assert built.code == 1
    assert (
        "hostAliases cannot be expressed in a TrainJob for API target trainer-v2.1"
        in built.err
    )
    v21: dict[str, object] = {"podTemplateOverrides": []}
    assert target_of_manifest("trainer.kubeflow.org/v1alpha1", v21) == "trainer-v2.1"


def test_import_of_a_v21_trainjob_round_trips(tmp_path: Path, run_kgen: RunKgen):
    source = V21.replace(
        "        hostAliases: [{ip: 10.0.0.1, hostnames: [store]}]\n", ""
    )
    write_tree(tmp_path, {"in/sft.yaml": source})
    result = run_kgen("import", "in/sft.yaml", "--out", "out", cwd=tmp_path)
    assert result.code == 0, result
    spec = yaml.safe_load((tmp_path / "out/jobs/sft.yaml").read_text())
    assert spec["trainJob"] == {
        "numProcPerNode": "auto",
        "managedBy": "kueue.x-k8s.io/multikueue",
    }
    assert spec["roles"] == {"master": {"replicas": 1}, "worker": {"replicas": 1}}
    assert run_kgen("build", "-C", str(tmp_path / "out")).code == 0
    (built,) = (tmp_path / "out/manifests").rglob("sft.trainjob.yaml")
    body = next(d for d in yaml.safe_load_all(built.read_text()) if d)
    original = yaml.safe_load(source)
    assert body["spec"]["trainer"]["numProcPerNode"] == "auto"
    assert (
        body["spec"]["podTemplateOverrides"] == original["spec"]["podTemplateOverrides"]
    )


def test_plan_counts_a_trainjobs_nodes_and_gpus(run_kgen: RunKgen):
    result = run_kgen("list", cwd=REPO)
    rows = [line.split() for line in result.out.splitlines()]
    mnist = next(r for r in rows if r[:2] == ["trainer-gpu", "mnist-ddp"])
    # kind, target, roles..., pods 5 (numNodes 4 and TensorBoard's Deployment),
    # GPUs 4 (numNodes x 1 per node)
    assert mnist[2:4] == ["TrainJob", "trainer-v2.3"]
    assert mnist[-4:-2] == ["5", "4"]


@pytest.mark.parametrize(
    ("out", "spec_path"),
    [
        (("spec", "trainer", "image"), ("image",)),
        (("spec", "trainer", "env", 1, "value"), ("env", 1, "value")),
        (("spec", "trainer", "numNodes"), ("roles",)),
        (("spec", "trainer", "resourcesPerNode", "limits"), ("resources", "limits")),
        (
            ("spec", "initializer", "model", "storageUri"),
            ("trainJob", "initializer", "model", "storageUri"),
        ),
        (("spec", "managedBy"), ("trainJob", "managedBy")),
        (("spec", "activeDeadlineSeconds"), ("runPolicy", "activeDeadlineSeconds")),
        (
            ("spec", "podTemplateOverrides", 0, "spec", "affinity", "nodeAffinity"),
            ("affinity", "nodeAffinity"),
        ),
        (
            ("spec", "podTemplateOverrides", 0, "metadata", "labels", "a"),
            ("podLabels",),
        ),
        (
            (
                "spec",
                "runtimePatches",
                0,
                "trainingRuntimeSpec",
                "template",
                "spec",
                "replicatedJobs",
                0,
                "template",
                "spec",
                "template",
                "spec",
                "containers",
                0,
                "volumeMounts",
                1,
            ),
            ("volumes",),
        ),
        (
            (
                "spec",
                "runtimePatches",
                0,
                "trainingRuntimeSpec",
                "template",
                "spec",
                "replicatedJobs",
                0,
                "template",
                "spec",
                "template",
                "spec",
                "securityContext",
                "fsGroup",
            ),
            ("podSecurityContext", "fsGroup"),
        ),
    ],
)
def test_an_output_error_points_at_the_spec(
    out: tuple[Any, ...], spec_path: tuple[Any, ...]
):
    manifests, _ = render_job(_spec(), Environment("e", TARGETS["trainer-v2.3"], "ns"))
    assert trace(manifests[0], out) == spec_path
