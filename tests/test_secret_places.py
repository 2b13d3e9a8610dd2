"""A value under a secret's name: never quoted in a message, whatever is wrong with it,
and never written out as a literal, wherever the name stands (its own key in a label-like
map, or the `name` or `key` beside it)."""

from __future__ import annotations

from typing import Any

import pytest

from kgen.errors import unquoted
from kgen.kinds import kind_for
from kgen.rules.context import RuleContext
from kgen.rules.secret_names import secret_place
from kgen.rules.secrets import SECRET_RULES
from kgen.spec.validate import validate_model

JOB: dict[str, Any] = {
    "name": "train",
    "framework": "pytorch",
    "image": "registry.example.com/train:1.0",
    "roles": {"master": {"replicas": 1}},
}


def _at(data: Any) -> Any:
    def lookup(path: tuple[str | int, ...]) -> object:
        node = data
        for part in path:
            try:
                node = node[part]
            except (KeyError, IndexError, TypeError):
                return None
        return node

    return lookup


@pytest.mark.parametrize(
    ("data", "path", "name"),
    [
        ({"labels": {"db-password": 1}}, ("labels", "db-password"), "db-password"),
        (
            {"a": {"example.com/api-key": 1}},
            ("a", "example.com/api-key"),
            "example.com/api-key",
        ),
        (
            {"env": [{"name": "API_TOKEN", "value": 1}]},
            ("env", 0, "value"),
            "API_TOKEN",
        ),
        ({"t": [{"key": "password", "value": 1}]}, ("t", 0, "value"), "password"),
        (
            {"m": [{"key": "password", "values": [1]}]},
            ("m", 0, "values", 0),
            "password",
        ),
        ({"env": [{"name": "HOME", "value": 1}]}, ("env", 0, "value"), None),
        # An item after a flag named like a secret, unless it is a flag itself.
        ({"args": ["--hf-token", ["x"]]}, ("args", 1), "hf-token"),
        ({"args": ["--password", "--verbose"]}, ("args", 1), None),
        ({"args": ["--port", "8080"]}, ("args", 1), None),
        # A name or a key is a name: `secretKeyRef: {name: db, key: password}`.
        ({"r": {"name": "db", "key": "password"}}, ("r", "key"), None),
        ({"labels": {"token-type": "bearer"}}, ("labels", "token-type"), None),
    ],
)
def test_the_name_a_value_sits_under(data: Any, path: Any, name: str | None):
    assert secret_place(path, _at(data)) == name


def _messages(job: dict[str, Any]) -> list[str]:
    spec, problems = validate_model(kind_for("pytorch").model(), {**JOB, **job})
    assert spec is None
    return [p.message for p in problems]


def test_a_secret_that_fails_a_check_is_described_not_quoted():
    assert _messages({"env": [{"name": "API_TOKEN", "value": 918273645546372819}]}) == [
        "expected a string, got a number"
    ]
    assert _messages({"labels": {"db-password": "Hunter2!Hunter2"}}) == [
        "*** is not a valid label value: at most 63 letters, digits, '-', '_' or '.',"
        " starting and ending alphanumeric"
    ]
    # The same value under another name is quoted, to be found.
    assert _messages({"labels": {"team": "Hunter2!Hunter2"}})[0].startswith(
        "'Hunter2!Hunter2' is not a valid label value"
    )


def test_a_long_value_is_quoted_by_its_start_masked_first():
    url = "https://admin:Hunter2xHunter2@db.example.com/" + "x" * 300
    (message,) = _messages({"labels": {"team": url}})
    assert message.startswith("'https://admin:***@db.example.com/xxx")
    assert "Hunter2" not in message and len(message) < 400


def test_unquoted_replaces_every_form_of_the_value():
    assert unquoted('"abc1" is not of type "integer"', "abc1") == (
        '*** is not of type "integer"'
    )
    assert unquoted("12345 is out of range", 12345) == "*** is out of range"
    # A short value is replaced only where quoted: "a" is also a word.
    assert unquoted("'a' is not a valid name", "a") == "*** is not a valid name"
    # A list or mapping where a string belongs is hidden whole, and so is each value.
    value = ["hunter2secretvalue", {"k": 918273645}]
    assert unquoted(f"{value!r} is not of type 'string'", value) == (
        "*** is not of type 'string'"
    )
    assert unquoted("'hunter2secretvalue' is too long", value) == "*** is too long"


def _literal_problems(job: dict[str, Any]) -> list[tuple[str, str]]:
    spec, problems = validate_model(kind_for("pytorch").model(), {**JOB, **job})
    assert spec is not None, problems
    context = RuleContext()
    return sorted(
        (".".join(map(str, p.path)), p.message)
        for rule in SECRET_RULES
        for p in rule(spec, context)
    )


def test_literals_under_secret_like_keys_are_errors_where_the_key_is_a_name():
    affinity = {
        "podAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {
                    "labelSelector": {"matchLabels": {"api-token": "abc123"}},
                    # An API field named like a secret: says nothing of its value.
                    "topologyKey": "kubernetes.io/hostname",
                }
            ]
        }
    }
    found = _literal_problems(
        {"nodeSelector": {"password": "Hunter2x"}, "affinity": affinity}
    )
    assert found == [
        (
            "affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution.0"
            ".labelSelector.matchLabels.api-token",
            "affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
            ".labelSelector.matchLabels.api-token holds a literal value for api-token,"
            " which would land in git and the cluster",
        ),
        (
            "nodeSelector.password",
            "nodeSelector.password holds a literal value for password, which would"
            " land in git and the cluster",
        ),
    ]


def test_a_name_allowed_as_a_literal_is_allowed_as_a_key_too():
    job = {
        "labels": {"db-password": "hunter2"},
        "lint": {"allowLiterals": {"db-password": "a test database"}},
    }
    assert _literal_problems(job) == []
