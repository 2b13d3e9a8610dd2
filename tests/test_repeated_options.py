"""An option named twice on the command line means it once: `--env dev --env dev`
builds dev once, and its kustomization lists each file once (never itself)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import RunKgen


def test_a_repeated_env_builds_it_once(tmp_path: Path, run_kgen: RunKgen):
    assert run_kgen("init", cwd=tmp_path).code == 0
    result = run_kgen("build", "--env", "dev-cpu", "--env", "dev-cpu", cwd=tmp_path)
    assert (result.code, result.err) == (
        0,
        "kgen: 1 job in 1 environment (1 render): 3 files written, 0 removed,"
        " 0 unchanged\n",
    )
    kustomization = tmp_path / "manifests/dev-cpu/kustomization.yaml"
    assert kustomization.read_text().endswith("resources:\n- mnist.pytorchjob.yaml\n")
