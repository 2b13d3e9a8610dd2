"""What the rules share of a spec (kgen.rules.places), what a role's settings take at
one look (kgen.render.roles) and the values a field's check remembers
(kgen.spec.fields): each the same as the walk or check it stands for."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest
from pydantic import BaseModel

from kgen.kinds import ALL_KINDS
from kgen.load.project import load_project
from kgen.pipeline.run import run
from kgen.render.roles import _OVERRIDES
from kgen.rules import reuse
from kgen.rules.places import FIELDS, places
from kgen.spec import fields
from kgen.spec.job import role_items
from kgen.spec.role import Role
from tests.conftest import copy_example


def _subclasses(model: type[BaseModel]) -> list[type[BaseModel]]:
    found = [model]
    for sub in model.__subclasses__():
        found += _subclasses(sub)
    return found


def test_a_role_that_sets_no_override_holds_none_in_each():
    # kgen.render.roles: a role whose data sets none of the overrides runs with the
    # job's settings, looked at in its fields set alone.
    roles = _subclasses(Role)
    for kind in ALL_KINDS:
        model = kind.model().model_fields["roles"].annotation
        assert isinstance(model, type) and issubclass(model, BaseModel)
        for info in model.model_fields.values():
            role = next(a for a in getattr(info.annotation, "__args__", ()) if a)
            assert role in roles
    assert all(
        model.model_fields[name].default is None
        and not model.model_fields[name].is_required()
        for model in roles
        for name in _OVERRIDES
    )
    role = Role.model_validate({"replicas": 2, "image": None})
    assert role.model_fields_set == {"replicas", "image"}


def _specs(root: Path, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    specs: list[Any] = []
    real = reuse.ruled

    def ruled(spec: Any, *args: Any) -> Any:
        specs.append(spec)
        return real(spec, *args)

    monkeypatch.setattr(reuse, "ruled", ruled)
    project, problems = load_project(root, use_cache=False)
    assert project is not None, problems
    run(project, keep=True)
    return specs


def test_places_hold_what_each_owner_sets_in_its_own_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    root = copy_example(tmp_path / "p")
    # A job that sets every field the rules ask a place for, job-wide and per role.
    pod = {
        "livenessProbe": {"exec": {"command": ["true"]}},
        "securityContext": {"runAsUser": 1},
        "podSecurityContext": {"runAsUser": 1},
        "containers": [{"name": "side", "image": "x:1"}],
        "initContainers": [{"name": "warm", "image": "x:1"}],
        "ports": [{"containerPort": 9000}],
        "nodeSelector": {"a": "b"},
        "tolerations": [{"key": "a", "operator": "Exists"}],
        "affinity": {"nodeAffinity": {}},
    }
    job = {
        "name": "every-field",
        "framework": "pytorch",
        "image": "x:1",
        **pod,
        "hostAliases": [{"ip": "10.0.0.1", "hostnames": ["a"]}],
        "topologySpreadConstraints": [],
        "roles": {"master": {"replicas": 1, **pod}, "worker": {"replicas": 2}},
    }
    (root / "jobs" / "every-field.yaml").write_text(json.dumps(job))
    specs = _specs(root, monkeypatch)
    assert len(specs) > 20
    every = 0
    for spec in specs:
        found = places(spec)
        assert [p.path for p in found] == [
            (),
            *(("roles", name) for name, _ in role_items(spec)),
        ]
        for place in found:
            expected = {
                k: v for k, v in place.owner.__dict__.items() if k in FIELDS and v
            }
            assert list(place.set.items()) == list(expected.items())
            every += len(place.set) >= 9
    assert every >= 2
    assert places(specs[0]) is places(specs[0])


def test_a_check_remembers_only_what_it_found_valid():
    calls: list[str] = []

    def check(value: str) -> str | None:
        calls.append(value)
        return "bad" if value.startswith("x") else None

    run_check = cast("Callable[[str], str]", fields.checked(check).func)
    assert run_check("ok") == "ok"
    assert run_check("ok") == "ok"
    assert calls == ["ok"]
    for _ in range(2):
        with pytest.raises(ValueError, match="bad"):
            run_check("xy")
    assert calls == ["ok", "xy", "xy"]
    long = "o" * (fields.MAX_REMEMBERED_LENGTH + 1)
    run_check(long)
    run_check(long)
    assert calls.count(long) == 2
    for index in range(fields.MAX_REMEMBERED):
        run_check(f"v{index}")
    calls.clear()
    run_check("ok")  # forgotten once as many others were remembered
    assert calls == ["ok"]


def test_each_source_of_a_one_of_model_is_a_field():
    # kgen.spec.base.OneOf reads its sources from the model's __dict__.
    from kgen.spec.base import OneOf

    sources = {m: getattr(m, "_sources", ()) for m in _subclasses(OneOf)}
    models = [m for m, names in sources.items() if names]
    assert len(models) >= 4
    assert all(set(sources[m]) <= m.model_fields.keys() for m in models)
