"""A job's rules run once, with only what its overlays change run again
(kgen.rules.reuse): what every environment reports is the same, to the message, the
file:line:col, the order, the severity and what `lint.ignore` silences, as with every
rule run on every merged spec."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from kgen.errors import Problem
from kgen.load.project import load_project
from kgen.pipeline import stage
from kgen.pipeline.run import run
from kgen.rules import reuse
from kgen.rules.reads import READS, read_keys
from kgen.rules.reuse import same
from kgen.spec import revalidate
from tests.conftest import copy_example

real_pickled = stage._pickled

GPU_CONTAINER = {
    "name": "gpu",
    "image": "b:1",
    "resources": {"limits": {"nvidia.com/gpu": 1}},
}
# The name of the init container the PyTorch operator adds (pytorch-init-container-name).
INIT_PYTORCH = {"name": "init-pytorch", "image": "b:1"}

# Top-level keys and values generated overlays set: what the rules read, what they
# report, and values equal in Python that a manifest tells apart.
PATCHES: dict[str, list[Any]] = {
    "env": [
        [{"name": "API_TOKEN", "value": "hunter2hunter2"}],
        [{"name": "V", "value": "a\x1bb"}],
        [{"name": "LOG", "value": "1"}, {"name": "LOG", "value": "2"}],
        [{"name": "URL", "value": "https://u:pa55word@example.com/x"}],
        [{"name": "NO_VALUE"}],
    ],
    "labels": [{"db-password": "s3cr3tpass"}, {"team": "x"}, {"bad key!": "x"}],
    "annotations": [{"note": "bell\x07"}, {"note": "fine"}],
    "image": ["example.com/a:latest", "example.com/a", "example.com/a:2", ""],
    "resources": [
        {"gpu": None},
        {"gpu": 2},
        {"requests": {"cpu": "8"}, "limits": {"cpu": "4"}},
        {"limits": {"memory": None}},
        {"gpu": -1},
        {"requests": {"cpu": 4}},
        # Beside `gpu`, which rules read apart (kgen.rules.reads dotted keys).
        {"requests": {"example.com/dev": "1"}},
        {"limits": {"nvidia.com/gpu": 1}},
        {"gpuResource": "amd.com/gpu", "gpu": 1},
        {"requests": {"cpu": "100"}, "gpu": None},
        {"gpu": True},  # equal to a job's `gpu: 1` in Python
    ],
    "nprocPerNode": ["auto", "gpu", 2],
    "elasticPolicy": [
        {"minReplicas": 3, "maxReplicas": 1},
        {"rdzvConf": [{"key": "password", "value": "hunter22"}]},
    ],
    "roles": [
        {"worker": None},
        {"worker": {"replicas": 3, "resources": {"gpu": 0}}},
        {"ps": {"replicas": 1}},
        {"ps": None},
    ],
    "nodeSelector": [
        {"cloud.google.com/gke-accelerator": "a100"},
        {"api-token": "abc12345xyz"},
    ],
    "tolerations": [
        [{"key": "nvidia.com/gpu", "operator": "Exists"}],
        [{"key": "db-password", "operator": "Equal", "value": "zzzz1234"}],
    ],
    "securityContext": [{"privileged": True}, {"privileged": 1}, {"runAsUser": 1.0}],
    "affinity": [
        {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": 1}},
        {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": True}},
    ],
    "hostNetwork": [True, False],
    "args": [["--password", "hunter22"], ["--epochs", "3"]],
    "command": [["python", "-c", "print(1)"], ["torchrun", "--token", "ghp_x"]],
    "runPolicy": [{"ttlSecondsAfterFinished": 60}, {"cleanPodPolicy": "None"}],
    "lint": [
        {"ignore": {"image-latest": "pinned elsewhere"}},
        {"ignore": {"host-network": "a test"}},
        {"allowLiterals": {"API_TOKEN": "not a secret here"}},
        {
            "allowLiterals": dict.fromkeys(
                ("db-password", "api-token", "password"), "a test"
            )
        },
    ],
    "sharedMemory": ["1Gi"],
    "name": ["a" * 60, "short"],
    "containers": [
        [{"name": "side", "image": "busybox", "securityContext": {"privileged": True}}],
        [{"name": "pytorch", "image": "busybox"}],
        [GPU_CONTAINER],  # a GPU pod by its sidecar alone (gpu-placement)
        [INIT_PYTORCH],
    ],
    "initContainers": [[GPU_CONTAINER], [INIT_PYTORCH]],
    "ports": [[{"containerPort": 8080, "hostPort": 8080}]],
    "volumes": [
        [{"name": "scratch", "hostPath": {"path": "/x"}, "mountPath": "/x"}],
    ],
    "tensorboard": [{"logDir": "/nowhere"}],
}

SECRETS = {
    "labels": {"db-password": "s3cr3tpass"},
    "nodeSelector": {"api-token": "abc12345xyz"},
    "args": ["--password", "hunter22"],
    "env": [{"name": "API_TOKEN", "value": "hunter2hunter2"}],
    "tolerations": [{"key": "db-password", "operator": "Equal", "value": "zz1234"}],
}


def _generated(root: Path, seed: int) -> Path:
    """The example project with overlays patching random keys, applied over the
    overlays of existing environments in environments of their own."""
    rng = random.Random(seed)
    names = []
    for index in range(5):
        keys = rng.sample(sorted(PATCHES), rng.randint(1, 3))
        patch = {key: rng.choice(PATCHES[key]) for key in keys}
        name = f"gen-{index}"
        (root / "overlays" / f"{name}.yaml").write_text(json.dumps({"patch": patch}))
        names.append(name)
    bases = [["cpu", "dev", "v1"], ["gpu", "prod", "training-operator-1.9"], ["v1"]]
    lines = []
    for index in range(6):
        chosen = rng.sample(names, rng.randint(0, 3))
        overlays = ", ".join([*rng.choice(bases), *chosen])
        lines.append(f"  env-{index}: {{overlays: [{overlays}], namespace: gen}}\n")
    config = root / "kgen.yaml"
    text = config.read_text()
    config.write_text(
        text.replace("environments:\n", "environments:\n" + "".join(lines))
    )
    return root


def _reported(root: Path, monkeypatch: pytest.MonkeyPatch, *, on: bool) -> Any:
    monkeypatch.setattr(reuse, "REUSE", on)
    # Off, overlay lists that merge a job alike share nothing either
    # (kgen.pipeline.stage: no digest, no shared check).
    monkeypatch.setattr(stage, "_pickled", real_pickled if on else lambda d, b: None)
    project, problems = load_project(root, use_cache=False)
    assert project is not None, problems
    result = run(project, keep=True)
    rendered = [
        (r.env.name, r.job.file, r.spec.model_dump_json(), *_set(r.spec))
        for r in result.rendered
    ]
    return problems, result.problems, rendered


def _set(model: Any) -> list[Any]:
    """What fields a model and those it holds have, in order, and which were written."""
    out: list[Any] = []
    stack = [model]
    while stack:
        node = stack.pop()
        if isinstance(node, BaseModel):
            out += [
                type(node).__name__,
                list(node.__dict__),
                sorted(node.model_fields_set),
            ]
            stack += node.__dict__.values()
        elif isinstance(node, list):
            stack += node
        elif isinstance(node, dict):
            stack += node.values()
    return out


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    hits: list[object] = []
    real = reuse._kept

    def counted(rules: Any, usable: Any) -> dict[Any, list[Problem]]:
        kept = real(rules, usable)
        hits.extend(kept)
        return kept

    monkeypatch.setattr(reuse, "_kept", counted)
    return hits


def _revalidations(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    made: list[object] = []
    real = revalidate.revalidated

    def counted(model: Any, data: Any, bases: Any) -> Any:
        spec = real(model, data, bases)
        if spec is not None:
            made.append(spec)
        return spec

    monkeypatch.setattr(revalidate, "revalidated", counted)
    return made


def test_the_example_reports_the_same_with_reuse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    root = copy_example(tmp_path / "p")
    hits = _counted(monkeypatch)
    made = _revalidations(monkeypatch)
    reused = _reported(root, monkeypatch, on=True)
    assert hits  # the example's environments do share rules
    assert made  # and fields
    assert reused == _reported(root, monkeypatch, on=False)


def _with_envs(root: Path, envs: dict[str, list[str]]) -> Path:
    config = root / "kgen.yaml"
    lines = "".join(
        f"  {name}: {{overlays: [{', '.join(overlays)}], namespace: gen}}\n"
        for name, overlays in envs.items()
    )
    config.write_text(
        config.read_text().replace("environments:\n", f"environments:\n{lines}")
    )
    return root


def test_each_key_changed_alone_reports_the_same_with_reuse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # One environment per value an overlay sets, beside the same base without it: a
    # rule that reads the key but does not declare it gives the base's findings.
    root = copy_example(tmp_path / "p")
    # The second base holds literal secrets under names that `lint` may allow.
    (root / "overlays" / "secrets.yaml").write_text(json.dumps({"patch": SECRETS}))
    # And the elastic job a rendezvous option that `lint` may allow.
    rendezvous = {"key": "password", "value": "hunter22"}
    (root / "overlays" / "rendezvous.yaml").write_text(
        json.dumps(
            {
                "match": {"labels": {"app": "llm-finetune"}},
                "patch": {"elasticPolicy": {"rdzvConf": [rendezvous]}},
            }
        )
    )
    bases = {
        "plain": ["cpu", "dev", "v1"],
        "secrets": ["cpu", "dev", "v1", "secrets", "rendezvous"],
    }
    # Jobs with their GPUs and processes per node, and parameter servers left
    # running, for what reads them with their roles.
    (root / "overlays" / "ps-kept.yaml").write_text(
        json.dumps({"patch": {"runPolicy": {"cleanPodPolicy": "None"}}})
    )
    gpus = ["gpu", "prod", "v1", "ps-kept"]
    envs = {**bases, "gpus": gpus}
    for key, values in PATCHES.items():
        for index, value in enumerate(values):
            name = f"{key.lower()}-{index}"
            (root / "overlays" / f"{name}.yaml").write_text(
                json.dumps({"patch": {key: value}})
            )
            for base, overlays in bases.items():
                envs[f"{base}-{name}"] = [*overlays, name]
            if key in ("resources", "nprocPerNode", "roles"):
                envs[f"gpus-{name}"] = [*gpus, name]
    _with_envs(root, envs)
    hits = _counted(monkeypatch)
    made = _revalidations(monkeypatch)
    # Every environment may take from its base, however many came between.
    monkeypatch.setattr(reuse, "MAX_EARLIER", 10_000)
    reused = _reported(root, monkeypatch, on=True)
    assert len(hits) > 1000
    assert len(made) > 100
    assert reused == _reported(root, monkeypatch, on=False)


@pytest.mark.parametrize("seed", range(3))
def test_generated_overlays_report_the_same_with_reuse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
):
    root = _generated(copy_example(tmp_path / "p"), seed)
    hits = _counted(monkeypatch)
    reused = _reported(root, monkeypatch, on=True)
    without = _reported(root, monkeypatch, on=False)
    assert hits
    assert reused[1], "the generated overlays make problems"
    assert reused == without


def test_a_value_equal_in_python_but_not_in_yaml_is_not_shared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # `privileged: true` is a privileged container; `privileged: 1` is no boolean.
    # Both environments change only what the privilege rule does not read apart from
    # it, so a comparison by == would give the second the first's findings.
    root = copy_example(tmp_path / "p")
    for name, value in (("flag-true", "true"), ("flag-one", "1")):
        (root / "overlays" / f"{name}.yaml").write_text(
            f"patch:\n  securityContext: {{privileged: {value}}}\n"
        )
    text = (root / "kgen.yaml").read_text()
    envs = "".join(
        f"  {n}: {{overlays: [cpu, dev, v1, {n}], namespace: gen}}\n"
        for n in ("flag-true", "flag-one")
    )
    (root / "kgen.yaml").write_text(
        text.replace("environments:\n", f"environments:\n{envs}")
    )
    reused = _reported(root, monkeypatch, on=True)
    assert reused == _reported(root, monkeypatch, on=False)
    found = {
        (p.context, p.code, p.file, p.line)
        for p in reused[1]
        if p.file and p.file.startswith("overlays/flag-")
    }
    assert found == {
        ("environment flag-true", "policy-forbidden", "overlays/flag-true.yaml", 2),
        ("environment flag-one", "invalid-value", "overlays/flag-one.yaml", 2),
    }


def test_same_tells_apart_what_a_manifest_does():
    assert same({"a": [1, "x", {"b": None}]}, {"a": [1, "x", {"b": None}]})
    assert not same(1, True)
    assert not same(1, 1.0)
    assert not same(0.0, -0.0)
    assert not same(float("nan"), float("nan"))
    assert not same({"a": 1, "b": 2}, {"b": 2, "a": 1})  # order renders
    assert not same({1: "x"}, {True: "x"})
    assert not same([1, 2], [1, 2, 3])
    assert not same({"a": [1]}, {"a": [1.0]})
    assert same({"a": [1.5, None]}, {"a": [1.5, None]})
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    assert same(deep, deep)  # nothing recursive to overflow


def test_rules_over_every_value_are_never_shared():
    from kgen.rules.secrets import SECRET_RULES
    from kgen.rules.values import VALUE_RULES

    walking = [
        r
        for r in (*VALUE_RULES, *SECRET_RULES)
        if r.__name__ in ("_control_characters", "_env_literals", "_secret_values")
    ]
    assert len(walking) == 3
    assert all(r in READS and read_keys(r) is None for r in walking)
    declared = [keys for rule, keys in READS.items() if rule not in walking]
    assert len(declared) >= 20
    assert all(keys is not None and "framework" in keys for keys in declared)


def test_no_token_prefix_spans_two_members_of_json():
    # kgen.rules.values.screen_fields: a screen finds in a spec's JSON what it finds
    # in one of its members'.
    from kgen.rules.token_formats import PREFIXES

    assert PREFIXES
    assert not [p for p in PREFIXES if set(p) & set('{}[],:"')]


def test_a_model_whose_fields_depend_on_each_other_is_validated_whole():
    from pydantic import model_validator

    from kgen.spec.job import JobSpec

    class Linked(JobSpec):
        @model_validator(mode="after")
        def _linked(self) -> Linked:
            return self

    assert revalidate._fields_alone(JobSpec)
    assert not revalidate._fields_alone(Linked)


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    """Values equal in Python that a manifest tells apart, nested."""
    scalars: list[Any] = [1, 1.0, True, 0, False, None, "1", "a", "", 2]
    if depth > 2 or rng.random() < 0.5:
        return rng.choice(scalars)
    if rng.random() < 0.5:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    keys = rng.sample(["a", "b", "c", "name", "key"], rng.randint(0, 3))
    return {key: _random_value(rng, depth + 1) for key in keys}


def test_a_merged_spec_digest_is_equal_only_for_the_same_data():
    # kgen.pipeline.stage._pickled stands a key the overlays left alone for the job's
    # own value: equal digests must still mean the same data, types and order.
    from kgen.merge.layers import Layer, merge_layers
    from kgen.pipeline.stage import _pickled

    rng = random.Random(21)
    keys = ["resources", "env", "nodeSelector", "image", "tolerations", "labels"]
    equal = 0
    for _ in range(300):
        base = {key: _random_value(rng) for key in rng.sample(keys, 4)}
        merged = []
        for _ in range(4):
            patch = {key: _random_value(rng) for key in rng.sample(keys, 2)}
            layer = Layer(patch, {}, ("patch",))
            merged.append(merge_layers(base, [layer] if rng.random() < 0.8 else []))
        for a in merged:
            for b in merged:
                if _pickled(a, base) == _pickled(b, base):
                    equal += 1
                    assert same(a, b) and list(a) == list(b)
    assert equal > 1200  # more than each with itself: some patches merge alike
    assert _pickled({"a": 1}, {"a": 1}) != _pickled({"a": True}, {"a": 1})
    assert _pickled({"a": 1, "b": 2}, {}) != _pickled({"b": 2, "a": 1}, {})
    kept = {"a": [1]}
    assert _pickled(dict(kept), kept) != _pickled({}, kept)


def test_a_rule_reading_some_keys_of_a_mapping_runs_again_where_they_differ():
    from kgen.rules.reuse import finer

    base = {"resources": {"requests": {"cpu": "1"}, "gpu": 1}, "image": "x"}
    cpu = {"resources": {"requests": {"cpu": "1"}}, "image": "x"}
    assert finer(base, cpu, frozenset({"resources"})) == {
        "resources",
        "resources.gpu",
    }
    more = {"resources": {"requests": {"cpu": "2"}, "gpu": 1}, "image": "x"}
    assert "resources.requests" in finer(base, more, frozenset({"resources"}))
    assert "resources.*" in finer(base, {"image": "x"}, frozenset({"resources"}))
    odd = {"resources": {1: "x", "gpu": 1}, "image": "x"}
    assert "resources.*" in finer(base, odd, frozenset({"resources"}))
    assert finer(base, base, frozenset({"image"})) == {"image"}
    # A dotted read also reads the mapping whole where it is none.
    from kgen.rules.spec import _requests_within_limits

    keys = read_keys(_requests_within_limits)
    assert keys is not None and {"resources.requests", "resources.*"} <= keys
    assert "resources" not in keys


# Values of the keys only some kinds' rules read, for the corpus below.
KIND_PATCHES: dict[str, list[Any]] = {
    "trainJob": [
        {"runtimePolicy": "mpi"},
        {"numProcPerNode": "auto"},
        {"numProcPerNode": "4"},
        {"runtimeRef": {"name": "deepspeed-distributed"}},
        {"runtimeRef": {"name": "torch-distributed"}},
        {"runtimeRef": {"name": "torch-distribted"}},
        {"runtimeRef": {"name": "own-runtime", "kind": "TrainingRuntime"}},
        {"initializer": {"dataset": {"storageUri": "hf://x/y"}}},
    ],
    "roles": [
        {"launcher": None},
        {"master": None},
        {"master": None, "worker": None},
        {"worker": {"replicas": 40}},
        {"worker": {"command": ["sleep"]}},
        {"worker": {"resources": {"gpu": 1}}},
        {"worker": {"initContainers": [INIT_PYTORCH]}},
    ],
    "env": [[{"name": "PET_NNODES", "value": "2"}]],
    "command": [None, ["torchrun", "x.py"]],
    "args": [["-m", "torch.distributed.run"]],
    "runId": ["r" * 12],
    "elasticPolicy": [{"maxReplicas": 4}],
    "resources": [{"gpu": 2}],
}
PADDLE_JOB = {
    "name": "paddle-fit",
    "framework": "paddle",
    "image": "example.com/paddle:1",
    "resources": {"requests": {"cpu": "1", "memory": "1Gi"}},
    "roles": {"worker": {"replicas": 2}},
}
TRAINER = ["gpu", "trainer-v2.3", "trainer-llm", "trainer-deepspeed"]
# Bases that set the scene for a kind's rule, each with the keys changed over it.
SCENES: dict[str, tuple[dict[str, Any], list[str], tuple[str, ...]]] = {
    "cpu-auto": ({"nprocPerNode": "auto"}, ["cpu", "dev", "v1"], ("roles",)),
    "trainer-cpu": (
        {"trainJob": {"numProcPerNode": "auto"}, "resources": {"gpu": None}},
        ["cpu", "trainer-v2.3"],
        ("roles", "resources"),
    ),
    "trainer-pet": (
        {"env": [{"name": "PET_NNODES", "value": "2"}]},
        TRAINER,
        ("trainJob",),
    ),
    "trainer-long": ({"name": "n" * 55}, TRAINER, ("roles", "runId", "trainJob")),
    "workers": (
        {"roles": {"master": None}},
        ["cpu", "dev", "v1"],
        ("elasticPolicy",),
    ),
    "ps-kept": (
        {"runPolicy": {"cleanPodPolicy": "None"}},
        ["cpu", "dev", "v1"],
        ("roles",),
    ),
    # A claim created ReadWriteOnce in every job, TensorBoard reading from it.
    "rwo-claim": (
        {
            "volumes": [
                {
                    "name": "rwo",
                    "claim": "rwo",
                    "create": {"size": "1Gi"},
                    "mountPath": "/rwo",
                }
            ],
            "tensorboard": {"logDir": "/rwo/logs"},
        },
        ["cpu", "dev", "v1"],
        ("roles", "elasticPolicy", "tensorboard"),
    ),
    "rendezvous": (
        {"elasticPolicy": {"rdzvConf": [{"key": "password", "value": "hunter22"}]}},
        ["cpu", "dev", "v1"],
        ("lint",),
    ),
}

# Values that make the shared rules find something, changed over `plain` alone.
CORE_PATCHES: dict[str, list[Any]] = {
    "roles": [
        {
            "master": {
                "replicas": 2,
                "image": "example.com/a",
                "command": ["run", "--password", "hunter22"],
                "env": [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}],
                "containers": [
                    {
                        "name": "pytorch",
                        "image": "b:1",
                        "livenessProbe": {"tcpSocket": {"port": "nope"}},
                    }
                ],
                "initContainers": [
                    {
                        "name": "i",
                        "image": "b:1",
                        "ports": [{"containerPort": 1, "hostPort": 3}],
                        "securityContext": {"privileged": True},
                    }
                ],
                "ports": [
                    {"containerPort": 1, "name": "a"},
                    {"containerPort": 2, "name": "a"},
                ],
                "securityContext": {"privileged": True},
                "podSecurityContext": {"runAsUser": "x"},
                "livenessProbe": {"exec": 1},
                "readinessProbe": {"httpGet": {"port": "nope"}},
                "affinity": {"nodeAffinity": 1},
                "nodeSelector": {"db-password": "abcd12345"},
                "resources": {
                    "requests": {"cpu": "9", "example.com/x": "1"},
                    "limits": {"cpu": "1"},
                },
            }
        },
        {
            "worker": {
                "replicas": 2,
                "nodeSelector": {"cloud.google.com/gke-accelerator": "x"},
            }
        },
    ],
    "initContainers": [
        [
            {
                "name": "i",
                "image": "b:1",
                "ports": [{"containerPort": 1, "hostPort": 3}],
                "securityContext": {"privileged": True},
                "volumeMounts": [{"name": "nope", "mountPath": "/n"}],
                "startupProbe": {"tcpSocket": {"port": "nope"}},
                "bogus": 1,
            }
        ]
    ],
    "containers": [
        [
            {
                "name": "s",
                "image": "b:1",
                "bogus": 1,
                "ports": [{"containerPort": 1, "hostPort": 4}],
                "readinessProbe": {"httpGet": {"port": "nope"}},
            }
        ]
    ],
    "dnsConfig": [{"options": 1}],
    "hostAliases": [[{"ip": 1}]],
    "lifecycle": [{"postStart": 1}, {"preStop": {"httpGet": {"port": "nope"}}}],
    "livenessProbe": [{"exec": 1}, {"httpGet": {"port": "nope"}}],
    "readinessProbe": [{"exec": 1}, {"tcpSocket": {"port": "nope"}}],
    "startupProbe": [{"exec": 1}, {"tcpSocket": {"port": "nope"}}],
    "podSecurityContext": [{"runAsUser": "x"}],
    "topologySpreadConstraints": [[{"maxSkew": "x"}]],
    "ports": [
        [{"containerPort": 1, "name": "a"}, {"containerPort": 2, "name": "a"}],
        [{"containerPort": "x"}],
        # Renames vit-pretrain's metrics port, which its liveness probe names.
        [{"containerPort": 9090, "name": "renamed"}],
    ],
    "volumes": [
        [{"name": "v", "configMap": {"name": 1}, "mountPath": "/v"}],
        [{"name": "scratch", "emptyDir": {}, "mountPath": "/s"}],
        [{"name": "t", "claim": "tb", "mountPath": "/logs"}],
        [{"name": "m", "claim": "m", "mountPath": "/dev/shm"}],
        [{"name": "c", "claim": "c", "create": {"size": "1Gi"}, "mountPath": "/c"}],
    ],
    "hostIPC": [True],
    "hostPID": [True],
    "codeSync": [
        {"repo": "https://u:pa55word@example.com/r.git"},
        {"repo": "https://example.com/r.git", "path": "/dev/shm"},
    ],
    "annotations": [{"db-password": "s3cr3tpass"}],
    "podAnnotations": [{"db-password": "s3cr3tpass"}],
    "podLabels": [{"db-password": "s3cr3tpass"}],
    "affinity": [
        {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {
                                    "key": "api-token",
                                    "operator": "In",
                                    "values": ["abcd12345"],
                                }
                            ]
                        }
                    ]
                }
            }
        }
    ],
    "tensorboard": [{"logDir": "/logs"}],
    "sharedMemory": ["1Gi"],
    "elasticPolicy": [{"maxReplicas": 1000}],
}
CORE_SCENES: dict[str, tuple[dict[str, Any], list[str], tuple[str, ...]]] = {
    "long": (
        {"name": "n" * 53},
        ["cpu", "dev", "v1"],
        ("elasticPolicy", "tensorboard"),
    ),
    "sidecar": (
        {
            "containers": [
                {
                    "name": "s",
                    "image": "b:1",
                    "volumeMounts": [{"name": "scratch", "mountPath": "/s"}],
                }
            ],
            "volumes": [{"name": "m", "claim": "m", "mountPath": "/dev/shm"}],
            "tensorboard": {"logDir": "/logs"},
        },
        ["cpu", "dev", "v1"],
        ("volumes", "sharedMemory", "codeSync"),
    ),
    "gpu-bare": (
        {"nodeSelector": {"cloud.google.com/gke-accelerator": None}, "tolerations": []},
        ["gpu", "prod", "training-operator-1.9"],
        ("nodeSelector", "tolerations", "roles"),
    ),
}


def _corpus(root: Path, monkeypatch: pytest.MonkeyPatch) -> dict[Any, list[Any]]:
    """Every distinct merged spec of every job, with each key of PATCHES and
    KIND_PATCHES changed alone over bases of every kind and over SCENES, and of
    CORE_PATCHES over `plain` and CORE_SCENES:
    (data, spec, context) by (job, model)."""
    (root / "jobs" / "paddle-fit.yaml").write_text(json.dumps(PADDLE_JOB))
    (root / "overlays" / "secrets.yaml").write_text(json.dumps({"patch": SECRETS}))
    keys = sorted({*PATCHES, *KIND_PATCHES})
    bases: dict[str, tuple[list[str], tuple[str, ...]]] = {
        "plain": (["cpu", "dev", "v1"], tuple(keys)),
        "secrets": (["cpu", "dev", "v1", "secrets"], tuple(keys)),
        "mpi": (["gpu", "prod", "mpi-operator"], tuple(keys)),
        "trainer": (TRAINER, tuple(keys)),
    }
    for name, (patch, overlays, changed) in {**SCENES, **CORE_SCENES}.items():
        (root / "overlays" / f"{name}.yaml").write_text(json.dumps({"patch": patch}))
        bases[name] = ([*overlays, name], changed)
    envs = {name: overlays for name, (overlays, _) in bases.items()}
    for key in sorted({*keys, *CORE_PATCHES}):
        shared = [*PATCHES.get(key, []), *KIND_PATCHES.get(key, [])]
        for index, value in enumerate([*shared, *CORE_PATCHES.get(key, [])]):
            name = f"k-{key.lower()}-{index}"
            (root / "overlays" / f"{name}.yaml").write_text(
                json.dumps({"patch": {key: value}})
            )
            for base, (overlays, changed) in bases.items():
                if index < len(shared):
                    wanted = key in changed
                else:  # CORE_PATCHES: over `plain`, and the scenes made for them
                    wanted = base == "plain" or (base in CORE_SCENES and key in changed)
                if wanted:
                    envs[f"{base}-{name}"] = [*overlays, name]
    _with_envs(root, envs)
    monkeypatch.setattr(reuse, "REUSE", False)
    found: dict[Any, list[Any]] = {}
    seen: set[tuple[Any, ...]] = set()
    real_check, real_ruled = stage._check, reuse.ruled
    job: list[str] = []

    def check(source: Any, *args: Any) -> Any:
        job[:] = [source.file]
        return real_check(source, *args)

    def ruled(spec: Any, data: Any, context: Any, *args: Any) -> Any:
        digest = (job[0], type(spec), id(context), real_pickled(data, {}))
        if digest not in seen:
            seen.add(digest)
            found.setdefault((job[0], type(spec)), []).append((data, spec, context))
        return real_ruled(spec, data, context, *args)

    monkeypatch.setattr(stage, "_check", check)
    monkeypatch.setattr(reuse, "ruled", ruled)
    project, problems = load_project(root, use_cache=False)
    assert project is not None, problems
    run(project, keep=True)
    return found


def _without(keys: frozenset[str], key: str) -> frozenset[str]:
    """A declaration with `key` left out (a dotted key's `<parent>.*` too, when no
    other key of that parent is left)."""
    left = keys - {key}
    parent = key.partition(".")[0]
    if "." in key and not any(
        k.startswith(f"{parent}.") and k[-1] != "*" for k in left
    ):
        left -= {f"{parent}.*"}
    return left


def test_every_declared_key_is_needed_and_enough(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # A mutation test of the declarations (kgen.rules.reads): over every pair of a
    # job's merged specs, a declared rule finds the same where no key it reads
    # differs (the declaration is enough), and for each key it declares, some pair
    # differing in that key alone among them finds otherwise (left out, reuse would
    # report the wrong findings, which the comparisons above would see), but for
    # KNOWN_UNSEEN.
    from kgen.rules.reuse import Ruling, finer
    from kgen.rules.spec import spec_rules

    corpus = _corpus(copy_example(tmp_path / "p"), monkeypatch)
    _screens_are_sound(corpus)
    needed: dict[tuple[Any, str], bool] = {}
    kinds = set()
    for specs in corpus.values():
        rules = [r for r in spec_rules(specs[0][1]) if read_keys(r) is not None]
        kinds.add(type(specs[0][1]).__name__)
        found = [
            {rule: list(rule(spec, context)) for rule in rules}
            for _, spec, context in specs
        ]
        for i, (data, spec, context) in enumerate(specs):
            ruling = Ruling(spec, data, context)
            for j in range(i):
                other, _, other_context = specs[j]
                if other_context is not context:
                    continue
                changed = finer(data, other, ruling.changed(other))
                for rule in rules:
                    keys = read_keys(rule)
                    assert keys is not None
                    same_findings = found[i][rule] == found[j][rule]
                    if keys.isdisjoint(changed):
                        assert same_findings, (rule.__name__, changed)
                        continue
                    for key in keys - {"framework"}:
                        if key.endswith(".*"):
                            continue
                        slot = (rule, key)
                        if not needed.get(slot) and not same_findings:
                            needed[slot] = _without(keys, key).isdisjoint(changed)
    assert {"PaddleJobSpec", "MPIJobSpec", "TrainJobSpec", "JAXJobSpec"} <= kinds
    assert sum(needed.values()) > 60
    declared = {
        (rule, key)
        for rule, keys in READS.items()
        if keys is not None
        for key in keys - {"framework"}
        if not key.endswith(".*")
    }
    missed = sorted(
        f"{rule.__module__}.{getattr(rule, '__name__', rule)}: {key}"
        for rule, key in declared
        if not needed.get((rule, key))
    )
    assert missed == sorted(KNOWN_UNSEEN), "\n".join(missed)


# Declared keys no pair of the corpus shows needed, and why.
KNOWN_UNSEEN = {
    # The job's own are kgen.rules.spec._kube_objects' (a role's are this rule's).
    "kgen.rules.pod._pod_objects: securityContext",
    "kgen.rules.pod._pod_objects: podSecurityContext",
    # A volume source the core definitions refuse is refused by the spec first.
    "kgen.rules.pod._pod_objects: volumes",
    # Overlays merge env by name: no overlay makes or removes a duplicate.
    "kgen.rules.spec._unique_env: env",
    "kgen.rules.spec._unique_env: roles",
    # A node selector key is deleted by a null, which leaves the toleration.
    "kgen.rules.policy._gpu_placement: nodeSelector",
    # A queued TrainJob that asks for suspend needs both keys set; the corpus changes
    # one key at a time over bases that set neither.
    "kgen.kinds.trainer.rules._suspend_queued: labels",
    "kgen.kinds.trainer.rules._suspend_queued: trainJob",
}


def _screens_are_sound(corpus: dict[Any, list[Any]]) -> None:
    # kgen.rules.values.screen_data: what the spec's own JSON may hold, the data's
    # does too (a screen that missed would hide a finding).
    from kgen.rules import values

    flagged = [0, 0]
    for specs in corpus.values():
        for data, spec, _ in specs:
            values._last_screen.clear()
            whole = values.screen(spec)
            values._last_screen.clear()
            values.screen_data(spec, data)
            by_data = values.known_screen(spec)
            assert by_data is not None
            for index, (found, seen) in enumerate(zip(whole, by_data, strict=True)):
                assert seen or not found, (index, data)
                flagged[index] += found
    assert min(flagged) > 50
