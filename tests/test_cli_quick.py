"""`kgen validate [PATHS]` runs without click (kgen.cli_quick): it prints and returns
exactly what the same command run through click does, and anything but a plain
validate still goes through click."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kgen.cli_quick import COMPLETE, quick_command
from tests.conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
from generate import generate

# The command as installed (kgen.__main__: the quick path where it applies), and the
# same arguments through click's command table.
QUICK = "import sys; from kgen.__main__ import main; sys.exit(main())"
CLICK = "import sys; from kgen.cli import main; sys.exit(main())"


def kgen(script: str, *args: str, cwd: Path) -> tuple[int, str, str]:
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )
    return done.returncode, done.stdout, done.stderr


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("quick") / "project"
    generate(root, 3)
    unknown_key = root / "jobs" / "job-00002.yaml"
    unknown_key.write_text(unknown_key.read_text() + "replicaz: 3\n")
    no_kind = root / "jobs" / "job-00000.yaml"
    no_kind.write_text(
        no_kind.read_text().replace("framework:", "framework: [x]\nx:", 1)
    )
    return root


@pytest.mark.parametrize(
    "args",
    [
        (),
        ("jobs/job-00001.yaml",),
        ("jobs/job-00002.yaml",),
        ("jobs/job-00000.yaml", "jobs/job-00001.yaml"),
        ("jobs/job-00001.yaml", "jobs/missing.yaml"),
        ("kgen.yaml",),
        ("../outside.yaml",),
        ("README.md",),
        ("overlays",),
    ],
    ids=lambda args: " ".join(args) or "everything",
)
def test_a_plain_validate_says_what_click_would(project: Path, args: tuple[str, ...]):
    quick = kgen(QUICK, "validate", *args, cwd=project)
    assert quick == kgen(CLICK, "validate", *args, cwd=project)
    assert quick[0] in (0, 1)


def test_a_folder_without_a_project_fails_alike(tmp_path: Path):
    quick = kgen(QUICK, "validate", cwd=tmp_path)
    assert quick == kgen(CLICK, "validate", cwd=tmp_path)
    assert quick[0] == 1 and "kgen.yaml" in quick[2]


@pytest.mark.parametrize(
    "args",
    [
        ["validate", "--strict"],
        ["validate", "-e", "dev"],
        ["validate", "-"],
        ["validate", ""],
        ["validate", "jobs/a.yaml", "--format", "json"],
        ["validate", "--", "jobs/a.yaml"],
        ["build"],
        ["--no-cache", "validate"],
        [],
    ],
)
def test_anything_else_goes_through_click(args: list[str]):
    assert quick_command(args) is None


def test_shell_completion_goes_through_click(monkeypatch: pytest.MonkeyPatch):
    assert quick_command(["validate", "jobs/a.yaml"]) is not None
    monkeypatch.setenv(COMPLETE, "bash_complete")
    assert quick_command(["validate", "jobs/a.yaml"]) is None


def test_a_path_that_cannot_be_read_is_left_to_click(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # click.Path(readable=True) words that usage error; root reads everything, so the
    # check is asked for as an unprivileged user would get it.
    spec = tmp_path / "job.yaml"
    spec.write_text("x: 1\n")
    assert quick_command(["validate", str(spec)]) is not None
    monkeypatch.setattr(os, "access", lambda path, mode: str(path) != str(spec))
    assert quick_command(["validate", str(spec)]) is None
    assert quick_command(["validate", str(tmp_path / "missing.yaml")]) is not None
