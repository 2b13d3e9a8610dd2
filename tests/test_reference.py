"""The README's spec reference is generated from the models, and its examples are real."""

from __future__ import annotations

import typing
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, TypeAdapter

from kgen.models import PyTorchJobSpec, TFJobSpec
from kgen.project import ProjectSpec
from kgen.reference import SECTIONS, render_reference
from tests.conftest import REPO

FIELDS = [
    (model, name, info)
    for _where, model, skip in SECTIONS
    for name, info in model.model_fields.items()
    if name not in skip
]


def test_readme_reference_is_current():
    readme = (REPO / "README.md").read_text()
    assert render_reference() in readme, "run `make docs` and commit README.md"


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
    from kgen.project import OverlaySpec

    reachable = set().union(
        *(_models(m) for m in (PyTorchJobSpec, TFJobSpec, OverlaySpec, ProjectSpec))
    )
    assert reachable <= documented, sorted(m.__name__ for m in reachable - documented)
