"""`kubectl kustomize` is what Argo CD and Flux run on manifests/<env>: it must accept each
environment and see exactly the objects kgen wrote."""

from __future__ import annotations

import shutil
import subprocess

import pytest
import yaml

from tests.conftest import REPO

KUBECTL = shutil.which("kubectl")
ENVS = sorted(p.name for p in (REPO / "manifests").iterdir() if p.is_dir())


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
@pytest.mark.parametrize("env", ENVS)
def test_kustomize_builds_each_environment(env: str):
    assert KUBECTL is not None
    folder = REPO / "manifests" / env
    done = subprocess.run(
        [KUBECTL, "kustomize", str(folder)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    built = sorted(
        (d["kind"], d["metadata"]["name"]) for d in yaml.safe_load_all(done.stdout) if d
    )
    written = sorted(
        (d["kind"], d["metadata"]["name"])
        for path in folder.glob("*.yaml")
        if path.name != "kustomization.yaml"
        for d in yaml.safe_load_all(path.read_text())
    )
    assert built == written
    assert built, "every example environment renders at least one job"
