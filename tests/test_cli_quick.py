"""`kgen validate [PATHS]` and `kgen build [--check] [-C DIR]` run without click
(kgen.cli_quick): they print, write and return exactly what the same command run
through click does, and anything else still goes through click."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kgen.cli_quick import COMPLETE, quick_command
from tests.conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
from generate import edit_spec, generate

from tests.conftest import files_below

# The command as installed (kgen.__main__: the quick path where it applies), and the
# same arguments through click's command table.
QUICK = "from kgen.__main__ import run; run()"
CLICK = "import sys; from kgen.cli import main; sys.exit(main())"


def kgen(
    script: str, *args: str, cwd: Path, cache: Path | None = None
) -> tuple[int, str, str]:
    env = {**os.environ, "NO_COLOR": "1"}
    if cache is not None:
        env["KGEN_CACHE_DIR"] = str(cache)
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
        ["build", "--diff"],
        ["build", "--check", "--diff"],
        ["build", "--check", "--check"],
        ["build", "-C"],
        ["build", "-C", "-e"],
        ["build", "-C", ""],
        ["build", "-C", "a", "--project", "b"],
        ["build", "--project=a"],
        ["build", "-Ca"],
        ["build", "-e", "dev"],
        ["build", "--format", "json"],
        ["build", "--no-cache"],
        ["build", "jobs"],
        ["build", "--"],
        ["--no-cache", "build"],
        ["--color", "never", "build", "--check"],
        ["--no-cache", "validate"],
        [],
    ],
)
def test_anything_else_goes_through_click(args: list[str]):
    assert quick_command(args) is None


def test_shell_completion_goes_through_click(monkeypatch: pytest.MonkeyPatch):
    assert quick_command(["validate", "jobs/a.yaml"]) is not None
    assert quick_command(["build", "--check"]) is not None
    monkeypatch.setenv(COMPLETE, "bash_complete")
    assert quick_command(["validate", "jobs/a.yaml"]) is None
    assert quick_command(["build", "--check"]) is None


@pytest.mark.parametrize(
    "args",
    [
        ["build"],
        ["build", "--check"],
        ["build", "-C", "."],
        ["build", "--check", "--project", "."],
        ["build", "--project", "missing", "--check"],
    ],
)
def test_a_plain_build_runs_without_click(args: list[str]):
    assert quick_command(args) is not None


def test_a_project_click_would_refuse_is_left_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # click.Path(file_okay=False): a file as the project is a usage error click words,
    # as is a folder that cannot be read (asked for as an unprivileged user gets it).
    (tmp_path / "kgen.yaml").write_text("x: 1\n")
    (tmp_path / "link").symlink_to(tmp_path / "gone")
    assert quick_command(["build", "-C", str(tmp_path)]) is not None
    assert quick_command(["build", "-C", str(tmp_path / "kgen.yaml")]) is None
    assert quick_command(["build", "-C", str(tmp_path / "link")]) is None
    monkeypatch.setattr(os, "access", lambda path, mode: str(path) != str(tmp_path))
    assert quick_command(["build", "-C", str(tmp_path)]) is None


# A project's life as CI and a developer see it, step by step: (what is done to the
# project first, the command, the exit code it must give).
STEPS: list[tuple[str, tuple[str, ...], int]] = [
    ("", ("build", "--check"), 1),  # nothing built yet: drift
    ("", ("build",), 0),  # a full build writes the tree
    ("", ("build",), 0),  # replayed: nothing changed
    ("", ("build", "--check"), 0),  # a full check records the tree
    ("", ("build", "--check"), 0),  # replayed
    ("edit", ("build", "--check"), 1),  # one spec edited: drift
    ("", ("build",), 0),  # the one-spec rebuild
    ("", ("build", "--check"), 0),
    ("", ("build", "-C", "project", "--check"), 0),  # run from the parent folder
    ("hand-edit", ("build", "--check"), 1),  # a generated file edited by hand
    ("", ("build", "--project", "project"), 0),  # the build puts it back
    ("bad", ("build", "--check"), 1),  # invalid input: file:line:col, nothing written
    ("", ("build",), 1),
    ("", ("build", "-C", "missing", "--check"), 1),  # no project there
]


def _prepare(side: Path, action: str) -> None:
    project = side / "project"
    if action == "edit":
        edit_spec(project, 1, 99)
    elif action == "hand-edit":
        manifest = min((project / "manifests").rglob("*.yaml"))
        manifest.write_text(manifest.read_text() + "# edited\n")
    elif action == "bad":
        spec = project / "jobs" / "job-00002.yaml"
        spec.write_text(spec.read_text() + "replicaz: 3\n")


def test_a_plain_build_says_and_writes_what_click_would(tmp_path: Path):
    # Each path its own project and cache, made alike: what one prints, writes and
    # returns at each step, the other must too, byte for byte.
    sides = {"quick": tmp_path / "quick", "click": tmp_path / "click"}
    for side in sides.values():
        generate(side / "project", 3)
    for action, args, expected in STEPS:
        done = {}
        for name, side in sides.items():
            _prepare(side, action)
            cwd = side if args[1:2] in (("-C",), ("--project",)) else side / "project"
            script = QUICK if name == "quick" else CLICK
            done[name] = kgen(script, *args, cwd=cwd, cache=side / "cache")
        assert done["quick"] == done["click"], (action, args)
        assert done["quick"][0] == expected, (action, args, done["quick"])
        assert files_below(sides["quick"] / "project") == files_below(
            sides["click"] / "project"
        )
    assert "no kgen.yaml in missing" in done["quick"][2]


# What the build does, replaced before either path runs it.
RAISING = {
    "interrupt": "raise KeyboardInterrupt",
    "closed pipe": "raise BrokenPipeError(32, 'Broken pipe')",
    "bug": "raise ValueError('x')",
}


@pytest.mark.parametrize("raised", sorted(RAISING))
def test_an_interrupted_or_failing_build_ends_as_through_click(
    tmp_path: Path, raised: str
):
    stub = (
        "import kgen.cli_build\n"
        "def run_build(*args, **kwargs):\n"
        f"    {RAISING[raised]}\n"
        "kgen.cli_build.run_build = run_build\n"
    )
    quick = kgen(stub + QUICK, "build", "--check", cwd=tmp_path)
    assert quick == kgen(stub + CLICK, "build", "--check", cwd=tmp_path)
    assert quick[0] == {"interrupt": 130, "closed pipe": 1, "bug": 3}[raised]


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


@pytest.mark.parametrize(
    "project",
    ["missing", "empty", "kgen.yaml", "gone-link", "caf\udce9", "empty/../missing"],
)
def test_a_project_folder_that_is_not_one_fails_alike(tmp_path: Path, project: str):
    (tmp_path / "empty").mkdir()
    (tmp_path / "kgen.yaml").write_text("environments: {}\n")
    (tmp_path / "gone-link").symlink_to(tmp_path / "gone")
    for check in ((), ("--check",)):
        args = ("build", *check, "-C", project)
        quick = kgen(QUICK, *args, cwd=tmp_path)
        assert quick == kgen(CLICK, *args, cwd=tmp_path), args
        # A file is click's usage error; anything else has no kgen.yaml.
        assert quick[0] == (2 if project == "kgen.yaml" else 1), quick


def test_a_project_in_a_folder_named_in_no_utf_8_builds(tmp_path: Path):
    # Its real path keys the cache (kgen.pipeline.cache_place): hashed as its bytes.
    root = tmp_path / "caf\udce9"
    generate(root, 1)
    assert kgen(QUICK, "build", cwd=root)[0] == 0
    quick = kgen(QUICK, "build", "--check", cwd=root)
    assert quick == kgen(CLICK, "build", "--check", cwd=root)
    assert quick[0] == 0 and "up to date" in quick[2]
