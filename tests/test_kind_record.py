"""A kind's declaration (kgen.kinds.base.Kind) behaves as the frozen record it was:
immutable, equal by its declared fields, unhashable, its roles looked up by name."""

from __future__ import annotations

from typing import Any

import pytest

from kgen.kinds import KINDS
from kgen.kinds.base import Kind

DECLARED = (
    *("framework", "kind", "group", "replica_key", "roles", "api_roles"),
    *("container", "port_name", "port", "default_restart", "targets", "fields"),
    *("clean_pod_policy", "clean_pod_policy_on", "health", "catalog", "package"),
    *("first_container", "sections", "appends_env"),
)


def _copy(kind: Kind, **changes: Any) -> Kind:
    return Kind(**{name: getattr(kind, name) for name in DECLARED} | changes)


def test_a_kind_is_immutable_and_unhashable():
    kind = KINDS["pytorch"]
    with pytest.raises(AttributeError):
        kind.port = 1
    with pytest.raises(TypeError):
        hash(kind)


def test_kinds_are_equal_by_their_declared_fields():
    kind = KINDS["tensorflow"]
    assert _copy(kind) == kind and _copy(kind) is not kind
    assert _copy(kind, port=kind.port + 1) != kind
    assert KINDS["pytorch"] != kind
    assert repr(kind) == "Kind(framework='tensorflow', kind='TFJob')"


def test_roles_are_found_by_name_and_by_key():
    kind = KINDS["tensorflow"]
    assert [kind.role(role.name) for role in kind.roles] == list(kind.roles)
    assert kind.role_for_key("PS") == kind.role("ps")
    with pytest.raises(KeyError):
        kind.role("nobody")
