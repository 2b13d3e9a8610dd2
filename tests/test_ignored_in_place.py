"""A job changed in place when kgen.yaml ignores the warning (`lint.ignore:
job-changed-in-place`): no warning, and the committed index is still read and refused
when damaged, as without the setting (kgen.commands.outcome)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import RunKgen, copy_example

IGNORED = "lint:\n  ignore:\n    job-changed-in-place: jobs here never run twice\n"
# A line kgen never writes: the index is refused at that line, with a way out.
DAMAGED = (
    "manifests/.kgen-index:102:11: error: the index lists 'manifests/../escape.yaml'"
)


@pytest.fixture
def changed(tmp_path: Path, run_kgen: RunKgen) -> Path:
    """The example, built, with one job changed since."""
    root = copy_example(tmp_path / "example")
    assert run_kgen("build", cwd=root).code == 0
    spec = root / "jobs" / "tf-ps.yaml"
    spec.write_text(spec.read_text().replace("    replicas: 4\n", "    replicas: 6\n"))
    return root


def _ignore_in_place(root: Path) -> None:
    project = root / "kgen.yaml"
    project.write_text(project.read_text() + IGNORED)


def test_an_ignored_change_in_place_is_not_reported(changed: Path, run_kgen: RunKgen):
    warned = run_kgen("validate", "jobs/tf-ps.yaml", cwd=changed)
    assert warned.code == 0 and "(job-changed-in-place)" in warned.err
    _ignore_in_place(changed)
    result = run_kgen("validate", "jobs/tf-ps.yaml", cwd=changed)
    assert result.code == 0, result
    assert result.err == warned.err.splitlines(keepends=True)[-1]
    assert result.err.endswith(": valid\n")


def test_a_damaged_index_is_refused_whether_the_warning_is_ignored_or_not(
    changed: Path, run_kgen: RunKgen
):
    index = changed / "manifests" / ".kgen-index"
    index.write_text(index.read_text() + "manifests/../escape.yaml\n")
    refused = run_kgen("validate", "jobs/tf-ps.yaml", cwd=changed)
    assert refused.code == 1 and refused.err.startswith(DAMAGED), refused
    assert "restore it from git" in refused.err
    _ignore_in_place(changed)
    assert run_kgen("validate", "jobs/tf-ps.yaml", cwd=changed) == refused
