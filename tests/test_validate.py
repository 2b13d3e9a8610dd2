from __future__ import annotations

from typing import Any

import pytest

from kgen.kinds import kind_for
from kgen.kinds.pytorch.spec import PyTorchJobSpec
from kgen.kinds.tensorflow.spec import TFJobSpec
from kgen.spec.job import JobSpec
from kgen.spec.keys import allowed_keys
from kgen.spec.project import ProjectSpec
from kgen.spec.validate import gpu_hint, validate_model


def test_allowed_keys_walk_models_lists_and_dicts():
    assert allowed_keys(PyTorchJobSpec, ("roles",)) == ["master", "worker"]
    assert allowed_keys(TFJobSpec, ("roles", "ps"))[:3] == [
        "replicas",
        "restartPolicy",
        "image",
    ]
    assert "mountPath" in allowed_keys(PyTorchJobSpec, ("volumes", 3))
    assert "ephemeral-storage" in allowed_keys(PyTorchJobSpec, ("resources", "limits"))
    assert allowed_keys(ProjectSpec, ("environments", "dev")) == [
        "overlays",
        "namespace",
        "jobs",
        "gpuQuota",
        "policy",
    ]
    assert allowed_keys(PyTorchJobSpec, ("labels",)) == []


def test_unknown_key_far_from_any_lists_the_allowed_ones():
    _, problems = validate_model(
        TFJobSpec,
        {
            "name": "a",
            "framework": "tensorflow",
            "image": "x:1",
            "roles": {"launcher": {}},
        },
    )
    (problem,) = problems
    assert (problem.code, problem.path, problem.at_key) == (
        "unknown-key",
        ("roles", "launcher"),
        True,
    )
    assert problem.hint == "allowed keys: chief, evaluator, ps, worker"


def test_missing_key_names_the_key_and_points_at_it():
    # Locating climbs to the parent for a key that was never written (see the
    # missing-image case), and stops at an overlay's `key: null` that deleted it.
    _, problems = validate_model(
        PyTorchJobSpec, {"name": "a", "framework": "pytorch", "roles": {}}
    )
    assert [(p.code, p.path, p.at_key, p.message) for p in problems] == [
        ("missing-key", ("image",), True, "missing required key 'image'")
    ]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            {"labels": {"a": 10**99}},
            "expected a string, got a number of 100 digits (100000000000...)",
        ),
        (
            {"env": [{"name": "A", "value": -(10**99)}]},
            "expected a string, got a number of 100 digits (-10000000000...)",
        ),
        (
            {"roles": {"master": {"replicas": 10**5000}}},
            "a number of thousands of digits is too large: it must be at most 10000",
        ),
        ({"description": 10**40}, f"expected a string, got the number {10**40}"),
    ],
)
def test_huge_integers_are_described_not_printed(extra: dict[str, Any], message: str):
    """The loader refuses integers past 100 digits; messages must not depend on it:
    Python refuses to print an integer past 4,300 digits."""
    job: dict[str, Any] = {
        "name": "t",
        "framework": "pytorch",
        "image": "x:1",
        "roles": {"master": {"replicas": 1}},
    }
    _spec, problems = validate_model(kind_for("pytorch").model(), {**job, **extra})
    assert [p.message for p in problems] == [message]


@pytest.mark.parametrize(
    ("key", "vendor"),
    [
        ("gpu", ""),
        ("GPU", ""),
        ("nvidia.com/gpu", ""),
        ("amd.com/gpu", " with `gpuResource: amd.com/gpu`"),
    ],
)
def test_a_gpu_under_limits_is_pointed_at_resources_gpu(key: str, vendor: str):
    # Only a vendor's resource name is a gpuResource; `gpu` alone is none.
    assert gpu_hint(key, ("roles", "master", "resources", "limits", key)) == (
        "count GPUs in resources.gpu (`resources: {gpu: 1}`)"
        f"{vendor}; kgen puts them into limits"
    )


@pytest.mark.parametrize(
    ("framework", "example"),
    [
        ("pytorch", "{master: {replicas: 1}, worker: {replicas: 3}}"),
        ("tensorflow", "{ps: {replicas: 2}, worker: {replicas: 4}}"),
    ],
)
def test_missing_roles_are_shown_as_the_kind_writes_them(framework: str, example: str):
    # Each kind names its roles differently (master and worker, ps and chief, launcher):
    # the hint shows the kind's own.
    models: dict[str, type[JobSpec]] = {
        "pytorch": PyTorchJobSpec,
        "tensorflow": TFJobSpec,
    }
    model = models[framework]
    spec = {"name": "train", "framework": framework, "image": "repo/train:1.0"}
    _, problems = validate_model(model, spec)
    assert [(p.message, p.hint) for p in problems] == [
        ("missing required key 'roles'", f"add the job's pods, e.g. `roles: {example}`")
    ]
