"""The kind registry: every registered kind has every part kgen asks it for, and its
declaration agrees with its model, the targets and the catalogue."""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Protocol

import pytest
from pydantic import BaseModel

import kgen.kinds.jax.env
import kgen.kinds.jax.envelope
import kgen.kinds.jax.importer
import kgen.kinds.jax.render
import kgen.kinds.jax.rules
import kgen.kinds.jax.spec
import kgen.kinds.mpi.env
import kgen.kinds.mpi.envelope
import kgen.kinds.mpi.importer
import kgen.kinds.mpi.render
import kgen.kinds.mpi.rules
import kgen.kinds.mpi.spec
import kgen.kinds.paddle.env
import kgen.kinds.paddle.envelope
import kgen.kinds.paddle.importer
import kgen.kinds.paddle.render
import kgen.kinds.paddle.rules
import kgen.kinds.paddle.spec
import kgen.kinds.pytorch.env
import kgen.kinds.pytorch.envelope
import kgen.kinds.pytorch.importer
import kgen.kinds.pytorch.render
import kgen.kinds.pytorch.rules
import kgen.kinds.pytorch.spec
import kgen.kinds.tensorflow.env
import kgen.kinds.tensorflow.envelope
import kgen.kinds.tensorflow.importer
import kgen.kinds.tensorflow.render
import kgen.kinds.tensorflow.rules
import kgen.kinds.tensorflow.spec
import kgen.kinds.trainer.env
import kgen.kinds.trainer.envelope
import kgen.kinds.trainer.importer
import kgen.kinds.trainer.render
import kgen.kinds.trainer.rules
import kgen.kinds.trainer.spec
import kgen.kinds.xgboost.env
import kgen.kinds.xgboost.envelope
import kgen.kinds.xgboost.importer
import kgen.kinds.xgboost.render
import kgen.kinds.xgboost.rules
import kgen.kinds.xgboost.spec
from kgen.errors import Problem
from kgen.kinds import ALL_KINDS, FRAMEWORKS, KINDS, kind_for, kind_named, kinds_on
from kgen.kinds.base import Kind, Replica
from kgen.kinds.targets import TARGETS, ApiTarget
from kgen.render.base import Environment
from kgen.rules.catalog import RULES
from kgen.rules.context import Rule
from kgen.spec.job import JobSpec


# What kgen.kinds.base asks of each part; mypy checks each kind's modules against it.
class SpecPart(Protocol):
    @property
    def MODEL(self) -> type[JobSpec]: ...
    @property
    def ROLES(self) -> type[BaseModel]: ...
    @property
    def REFERENCE(self) -> list[tuple[str, type[BaseModel]]]: ...
    @property
    def TYPE_NAMES(self) -> dict[Any, str]: ...
    def scale_limit(self, spec: JobSpec) -> int | None: ...


class RenderPart(Protocol):
    def render(
        self, spec: JobSpec, env: Environment
    ) -> tuple[dict[str, Any], list[Problem]]: ...
    def live_pointers(self, spec: JobSpec) -> list[str]: ...


class EnvPart(Protocol):
    def replicas(
        self, spec: JobSpec, env: Environment, name: str, limit: int | None
    ) -> list[Replica]: ...


class RulesPart(Protocol):
    @property
    def RULES(self) -> tuple[Rule, ...]: ...


class EnvelopePart(Protocol):
    def fields(self, target: ApiTarget) -> dict[str, Any]: ...


class ImporterPart(Protocol):
    def read_fields(
        self,
        spec: dict[str, Any],
        target: str,
        out: dict[str, Any],
        notes: list[Problem],
    ) -> dict[str, Any]: ...


PARTS: dict[str, type[Any]] = {
    "spec": SpecPart,
    "render": RenderPart,
    "env": EnvPart,
    "rules": RulesPart,
    "envelope": EnvelopePart,
    "importer": ImporterPart,
}
# Static: a kind whose module lacks a part, or has it with another signature, fails mypy.
_pytorch: tuple[
    SpecPart, RenderPart, EnvPart, RulesPart, EnvelopePart, ImporterPart
] = (
    kgen.kinds.pytorch.spec,
    kgen.kinds.pytorch.render,
    kgen.kinds.pytorch.env,
    kgen.kinds.pytorch.rules,
    kgen.kinds.pytorch.envelope,
    kgen.kinds.pytorch.importer,
)
_tensorflow: tuple[
    SpecPart, RenderPart, EnvPart, RulesPart, EnvelopePart, ImporterPart
] = (
    kgen.kinds.tensorflow.spec,
    kgen.kinds.tensorflow.render,
    kgen.kinds.tensorflow.env,
    kgen.kinds.tensorflow.rules,
    kgen.kinds.tensorflow.envelope,
    kgen.kinds.tensorflow.importer,
)

_mpi: tuple[SpecPart, RenderPart, EnvPart, RulesPart, EnvelopePart, ImporterPart] = (
    kgen.kinds.mpi.spec,
    kgen.kinds.mpi.render,
    kgen.kinds.mpi.env,
    kgen.kinds.mpi.rules,
    kgen.kinds.mpi.envelope,
    kgen.kinds.mpi.importer,
)
_xgboost: tuple[
    SpecPart, RenderPart, EnvPart, RulesPart, EnvelopePart, ImporterPart
] = (
    kgen.kinds.xgboost.spec,
    kgen.kinds.xgboost.render,
    kgen.kinds.xgboost.env,
    kgen.kinds.xgboost.rules,
    kgen.kinds.xgboost.envelope,
    kgen.kinds.xgboost.importer,
)
_jax: tuple[SpecPart, RenderPart, EnvPart, RulesPart, EnvelopePart, ImporterPart] = (
    kgen.kinds.jax.spec,
    kgen.kinds.jax.render,
    kgen.kinds.jax.env,
    kgen.kinds.jax.rules,
    kgen.kinds.jax.envelope,
    kgen.kinds.jax.importer,
)
_paddle: tuple[SpecPart, RenderPart, EnvPart, RulesPart, EnvelopePart, ImporterPart] = (
    kgen.kinds.paddle.spec,
    kgen.kinds.paddle.render,
    kgen.kinds.paddle.env,
    kgen.kinds.paddle.rules,
    kgen.kinds.paddle.envelope,
    kgen.kinds.paddle.importer,
)

_trainer: tuple[
    SpecPart, RenderPart, EnvPart, RulesPart, EnvelopePart, ImporterPart
] = (
    kgen.kinds.trainer.spec,
    kgen.kinds.trainer.render,
    kgen.kinds.trainer.env,
    kgen.kinds.trainer.rules,
    kgen.kinds.trainer.envelope,
    kgen.kinds.trainer.importer,
)

KIND_IDS = [kind.kind for kind in ALL_KINDS]


def _members(protocol: type[Any]) -> dict[str, Any]:
    return {
        name: value
        for name, value in vars(protocol).items()
        if not name.startswith("_") and (callable(value) or isinstance(value, property))
    }


@pytest.mark.parametrize("kind", ALL_KINDS, ids=KIND_IDS)
@pytest.mark.parametrize("part", PARTS)
def test_every_kind_has_every_part(kind: Kind, part: str):
    module = importlib.import_module(f"{kind.package}.{part}")
    for name, member in _members(PARTS[part]).items():
        assert hasattr(module, name), f"{module.__name__} has no {name}"
        if not isinstance(member, property):
            wanted = list(inspect.signature(member).parameters)[1:]
            # A part may take more, keyword-only and defaulted, where its kind needs
            # them (a TrainJob's importer: the objects imported beside it).
            given = inspect.signature(getattr(module, name)).parameters.values()
            extra = [p for p in given if p.kind is p.KEYWORD_ONLY]
            assert [p.name for p in given if p not in extra] == wanted
            assert all(p.default is not p.empty for p in extra)


@pytest.mark.parametrize("kind", ALL_KINDS, ids=KIND_IDS)
def test_the_declaration_agrees_with_the_model(kind: Kind):
    model = kind.model()
    assert model.model_fields["framework"].examples == [kind.framework]
    assert list(kind.roles_model().model_fields) == [role.name for role in kind.roles]
    assert model.model_fields["roles"].annotation is kind.roles_model()
    keys = [role.key for role in kind.roles]
    assert len(set(keys)) == len(keys) and set(keys) <= set(kind.api_roles)


@pytest.mark.parametrize("kind", ALL_KINDS, ids=KIND_IDS)
def test_the_declaration_names_real_targets_and_catalogued_codes(kind: Kind):
    assert kind.targets <= set(TARGETS)
    for field, targets in kind.fields.items():
        assert targets <= kind.targets, field
        assert field in kind.model().model_json_schema(by_alias=True)["properties"]
    assert set(kind.clean_pod_policy_on) <= kind.targets
    for info in kind.catalog:
        assert RULES[info.id] is info
    for role in kind.roles:
        if role.single is not None:
            assert role.single.code in RULES


def test_lookups():
    assert FRAMEWORKS == ("pytorch", "tensorflow", "mpi", "xgboost", "jax", "paddle")
    assert kind_for("pytorch").kind == "PyTorchJob"
    assert kind_named("TFJob") is kind_for("tensorflow")
    assert kind_named("MPIJob") is kind_for("mpi")
    assert kind_named("Deployment") is None
    assert [k.kind for k in kinds_on(TARGETS["v1beta1"])] == ["PyTorchJob", "TFJob"]
    assert [k.kind for k in kinds_on(TARGETS["v1"])] == [
        "PyTorchJob",
        "TFJob",
        "MPIJob",
        "XGBoostJob",
        "PaddleJob",
    ]
    # JAXJob arrived in training-operator 1.9; v1 is the 1.7-and-later line.
    assert "JAXJob" in [k.kind for k in kinds_on(TARGETS["training-operator-1.9"])]
    assert [k.kind for k in kinds_on(TARGETS["mpi-operator"])] == ["MPIJob"]


def test_codes_are_not_shared_between_kinds():
    codes = [info.id for kind in KINDS.values() for info in kind.catalog]
    assert len(codes) == len(set(codes))


@pytest.mark.parametrize(
    ("target", "roles", "expected"),
    [
        ("v1", ["worker"], "None"),
        ("v1-legacy", ["worker"], "Running"),
        ("v1", ["worker", "ps"], "Running"),
        ("v1beta1", ["chief"], "Running"),
    ],
)
def test_tf_clean_pod_policy_default(target: str, roles: list[str], expected: str):
    assert kind_for("tensorflow").default_clean_pod_policy(target, roles) == expected


@pytest.mark.parametrize("target", TARGETS)
def test_pytorch_keeps_the_operator_clean_pod_policy_default(target: str):
    assert kind_for("pytorch").default_clean_pod_policy(target, ["master"]) == "None"
