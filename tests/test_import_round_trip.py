"""kgen import of everything the repository's project renders, in every environment:
the imported project builds, and gives every object back, each file's body byte for
byte (docs/gitops.md, "Moving in"). Only the header comment differs: it names the
imported overlays, or the resources/ file an object is copied from."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import REPO, RunKgen


def _bodies(root: Path) -> dict[str, str]:
    """Each output file but the kustomizations, by path, without its header comment."""
    return {
        p.relative_to(root).as_posix(): p.read_text().split("\n---\n", 1)[1]
        for p in sorted(root.glob("*/*.*.yaml"))
    }


def _objects(root: Path) -> dict[str, Any]:
    return {path: yaml.safe_load(body) for path, body in _bodies(root).items()}


def test_every_environment_of_the_repository_comes_back_through_import(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    shutil.copytree(REPO / "manifests", tmp_path / "manifests")
    inputs = sorted(
        str(p.relative_to(tmp_path)) for p in tmp_path.glob("manifests/*/*.*.yaml")
    )
    project = yaml.safe_load((REPO / "kgen.yaml").read_text())
    folders = {Path(p).parent.name for p in inputs}
    assert folders == set(project["environments"]), "every environment"
    result = run_kgen("import", *inputs, "--out", "imported", cwd=tmp_path)
    assert result.code == 0, result
    assert " error: " not in result.err
    built = run_kgen("build", "-C", str(tmp_path / "imported"))
    assert built.code == 0, built
    given, back = tmp_path / "manifests", tmp_path / "imported" / "manifests"
    assert _objects(back) == _objects(given)
    assert _bodies(back) == _bodies(given)
