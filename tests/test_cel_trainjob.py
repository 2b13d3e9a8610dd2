"""The CEL rules of the upstream TrainJob CRD, evaluated by kgen on good and bad
TrainJobs: kubeflow/trainer v2.3.0, manifests/base/crds/trainer.kubeflow.org_trainjobs.yaml
(../shared/reference/crds/trainjob-trainer-v2.3.0.yaml, read here as an oracle). Its
rules: metadata.name an RFC 1035 label of at most 63 characters; storageUri empty or
`scheme://...`; managedBy one of two controllers; runtimeRef, initializer, trainer,
managedBy, activeDeadlineSeconds immutable (`self == oldSelf`)."""

from __future__ import annotations

import copy
import shutil
from typing import Any

import pytest

from kgen.check.cel_rules import RuleTree, violations
from kgen.check.crds import CrdValidator, load_crd_schemas
from tests.conftest import SHARED

CRD = SHARED / "crds" / "trainjob-trainer-v2.3.0.yaml"
pytestmark = pytest.mark.skipif(not CRD.is_file(), reason=f"{CRD} is not present")
KEY = ("trainer.kubeflow.org/v1alpha1", "TrainJob")
GOOD: dict[str, Any] = {
    "apiVersion": "trainer.kubeflow.org/v1alpha1",
    "kind": "TrainJob",
    "metadata": {"name": "llm-finetune", "namespace": "ml"},
    "spec": {
        "runtimeRef": {"name": "torch-distributed"},
        "trainer": {"image": "registry.example.com/llm:1.0", "numNodes": 2},
        "initializer": {
            "dataset": {"storageUri": "hf://tatsu-lab/alpaca"},
            "model": {"storageUri": ""},
        },
        "managedBy": "trainer.kubeflow.org/trainjob-controller",
    },
}


@pytest.fixture(scope="module")
def validator(tmp_path_factory: pytest.TempPathFactory) -> CrdValidator:
    root = tmp_path_factory.mktemp("crd")
    shutil.copy(CRD, root / "trainjob.yaml")
    validators, problems, _ = load_crd_schemas(root, ["trainjob.yaml"])
    assert problems == []
    found = validators[KEY]
    assert isinstance(found, CrdValidator)
    return found


def _with(path: tuple[str, ...], value: Any) -> dict[str, Any]:
    body = copy.deepcopy(GOOD)
    place = body
    for key in path[:-1]:
        place = place[key]
    place[path[-1]] = value
    return body


def _errors(validator: CrdValidator, body: dict[str, Any]) -> list[tuple[Any, str]]:
    return [(e.absolute_path, e.message) for e in validator.iter_errors(body)]


def test_a_good_trainjob_passes(validator: CrdValidator):
    assert _errors(validator, GOOD) == []


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        (
            ("spec", "initializer", "dataset", "storageUri"),
            "tatsu-lab/alpaca",
            "Invalid value: storageUri may be empty, or it must be a valid URI"
            " (scheme://...)",
        ),
        (
            ("spec", "initializer", "model", "storageUri"),
            "://model",
            "Invalid value: storageUri may be empty, or it must be a valid URI"
            " (scheme://...)",
        ),
        (
            ("spec", "managedBy"),
            "example.com/my-controller",
            "Invalid value: ManagedBy must be trainer.kubeflow.org/trainjob-controller"
            " or kueue.x-k8s.io/multikueue if set",
        ),
    ],
)
def test_a_bad_value_breaks_its_rule_at_its_place(
    validator: CrdValidator, path: tuple[str, ...], value: str, expected: str
):
    assert _errors(validator, _with(path, value)) == [(path, expected)]


def test_the_name_rules_sit_at_the_root(validator: CrdValidator):
    upper = _with(("metadata", "name"), "LLM-finetune")
    assert _errors(validator, upper) == [
        ((), "Invalid value: metadata.name must match RFC 1035 DNS label format")
    ]
    long = _with(("metadata", "name"), "a" * 64)
    assert _errors(validator, long) == [
        ((), "Invalid value: metadata.name must be no more than 63 characters")
    ]


def _transitions(validator: CrdValidator, new: dict[str, Any]) -> list[Any]:
    assert isinstance(validator.rules, RuleTree)
    return [
        (v.path, v.message)
        for v in violations(validator.rules, new, copy.deepcopy(GOOD))
        if v.transition
    ]


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("spec", "runtimeRef", "name"), "deepspeed-distributed"),
        (("spec", "trainer", "image"), "registry.example.com/llm:1.1"),
        (("spec", "initializer", "dataset", "storageUri"), "hf://other/set"),
        (("spec", "managedBy"), "kueue.x-k8s.io/multikueue"),
    ],
)
def test_an_immutable_field_changed_breaks_its_transition_rule(
    validator: CrdValidator, path: tuple[str, ...], value: str
):
    # The rule sits on the field's parent under spec (runtimeRef, trainer,
    # initializer) or on the field itself (managedBy).
    place = path[:2]
    assert _transitions(validator, _with(path, value)) == [
        (place, "Invalid value: field is immutable")
    ]


def test_mutable_changes_and_new_fields_break_no_transition_rule(
    validator: CrdValidator,
):
    assert _transitions(validator, _with(("metadata", "labels"), {"a": "b"})) == []
    assert _transitions(validator, _with(("spec", "suspend"), True)) == []
    assert _transitions(validator, GOOD) == []
    # No old value at the place: the rule does not run (activeDeadlineSeconds is new).
    assert _transitions(validator, _with(("spec", "activeDeadlineSeconds"), 60)) == []
