"""What the build after a one-spec edit imports: the renderer and the checks of that
job, not PyYAML, which kgen's own emitter leaves only multi-line strings, floats and
strings it would have to quote (kgen.output.emitter); workers that emit get PyYAML
before they fork."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, RunKgen
from tests.test_startup import (
    EMITTER,
    FULL_LOADER,
    RENDERERS,
    TRAINJOB_MODELS,
    WORKERS,
)
from tests.test_startup import imported as imported_by

sys.path.insert(0, str(REPO / "benchmarks"))
from generate import edit_spec, generate


def test_a_one_spec_rebuild_renders_without_pyyaml(tmp_path: Path) -> None:
    root = tmp_path / "project"
    generate(root, 3)
    assert imported_by("build", cwd=root)[0] == 0
    edit_spec(root, 1, 41)
    code, modules = imported_by("build", cwd=root)
    assert code == 0
    assert RENDERERS in modules  # it rendered the edited job
    assert {EMITTER, WORKERS} & modules == set()
    # A PyTorchJob's models alone, and the loader's fast path alone.
    assert {TRAINJOB_MODELS, FULL_LOADER} & modules == set()
    # Its few files are written in place: no tree to swap in (renameat2 through
    # ctypes), and no file kgen did not write to warn of.
    assert {"ctypes", "kgen.resources.emit"} & modules == set()


def test_a_cold_build_in_one_process_imports_pyyaml_only_when_a_render_needs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Enough renders for workers (200), but KGEN_WORKERS=1: nothing forks to
    inherit PyYAML, and no manifest needs it."""
    root = tmp_path / "project"
    generate(root, 50)
    monkeypatch.setenv("KGEN_WORKERS", "1")
    monkeypatch.setenv("KGEN_NO_CACHE", "1")
    code, modules = imported_by("build", cwd=root)
    assert code == 0
    assert RENDERERS in modules
    assert {EMITTER, WORKERS} & modules == set()


def test_a_render_left_to_pyyaml_is_written_as_a_cold_build_writes_it(
    tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A one-spec rebuild whose render kgen's emitter leaves to PyYAML (a multi-line
    value), with PyYAML imported only then, writes the bytes a cold build writes."""
    root = tmp_path / "project"
    generate(root, 3)
    assert run_kgen("build", "-C", str(root)).code == 0
    spec = root / "jobs" / "job-00001.yaml"
    text, count = re.subn(
        r'value: "\d+"', r'value: "set -e\\nrun"', spec.read_text(), count=1
    )
    assert count == 1
    spec.write_text(text)
    warm = run_kgen("build", "-C", str(root))
    assert warm.code == 0, warm.err
    job = root / "manifests" / "dev-cpu" / "pt-job-00001.pytorchjob.yaml"
    assert "value: |-\n" in job.read_text()  # written by PyYAML
    monkeypatch.setenv("KGEN_NO_CACHE", "1")
    cold = run_kgen("build", "--check", "-C", str(root))
    assert (cold.code, cold.out) == (0, ""), cold.err
