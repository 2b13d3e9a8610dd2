"""The generated docs pages are current (docs/spec-reference.md from the models,
docs/rules.md from the catalogue), and the reference's examples are real."""

from __future__ import annotations

import typing
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, TypeAdapter

from kgen.kinds import KINDS
from kgen.kinds.pytorch.spec import ElasticPolicy
from kgen.kinds.targets import arrived_in, targets_with
from kgen.reference.spec import SECTIONS, render_reference
from kgen.spec.policy import SchedulingPolicy
from kgen.spec.project import ProjectSpec
from tests.conftest import REPO

FIELDS = [
    (model, name, info)
    for _where, model, skip in SECTIONS
    for name, info in model.model_fields.items()
    if name not in skip
]


def test_spec_reference_page_is_current():
    page = (REPO / "docs" / "spec-reference.md").read_text()
    assert render_reference() in page, "run `make docs` and commit docs/"


@pytest.mark.parametrize(
    ("model", "name", "info"), FIELDS, ids=[f"{m.__name__}.{n}" for m, n, _ in FIELDS]
)
def test_every_field_is_documented_with_a_valid_example(model, name, info):
    assert info.description, f"{model.__name__}.{name} has no description"
    assert info.examples, f"{model.__name__}.{name} has no example"
    annotation = (
        Annotated[info.annotation, *info.metadata] if info.metadata else info.annotation
    )
    TypeAdapter(annotation).validate_python(info.examples[0], strict=True)  # type: ignore[arg-type]


def _models(root: type[BaseModel]) -> set[type[BaseModel]]:
    found = {root}
    for info in root.model_fields.values():
        for arg in _leaves(info.annotation):
            if (
                isinstance(arg, type)
                and issubclass(arg, BaseModel)
                and arg not in found
            ):
                found |= _models(arg)
    return found


def _leaves(annotation: Any) -> list[Any]:
    args = typing.get_args(annotation)
    return [leaf for arg in args for leaf in _leaves(arg)] if args else [annotation]


def test_every_model_has_a_section():
    documented = {model for _, model, _ in SECTIONS}
    from kgen.spec.project import OverlaySpec

    roots: list[type[BaseModel]] = [k.model() for k in KINDS.values()]
    roots += [OverlaySpec, ProjectSpec]
    reachable = set().union(*(_models(m) for m in roots))
    assert reachable <= documented, sorted(m.__name__ for m in reachable - documented)


def test_rules_page_is_current():
    from kgen.reference.rules import render_rules

    assert render_rules() in (REPO / "docs" / "rules.md").read_text(), (
        "run `make docs` and commit docs/"
    )


def test_every_reported_code_is_catalogued():
    import re

    from kgen.rules.catalog import RULES

    reported = set()
    for expected in (REPO / "tests" / "cases" / "negative").glob("*/expected.txt"):
        reported |= set(
            re.findall(r"\(([a-z0-9]+(?:-[a-z0-9]+)+)\)$", expected.read_text(), re.M)
        )
    assert reported, "the cases report codes"
    assert reported <= set(RULES), sorted(reported - set(RULES))


def test_pre_commit_hooks_select_kgen_inputs():
    import re

    import yaml

    hooks = {
        hook["id"]: hook
        for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    }
    assert set(hooks) == {
        "kgen-validate",
        "kgen-build-check",
        "kgen-argocd-check",
        "kgen-flux-check",
    }
    for hook in hooks.values():
        assert {"id", "name", "entry", "language"} <= set(hook)
    files = re.compile(hooks["kgen-validate"]["files"])
    assert (
        files.search("jobs/train.yaml")
        and files.search("ml/overlays/gpu.yml")
        and files.search("kgen.yaml")
        and files.search("resources/prod-gpu/agent.yaml")
        and files.search("resources/quota.yml")
    )
    assert not files.search("manifests/dev/train.pytorchjob.yaml") and not files.search(
        "README.md"
    )


def test_the_reference_says_a_job_name_defaults_to_its_file_name():
    # The model requires `name`, but the loader fills it in from the file name first:
    # the reference must not tell users it is required.
    page = (REPO / "docs" / "spec-reference.md").read_text()
    (row,) = [
        line for line in page.splitlines() if line.startswith("| `name` | DNS-1035")
    ]
    assert row.split(" | ")[2] == "the file name"


@pytest.mark.parametrize(
    ("model", "feature"),
    [
        (ElasticPolicy, "elasticPolicy"),
        (SchedulingPolicy, "runPolicy.schedulingPolicy"),
    ],
)
def test_a_policy_names_the_release_it_arrived_in(model: type, feature: str):
    # Both are on every training-operator target from their release, not on `v1`
    # only, and v1-legacy (kubeflow.org/v1 too) lacks them.
    doc = " ".join((model.__doc__ or "").split())
    assert f"training-operator {arrived_in(feature)} and later" in doc
    assert "v1-legacy" not in targets_with(feature)
    assert "v1-legacy and the beta targets have none" in doc
    assert "v1 only" not in doc
