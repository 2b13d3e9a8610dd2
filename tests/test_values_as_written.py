"""Values a message quotes are spelled as the user writes them, in YAML flow style
(`true`, `null`, `{b: c}`, `[a]`, `!!float 5`), never as Python prints them (`True`,
`None`, `{'b': 'c'}`, `['a']`, `5.0`) or as JSON (`"x"`): kgen.flow_style, used by
the pydantic, jsonschema and jsonschema-rs messages (kgen.check.schema_words)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_rs
import pytest

from kgen.check.schema_words import python_worded, rs_worded
from kgen.flow_style import flow_style
from tests.conftest import RunKgen, write_tree

PROJECT = {"kgen.yaml": "environments:\n  dev: []\n"}
JOB = """\
framework: pytorch
image: repo/train:1.0
{extra}
roles:
  master: {{replicas: 1}}
"""


def _validate(tmp_path: Path, run_kgen: RunKgen, files: dict[str, str]) -> str:
    result = run_kgen("validate", cwd=write_tree(tmp_path, {**PROJECT, **files}))
    assert result.code == 1, result
    return result.err


def _job(extra: str) -> dict[str, str]:
    return {"jobs/train.yaml": JOB.format(extra=extra)}


def test_a_spec_value_is_quoted_in_flow_style(tmp_path: Path, run_kgen: RunKgen):
    extra = "imagePullPolicy: {b: c, d: [null]}\ndnsPolicy: true"
    assert _validate(tmp_path, run_kgen, _job(extra)) == (
        # They were `{'b': 'c', 'd': [None]}` and `True`.
        "jobs/train.yaml:3:18: error: {b: c, d: [null]} is not allowed here: input"
        " should be 'Always', 'IfNotPresent' or 'Never' (invalid-value)\n"
        "jobs/train.yaml:4:12: error: true is not allowed here: input should be"
        " 'ClusterFirst', 'ClusterFirstWithHostNet', 'Default' or 'None'"
        " (invalid-value)\n"
        "kgen: 2 errors in 1 file\n"
    )


def test_a_tagged_float_is_quoted_as_written(tmp_path: Path, run_kgen: RunKgen):
    extra = "terminationGracePeriodSeconds: !!float -1"
    assert _validate(tmp_path, run_kgen, _job(extra)) == (
        # It was `-1.0`, which the user never wrote.
        "jobs/train.yaml:3:32: error: expected a whole number, got the number"
        " !!float -1 (wrong-type)\n"
        "kgen: 1 error in 1 file\n"
    )


def test_an_unknown_framework_is_quoted_in_flow_style(
    tmp_path: Path, run_kgen: RunKgen
):
    files = {"jobs/train.yaml": "framework: null\nimage: repo/train:1.0\n"}
    out = _validate(tmp_path, run_kgen, files)
    # It was `None`.
    assert out.startswith("jobs/train.yaml:1:12: error: unknown framework null ")


CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg}
data: {colour: {shade: null, "on": true, list: [x y, "1"]}}
"""


def test_a_team_objects_schema_error_quotes_in_flow_style(
    tmp_path: Path, run_kgen: RunKgen
):
    files = {**_job(""), "resources/cm.yaml": CONFIGMAP}
    # It was `{'shade': None, 'on': True, 'list': ['x y', '1']}`.
    assert (
        "resources/cm.yaml:4:16: error: invalid ConfigMap: {shade: null, 'on': true,"
        " list: ['x y', '1']} is not of type 'string', 'null' (invalid-value)\n"
    ) in _validate(tmp_path, run_kgen, files)


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "null"),
        (True, "true"),
        ("x", "'x'"),
        ({"b": "c"}, "{b: c}"),
        (
            ["a", "it's", "", "yes", "8080", "a: b"],
            "[a, 'it''s', '', 'yes', '8080', 'a: b']",
        ),
        (
            [1, 2.5, float("inf"), -float("inf"), float("nan")],
            "[1, 2.5, .inf, -.inf, .nan]",
        ),
        ({"k": {"n": []}, "e": {}}, "{k: {'n': []}, e: {}}"),
    ],
)
def test_flow_style(value: Any, shown: str):
    assert flow_style(value) == shown


SCHEMA = {
    "properties": {
        "a": {"type": "string"},
        "b": {"enum": ["x", None]},
        "c": {"const": {"k": [True]}},
        "d": {"type": "string", "pattern": "^a$"},
    },
    "required": ["z"],
}
INSTANCE = {"a": {"b": "c", "n": None}, "b": False, "c": None, "d": "b"}
WORDED = [
    "{b: c, 'n': null} is not of type 'string'",
    "false is not one of [x, null]",
    "{k: [true]} was expected",
    "'b' does not match '^a$'",
    "'z' is a required property",
]


def test_jsonschemas_messages_are_respelled():
    validator = jsonschema.Draft202012Validator(SCHEMA)
    found = [python_worded(e.message, e) for e in validator.iter_errors(INSTANCE)]
    assert sorted(found) == sorted(WORDED)


def test_jsonschema_rs_messages_are_respelled():
    # As JSON: `{"b":"c","n":null} is not of type "string"`, `"z" is ...`.
    validator = jsonschema_rs.validator_for(SCHEMA)
    found = [rs_worded(e.message, e.instance) for e in validator.iter_errors(INSTANCE)]
    assert {found[0], found[-1]} <= set(WORDED), found
    assert "'b' does not match '^a$'" in found


def test_explain_shows_values_in_flow_style_and_escaped(
    tmp_path: Path, run_kgen: RunKgen
):
    extra = 'env:\n  - {name: X, value: "a\\u200bb\\nc"}\nargs: ["--x", "true"]'
    root = write_tree(tmp_path, {**PROJECT, **_job(extra)})
    result = run_kgen("explain", "train", "--env", "dev", cwd=root)
    assert result.code == 0, result
    rows = result.out.split("values:\n")[1].split("\n\n")[0].splitlines()
    # The value went out raw (its newline faked a row), the list as JSON.
    assert rows[3:5] == [
        "  env[0].value: a\\u200bb\\x0ac  jobs/train.yaml:4:22",
        "  args: ['--x', 'true']        jobs/train.yaml:5:7",
    ]


def test_explain_escapes_what_a_patch_wrote(tmp_path: Path, run_kgen: RunKgen):
    patches = 'patches:\n  - merge: {metadata: {annotations: {note: "a\\u200bb"}}}'
    root = write_tree(tmp_path, {**PROJECT, **_job(patches)})
    result = run_kgen("explain", "train", "--env", "dev", cwd=root)
    assert result.code == 0, result
    section = result.out.split("(patches:):\n")[1].split("\n\n")[0]
    # The bidi override went out raw, and turned the row around.
    assert (
        section
        == "  PyTorchJob train metadata.annotations.note: a\\u200bb  jobs/train.yaml:4:44"
    )


def test_a_duplicate_in_a_set_or_map_list_is_quoted_in_flow_style():
    from kgen.check.cel_lists import duplicate_elements

    found = list(duplicate_elements(["2", "2"], (), ("args",)))
    # It was JSON: `"2"`, and `{"name": "SEED"}`.
    assert found == [(("args", 1), "Duplicate value: '2'")]
    env = [{"name": "SEED", "value": "1"}, {"name": "SEED"}]
    found = list(duplicate_elements(env, ("name",), ("env",)))
    assert found == [(("env", 1), "Duplicate value: {name: SEED}")]
