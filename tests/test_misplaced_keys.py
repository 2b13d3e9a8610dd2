"""A key written at the wrong level is pointed where it belongs, found in the models;
a spelling suggestion is offered only for a close slip."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kgen.kinds.pytorch.spec import PyTorchJobSpec
from kgen.kinds.tensorflow.spec import TFJobSpec
from kgen.spec.validate import validate_model
from tests.conftest import RunKgen

JOB = {"name": "a", "framework": "pytorch", "image": "x:1"}
ROLES: dict[str, object] = {"master": {"replicas": 1}}


def _hint(extra: dict[str, object], roles: dict[str, object] = ROLES) -> str | None:
    _, problems = validate_model(PyTorchJobSpec, {**JOB, "roles": roles, **extra})
    (problem,) = problems
    assert problem.code == "unknown-key"
    return problem.hint


@pytest.mark.parametrize(
    ("key", "hint"),
    [
        (
            "backoffLimit",
            "backoffLimit belongs under runPolicy: runPolicy.backoffLimit",
        ),
        (
            "cleanPodPolicy",
            "cleanPodPolicy belongs under runPolicy: runPolicy.cleanPodPolicy",
        ),
        (
            "ttlSecondsAfterFinished",
            "ttlSecondsAfterFinished belongs under runPolicy: runPolicy.ttlSecondsAfterFinished",
        ),
        ("replicas", "replicas is set per role: roles.<role>.replicas"),
        ("gpu", "gpu belongs under resources: resources.gpu"),
        (
            "queue",
            "queue belongs under runPolicy.schedulingPolicy: runPolicy.schedulingPolicy.queue",
        ),
    ],
)
def test_a_field_of_a_nested_model_is_pointed_where_it_belongs(key: str, hint: str):
    assert _hint({key: 1}) == hint


def test_an_abbreviation_or_a_slip_of_a_nested_key_names_its_path():
    assert _hint({"ttl": 1}) == "did you mean 'runPolicy.ttlSecondsAfterFinished'?"
    assert _hint({"backofLimit": 1}) == "did you mean 'runPolicy.backoffLimit'?"


def test_real_slips_still_get_their_spelling():
    assert _hint({"imagePullPolcy": "Always"}) == "did you mean 'imagePullPolicy'?"
    assert _hint({"workdir": "/app"}) == "did you mean 'workingDir'?"


def test_a_far_match_is_no_suggestion():
    """At difflib's 0.6 `backoffLimit` was 'affinity' and `cleanPodPolicy` 'runPolicy'."""
    hint = _hint({"foo": 1})
    assert hint is not None and hint.startswith("allowed keys: affinity, annotations,")
    _, problems = validate_model(
        TFJobSpec,
        {
            **JOB,
            "framework": "tensorflow",
            "roles": {"worker": {"replicas": 1}},
            "x": 1,
        },
    )
    assert problems[0].hint is not None
    assert "did you mean" not in problems[0].hint


def test_a_tfjob_master_is_pointed_at_chief():
    """Master is the older name of a TFJob's Chief (the operator's TFJob types list
    both; kubeflow-api.md §2): the hint listed the four roles, not which one is meant."""
    _, problems = validate_model(
        TFJobSpec,
        {
            **JOB,
            "framework": "tensorflow",
            "roles": {"master": {"replicas": 1}, "worker": {"replicas": 2}},
        },
    )
    (problem,) = problems
    assert (problem.message, problem.path, problem.hint) == (
        "unknown key 'master'",
        ("roles", "master"),
        "a TFJob's master is its chief: write chief (Master is the older name of"
        " Chief, which the operator treats the same)",
    )


def test_a_job_level_key_in_a_role_is_pointed_at_the_top():
    roles: dict[str, object] = {"master": {"replicas": 1, "backoffLimit": 2}}
    assert _hint({}, roles) == (
        "backoffLimit belongs under runPolicy: runPolicy.backoffLimit (from the top of the spec)"
    )


def test_job_and_overlay_report_it_at_the_key_and_exit_1(
    project: Callable[..., Path], run_kgen: RunKgen
):
    root = project(
        {
            "jobs/a.yaml": """
                framework: pytorch
                image: x:1
                roles: {master: {replicas: 1}}
                replicas: 2
            """,
            "overlays/v1.yaml": """
                target: v1
                patch:
                  backoffLimit: 3
            """,
        }
    )
    result = run_kgen("validate", cwd=root)
    assert (result.code, result.err) == (
        1,
        "jobs/a.yaml:4:1: error: unknown key 'replicas' (unknown-key)\n"
        "    hint: replicas is set per role: roles.<role>.replicas\n"
        "overlays/v1.yaml:3:3: error: unknown key 'backoffLimit' (unknown-key)\n"
        "    hint: backoffLimit belongs under runPolicy: runPolicy.backoffLimit\n"
        "kgen: 2 errors in 2 files\n",
    )


@pytest.mark.parametrize(
    ("framework", "hint"),
    [
        ("pytroch", "did you mean 'pytorch'?"),
        ("MPI", "did you mean 'mpi'?"),
        ("mxnet", "use pytorch or tensorflow or mpi or xgboost or jax or paddle"),
    ],
)
def test_a_misspelt_framework_gets_its_spelling(
    framework: str, hint: str, project: Callable[..., Path], run_kgen: RunKgen
):
    root = project({"jobs/a.yaml": f"framework: {framework}\nimage: x:1\n"})
    result = run_kgen("validate", cwd=root)
    assert (result.code, result.err) == (
        1,
        f"jobs/a.yaml:1:12: error: unknown framework '{framework}' (invalid-value)\n"
        f"    hint: {hint}\n"
        "kgen: 1 error in 1 file\n",
    )


def test_an_unknown_framework_does_not_hide_an_unknown_key(
    project: Callable[..., Path], run_kgen: RunKgen
):
    """The framework picks the model; the keys no kind accepts are reported beside it,
    so the two mistakes are not found one run apart."""
    root = project(
        {
            "jobs/a.yaml": "framework: pytroch\nimage: x:1\nbackoffLimit: 2\nnodeSelector: {}\n"
        }
    )
    result = run_kgen("validate", cwd=root)
    assert (result.code, result.err) == (
        1,
        "jobs/a.yaml:1:12: error: unknown framework 'pytroch' (invalid-value)\n"
        "    hint: did you mean 'pytorch'?\n"
        "jobs/a.yaml:3:1: error: unknown key 'backoffLimit' (unknown-key)\n"
        "    hint: backoffLimit belongs under runPolicy: runPolicy.backoffLimit\n"
        "kgen: 2 errors in 1 file\n",
    )


def test_a_key_of_an_enclosing_mapping_is_pointed_one_level_up():
    """`mountPath` under a volume's `create`: the volume's own key, not a claim's."""
    volume = {"name": "d", "claim": "d", "create": {"size": "1Gi", "mountPath": "/d"}}
    assert _hint({"volumes": [volume]}) == (
        "mountPath belongs beside create, not inside it: volumes[0].mountPath"
    )


@pytest.mark.parametrize(
    ("source", "hint"),
    [
        (
            {"claimName": "d"},
            "write `claim: d` in the volume; kgen renders it as persistentVolumeClaim.claimName",
        ),
        (
            {},
            "write `claim: <name>` in the volume; kgen renders it as persistentVolumeClaim.claimName",
        ),
    ],
)
def test_a_kubernetes_claim_source_is_pointed_at_claim(
    source: dict[str, object], hint: str
):
    volume = {"name": "d", "persistentVolumeClaim": source}
    assert _hint({"volumes": [volume]}) == hint


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("nodeSelector", {"cloud.google.com/gke-accelerator": "nvidia-l4"}),
        ("resources", {"gpu": 1}),
        ("roles", {"worker": {"replicas": 4}}),
    ],
)
def test_a_job_field_at_an_overlay_s_top_is_pointed_under_patch(
    key: str, value: object
):
    from kgen.spec.project import OverlaySpec

    _, problems = validate_model(OverlaySpec, {"description": "prod", key: value})
    (problem,) = problems
    assert (problem.message, problem.hint) == (
        f"unknown key '{key}'",
        f"{key} is a job field: an overlay sets it under patch (`patch: {{{key}: …}}`)",
    )


def test_a_slip_of_an_overlay_s_own_key_still_gets_its_spelling():
    from kgen.spec.project import OverlaySpec

    _, problems = validate_model(OverlaySpec, {"tagret": "v1"})
    (problem,) = problems
    assert problem.hint == "did you mean 'target'?"
