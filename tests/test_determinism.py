"""Same inputs, same bytes: across hash seeds, locales, working folders and file order."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO


def _build(project: Path, *, cwd: Path, env: dict[str, str]) -> dict[str, bytes]:
    kgen = [sys.executable, "-m", "kgen", "build", "-C", str(project)]
    done = subprocess.run(
        kgen, cwd=cwd, env={**os.environ, **env}, capture_output=True, check=False
    )
    assert done.returncode == 0, done.stderr.decode()
    out = project / "manifests"
    return {
        p.relative_to(out).as_posix(): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file()
    }


def _copy(dest: Path, *, reverse: bool) -> Path:
    # Create files in the opposite order too, so directory order differs on disk.
    dest.mkdir()
    shutil.copy(REPO / "kgen.yaml", dest / "kgen.yaml")
    for folder in ("jobs", "overlays", "crds"):
        (dest / folder).mkdir()
        for path in sorted((REPO / folder).iterdir(), reverse=reverse):
            shutil.copy(path, dest / folder / path.name)
    for env in sorted((REPO / "resources").iterdir(), reverse=reverse):
        (dest / "resources" / env.name).mkdir(parents=True)
        for path in sorted(env.iterdir(), reverse=reverse):
            shutil.copy(path, dest / "resources" / env.name / path.name)
    return dest


def test_output_is_byte_identical_everywhere(tmp_path: Path):
    first = _build(
        _copy(tmp_path / "a", reverse=False),
        cwd=tmp_path,
        env={"PYTHONHASHSEED": "1", "LC_ALL": "C"},
    )
    second = _build(
        _copy(tmp_path / "b", reverse=True),
        cwd=Path("/"),
        env={"PYTHONHASHSEED": "4242", "LC_ALL": "C.UTF-8", "TZ": "Asia/Kolkata"},
    )
    assert first == second
    committed = {
        p.relative_to(REPO / "manifests").as_posix(): p.read_bytes()
        for p in sorted((REPO / "manifests").rglob("*"))
        if p.is_file()
    }
    assert first == committed
