from __future__ import annotations

from kgen.models import PyTorchJobSpec, TFJobSpec
from kgen.project import ProjectSpec
from kgen.validate import allowed_keys, validate_model


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
