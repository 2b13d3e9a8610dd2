"""What a problem quotes of a value the user wrote: the value as written (`1e400`, not
inf), a word too long to read cut short, and characters that would hide or reorder
text escaped (kgen.errors.Problem, kgen.pipeline.locate)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kgen.errors import Problem, shown_path
from tests.conftest import RunKgen, write_tree

# The longest word a problem quotes whole (kgen.errors.MAX_QUOTED_WORD).
QUOTED_WORD = 1024
PROJECT = {
    "kgen.yaml": "environments:\n  dev: []\n",
}
JOB = """\
framework: pytorch
image: repo/train:1.0
{extra}
resources:
  requests: {{cpu: "1", memory: 1Gi}}
  limits: {{memory: 1Gi}}
roles:
  master: {{replicas: 1}}
  worker: {{replicas: 1}}
"""


def _validate(tmp_path: Path, run_kgen: RunKgen, extra: str) -> str:
    files = {**PROJECT, "jobs/train.yaml": JOB.format(extra=extra)}
    result = run_kgen("validate", cwd=write_tree(tmp_path, files))
    assert result.code == 1, result
    return result.out + result.err


def test_a_number_is_quoted_as_written_not_as_python_reads_it(
    tmp_path: Path, run_kgen: RunKgen
):
    out = _validate(tmp_path, run_kgen, "sharedMemory: 1e400\nrunPolicy: -1e400")
    # It was 'inf', which the user never wrote.
    assert "jobs/train.yaml:3:15: error: '1e400' is not a Kubernetes quantity" in out
    assert "inf" not in out


def test_a_key_too_long_to_read_is_cut_short(tmp_path: Path, run_kgen: RunKgen):
    key = "k" * 1100  # over YAML's 1,024 of a simple key: written as `? key`
    out = _validate(tmp_path, run_kgen, f"? {key}\n: 1")
    # It was quoted whole.
    assert f"unknown key '{'k' * QUOTED_WORD}...' (unknown-key)" in out
    assert key not in out


def test_characters_that_hide_or_reorder_text_are_escaped(
    tmp_path: Path, run_kgen: RunKgen
):
    value = "a\u202eb\u3164c\ufe0fd\u200b"
    out = _validate(tmp_path, run_kgen, f'labels: {{team: "{value}"}}')
    assert "'a\\u202eb\\u3164c\\ufe0fd\\u200b' is not a valid label value" in out
    assert not any(c in out for c in "\u202e\u3164\ufe0f\u200b")


def test_a_mask_cut_short_stays_whole():
    problem = Problem("x" * (QUOTED_WORD - 1) + "*" * 5, "invalid-value")
    assert problem.message == "x" * (QUOTED_WORD - 1) + "***..."


def test_a_character_past_u_ffff_is_escaped_as_yaml_reads_it_back(
    tmp_path: Path, run_kgen: RunKgen
):
    # A tag character (U+E0041, invisible: "ASCII smuggling") and a variation selector
    # of the supplement (U+E0100).
    value = "a\U000e0041b\U000e0100c"
    out = _validate(tmp_path, run_kgen, f'labels: {{team: "{value}"}}')
    # It was `\ue0041`: no escape any reader knows, and `\ue004` + `1` to YAML.
    assert "'a\\U000e0041b\\U000e0100c' is not a valid label value" in out
    escaped = out.split("'")[1]
    assert yaml.safe_load(f'"{escaped}"') == value


@pytest.mark.parametrize(
    "fmt", ["text", "parsable", "json", "github", "sarif", "junit"]
)
def test_every_format_escapes_a_field_path_as_the_message_does(
    tmp_path: Path, run_kgen: RunKgen, fmt: str
):
    files = {**PROJECT, "jobs/train.yaml": JOB.format(extra='"a\u202eb\u200b": 1')}
    result = run_kgen("validate", "--format", fmt, cwd=write_tree(tmp_path, files))
    assert result.code == 1, result
    output = result.out + result.err
    # The json format wrote the `field` raw, though the message beside it was escaped.
    assert not any(c in output for c in "\u202e\u200b"), output
    if fmt == "json":
        (problem,) = json.loads(result.out)["problems"]
        assert problem["message"] == "unknown key 'a\\u202eb\\u200b'"
        assert problem["field"] == "a\\u202eb\\u200b"


def test_a_field_path_is_masked_and_cut_as_the_message_is():
    problem = Problem("unknown key", "unknown-key", path=("k" * 1100, 0))
    assert shown_path(problem.path) == "k" * QUOTED_WORD + "..."
    assert shown_path(("https://u:hunter2@h/x",)) == "https://u:***@h/x"


def test_an_infinite_number_is_quoted_as_written_in_a_bound_message(
    tmp_path: Path, run_kgen: RunKgen
):
    out = _validate(tmp_path, run_kgen, "terminationGracePeriodSeconds: -1e400")
    # Quoted in flow style (`-.inf`), it was no longer found to be put back as written.
    assert (
        "jobs/train.yaml:3:32: error: expected a whole number, got the number -1e400"
        in out
    )
