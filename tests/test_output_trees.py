"""Hostile output trees (tests/hostile/cases_output.py) stay inside the project.

For every case there: the folder beside the project is exactly what it was (names, bytes,
link targets), the outside secret appears in no output, and a command that fails leaves
the project exactly as it was (the lock file aside): no partial write.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.conftest import RunKgen
from tests.hostile.case import OUTSIDE_SECRET, materialise
from tests.hostile.cases_output import CASES


def snapshot(folder: Path) -> dict[str, object]:
    """Every entry below `folder`, without following links or opening anything but
    regular files: bytes, link targets, or what it is."""
    found: dict[str, object] = {}
    for dirpath, dirs, names in os.walk(folder):
        for name in [*dirs, *names]:
            path = Path(dirpath) / name
            mode = path.lstat().st_mode
            shown = path.relative_to(folder).as_posix()
            if stat.S_ISLNK(mode):
                found[shown] = ("link", os.readlink(path))
            elif stat.S_ISREG(mode):
                found[shown] = path.read_bytes()
            else:
                found[shown] = stat.S_IFMT(mode)
    return found


def _without_lock(tree: dict[str, object]) -> dict[str, object]:
    return {p: v for p, v in tree.items() if not p.endswith(".manifests.kgen-lock")}


@pytest.mark.parametrize("name", sorted(CASES))
def test_nothing_outside_the_project_changes(
    name: str, tmp_path: Path, run_kgen: RunKgen
) -> None:
    case = CASES[name]
    root = materialise(case, tmp_path / "project")
    outside, project = snapshot(tmp_path / "outside"), snapshot(root)
    result = run_kgen(*case.args, cwd=root)
    assert result.code == case.expected_exit, result
    assert snapshot(tmp_path / "outside") == outside
    assert OUTSIDE_SECRET.strip() not in result.out + result.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["outside", "project"]
    if result.code != 0:
        assert _without_lock(snapshot(root)) == _without_lock(project)


def _build(name: str, tmp_path: Path, run_kgen: RunKgen) -> tuple[Path, Path]:
    root = materialise(CASES[name], tmp_path / "project")
    assert run_kgen("build", cwd=root).code == 0
    manifests = root / "manifests"
    assert manifests.is_dir() and not manifests.is_symlink()
    assert (manifests / "dev" / "train.pytorchjob.yaml").is_file()
    return root, tmp_path / "outside"


def test_a_planted_old_tree_link_is_never_renamed_into_place(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    root, outside = _build("planted-old-tree-link", tmp_path, run_kgen)
    assert os.readlink(root / ".manifests.kgen-old-1") == "../outside"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.yaml"]


def test_folders_kgen_did_not_make_are_left_as_they_are(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    root, _ = _build("planted-staging-folders-without-marker", tmp_path, run_kgen)
    assert (root / ".manifests.kgen-old-1/keep.yaml").read_text() == "mine: 1\n"
    assert (root / ".manifests.kgen-new-1/keep.yaml").read_text() == "mine: 2\n"
    assert run_kgen("build", cwd=root).code == 0
    assert (root / ".manifests.kgen-new-1/keep.yaml").read_text() == "mine: 2\n"


def test_a_marked_staging_folder_is_removed_without_following_its_links(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    root, outside = _build("planted-marked-folder-with-link", tmp_path, run_kgen)
    assert not (root / ".manifests.kgen-new-1").exists()
    assert (outside / "secret.yaml").read_text() == OUTSIDE_SECRET


@pytest.mark.parametrize(
    ("written", "output"),
    [
        ("./deploy/manifests/", "deploy/manifests"),
        ("deploy//manifests", "deploy/manifests"),
        ("'my manifests'", "my manifests"),
    ],
)
def test_an_output_is_used_as_one_normalised_spelling(
    tmp_path: Path, run_kgen: RunKgen, written: str, output: str
) -> None:
    root = materialise(CASES["index-entry-proc-environ"], tmp_path / "project")
    (root / "manifests").rename(root / "unused")
    kgen_yaml = root / "kgen.yaml"
    kgen_yaml.write_text(f"output: {written}\n" + kgen_yaml.read_text())
    assert run_kgen("build", cwd=root).code == 0
    index = (root / output / ".kgen-index").read_text().splitlines()
    assert index[1:] == [
        f"{output}/dev/kustomization.yaml",
        f"{output}/dev/train.pytorchjob.yaml spec-yaml-sha256:599c437a0f7d9016",
        f"{output}/old/kustomization.yaml",
        f"{output}/old/train.pytorchjob.yaml spec-yaml-sha256:9fa4b73be27cb611",
    ]
    check = run_kgen("build", "--check", cwd=root)
    assert (check.code, check.err) == (0, f"kgen: {output}/ is up to date (5 files)\n")
    assert run_kgen("validate", "jobs/train.yaml", cwd=root).code == 0
