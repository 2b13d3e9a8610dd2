"""A role that overrides nothing shares the job's settings with every such role; the
settings it gets are exactly those it would have made alone (kgen.render.roles)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kgen.kinds import kind_for
from kgen.render.roles import _role_settings, role_settings
from kgen.spec.job import role_items

JOB: dict[str, Any] = {
    "name": "train",
    "framework": "tensorflow",
    "image": "repo/train:1",
    "command": ["python", "-m", "train"],
    "env": [{"name": "A", "value": "1"}],
    "resources": {"requests": {"cpu": "4"}, "limits": {"memory": "8Gi"}, "gpu": 1},
    "nodeSelector": {"pool": "gpu"},
}

# One value for each kind of override a role may set; an empty list is an override.
OVERRIDES: dict[str, Any] = {
    "image": "repo/other:2",
    "command": [],
    "args": ["--fast"],
    "env": [{"name": "A", "value": "2"}],
    "resources": {"requests": {"cpu": "2"}},
    "nodeSelector": {"pool": "cpu"},
    "sharedMemory": "1Gi",
    "podLabels": {"tier": "ps"},
    "podAnnotations": {"note": "x"},
    "livenessProbe": {"tcpSocket": {"port": 2222}},
    "readinessProbe": {"tcpSocket": {"port": 2222}},
    "startupProbe": {"tcpSocket": {"port": 2222}},
    "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
    "affinity": {"nodeAffinity": {}},
    "securityContext": {"runAsNonRoot": True},
    "podSecurityContext": {"runAsNonRoot": True},
    "containers": [{"name": "side", "image": "repo/side:1"}],
    "initContainers": [{"name": "warm", "image": "repo/warm:1"}],
    "ports": [{"name": "metrics", "containerPort": 9400}],
}
ROLES = ("chief", "worker", "ps", "evaluator")


@settings(max_examples=60, deadline=None)
@given(
    st.fixed_dictionaries(
        {
            role: st.lists(st.sampled_from(sorted(OVERRIDES)), unique=True, max_size=2)
            for role in ROLES
        }
    )
)
def test_shared_settings_equal_each_roles_own(overrides: dict[str, list[str]]):
    roles = {
        role: {"replicas": 1, **{key: OVERRIDES[key] for key in keys}}
        for role, keys in overrides.items()
    }
    spec = kind_for("tensorflow").model().model_validate({**JOB, "roles": roles})
    made = {name: role_settings(spec, name, role) for name, role in role_items(spec)}
    for name, role in role_items(spec):
        assert made[name] == _role_settings(spec, name, role)
    kind = kind_for("tensorflow")
    plain = [name for name in made if not overrides[name]]
    for one in plain:
        for other in plain:
            alike = kind.role(one).gpu_by_default == kind.role(other).gpu_by_default
            assert (made[one] is made[other]) == alike
    for name, keys in overrides.items():
        if keys:
            assert all(made[name] is not made[other] for other in made if other != name)


def test_the_roles_kept_for_the_last_spec_are_that_specs_and_each_callers_own():
    model = kind_for("tensorflow").model()
    one = model.model_validate({**JOB, "roles": {"chief": {"replicas": 1}}})
    two = model.model_validate({**JOB, "roles": {"worker": {"replicas": 3}}})
    first = role_items(one)
    assert [name for name, _ in first] == ["chief"]
    first.clear()  # a caller's list is its own
    assert [name for name, _ in role_items(one)] == ["chief"]
    assert [(name, role.replicas) for name, role in role_items(two)] == [("worker", 3)]
    assert [name for name, _ in role_items(one)] == ["chief"]
