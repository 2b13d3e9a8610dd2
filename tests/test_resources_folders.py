"""A folder below an environment's folder (`resources/prod/monitoring/sm.yaml`) was
skipped without a word: the object never shipped, and nothing said so. kgen reads an
environment's objects only from the files directly in `resources/<env>/`, so such a
folder, or a link to one, is an error at the folder, from `validate` (with every path
and with a path inside it, as pre-commit passes) as from `build`, which writes
nothing."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import Result, RunKgen, files_below, write_tree

_CONFIG = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {name}}\ndata: {a: b}\n"
_HINT = (
    "    hint: move its files into resources/dev/ (an object's output file is named"
    " by its name and kind, not by its path), or out of resources/"
)


def _project(root: Path) -> Path:
    return write_tree(
        root,
        {
            "kgen.yaml": "environments:\n  dev: [v1]\n"
            "lint:\n  ignore: {resources-missing: a minimal spec}\n",
            "overlays/v1.yaml": "target: v1\n",
            "jobs/train.yaml": "framework: pytorch\n"
            "image: registry.example.com/train:1.0\n"
            "roles:\n  master: {replicas: 1}\n",
            "resources/dev/cm.yaml": _CONFIG.replace("{name}", "cm"),
        },
    )


def _lines(result: Result) -> list[str]:
    return (result.out + result.err).splitlines()


def test_a_folder_below_an_environments_folder_is_an_error(
    tmp_path: Path, run_kgen: RunKgen
):
    root = _project(tmp_path / "project")
    write_tree(
        root, {"resources/dev/monitoring/sm.yaml": _CONFIG.replace("{name}", "sm")}
    )
    (root / "resources/dev/.old").mkdir()
    expected = [
        "resources/dev/.old: error: resources/dev/.old/ is a folder: kgen reads the"
        " objects of dev only from the files directly in resources/dev/, so nothing"
        " in it ships (resource-invalid)",
        _HINT,
        "resources/dev/monitoring: error: resources/dev/monitoring/ is a folder: kgen"
        " reads the objects of dev only from the files directly in resources/dev/, so"
        " nothing in it ships (resource-invalid)",
        _HINT,
        "kgen: 2 errors in 2 files",
    ]
    result = run_kgen("validate", cwd=root)
    assert (result.code, _lines(result)) == (1, expected)
    # pre-commit names the file it adds: the folder's problem is in its scope.
    result = run_kgen("validate", "resources/dev/monitoring/sm.yaml", cwd=root)
    assert (result.code, _lines(result)) == (
        1,
        [*expected[2:4], "kgen: 1 error in 1 file"],
    )
    result = run_kgen("build", cwd=root)
    assert result.code == 1
    assert not (root / "manifests").exists()


def test_a_build_refused_for_a_folder_leaves_the_output_as_it_was(
    tmp_path: Path, run_kgen: RunKgen
):
    root = _project(tmp_path / "project")
    assert run_kgen("build", cwd=root).code == 0
    before = files_below(root / "manifests")
    write_tree(
        root,
        {
            "resources/dev/quota.yaml": "apiVersion: v1\nkind: ResourceQuota\n"
            "metadata: {name: q}\nspec: {hard: {pods: '4'}}\n",
            "resources/dev/monitoring/sm.yaml": _CONFIG.replace("{name}", "sm"),
        },
    )
    result = run_kgen("build", cwd=root)
    assert result.code == 1
    assert "resources/dev/monitoring: error: " in result.out + result.err
    assert files_below(root / "manifests") == before


def test_a_link_to_a_folder_is_said_and_never_followed(
    tmp_path: Path, run_kgen: RunKgen
):
    root = _project(tmp_path / "project")
    write_tree(root, {"shared/sm.yaml": _CONFIG.replace("{name}", "sm")})
    os.symlink("../../shared", root / "resources/dev/shared")
    # A link to a file that is no YAML is any other file that is no object: left alone.
    os.symlink("cm.yaml", root / "resources/dev/README")
    result = run_kgen("validate", cwd=root)
    assert (result.code, _lines(result)) == (
        1,
        [
            "resources/dev/shared: error: resources/dev/shared is a symbolic link to a"
            " folder: kgen reads the objects of dev only from the files directly in"
            " resources/dev/ (resource-invalid)",
            _HINT,
            "kgen: 1 error in 1 file",
        ],
    )


def test_files_that_are_no_objects_are_left_alone(tmp_path: Path, run_kgen: RunKgen):
    # A README beside the objects is documentation, as beside the job specs.
    root = _project(tmp_path / "project")
    write_tree(root, {"resources/dev/README.md": "# dev\n", "resources/NOTES": "x\n"})
    result = run_kgen("validate", cwd=root)
    assert result.code == 0, result.out + result.err


def test_a_folder_whose_name_has_control_characters_is_said_escaped(
    tmp_path: Path, run_kgen: RunKgen
):
    # Such a folder was left out of the listing, and its objects with it.
    root = _project(tmp_path / "project")
    write_tree(root, {"resources/de\x1bv/cm.yaml": _CONFIG.replace("{name}", "x")})
    result = run_kgen("validate", cwd=root)
    assert (result.code, _lines(result)) == (
        1,
        [
            "resources/de\\x1bv: error: resources/de\\x1bv/ is not the folder of an"
            " environment (resource-invalid)",
            "    hint: did you mean 'dev'?",
            "kgen: 1 error in 1 file",
        ],
    )


def test_a_json_manifest_is_an_error_not_a_silent_drop(
    tmp_path: Path, run_kgen: RunKgen
):
    """kubectl and kustomize read a .json manifest; kgen reads .yaml and .yml only, so
    `resources/dev/quota.json` was skipped without a word, as a folder was."""
    root = _project(tmp_path / "project")
    quota = '{"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q"}}\n'
    write_tree(root, {"resources/dev/quota.json": quota, "resources/All.JSON": quota})
    hint = (
        "    hint: rename it to .yaml (JSON is YAML, read as written), or move it out"
        " of resources/"
    )
    expected = [
        "resources/All.JSON: error: resources/All.JSON is a JSON file: kgen reads the"
        " objects in resources/ only from .yaml and .yml files, so it never ships"
        " (resource-invalid)",
        hint,
        "resources/dev/quota.json: error: resources/dev/quota.json is a JSON file: kgen"
        " reads the objects in resources/ only from .yaml and .yml files, so it never"
        " ships (resource-invalid)",
        hint,
        "kgen: 2 errors in 2 files",
    ]
    result = run_kgen("validate", cwd=root)
    assert (result.code, _lines(result)) == (1, expected)
    result = run_kgen("build", cwd=root)
    assert result.code == 1
    assert not (root / "manifests").exists()
    # Renamed as the hint says, it is read as written and ships.
    (root / "resources/dev/quota.json").rename(root / "resources/dev/quota.yaml")
    (root / "resources/All.JSON").unlink()
    result = run_kgen("build", cwd=root)
    assert result.code == 0, result.out + result.err
    assert "dev/q.resourcequota.yaml" in files_below(root / "manifests")
