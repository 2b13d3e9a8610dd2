"""The repository's project with its `patches:` left out, built: what `kgen import` can
give back. Patches write what the spec does not model (docs/patches.md), which no spec
an import writes can say, so the round trips compare what the spec models."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.conftest import RunKgen, copy_example


def unpatched_repo(dest: Path, run_kgen: RunKgen) -> Path:
    """A copy of the repository's project at `dest` without patches, built there."""
    copy_example(dest)
    for path in [*(dest / "jobs").glob("*.yaml"), *(dest / "overlays").glob("*.yaml")]:
        data = yaml.safe_load(path.read_text())
        if isinstance(data, dict) and data.pop("patches", None) is not None:
            path.write_text(yaml.safe_dump(data, sort_keys=False))
    built = run_kgen("build", cwd=dest)
    assert built.code == 0, built
    return dest
