"""Data-driven CLI cases.

tests/cases/negative/<case>/: project files (over tests/cases/base/ unless the case has its
own kgen.yaml), and `expected.txt`: exit code on the first line, then the exact output of
`kgen validate` (or the command in `args`).

tests/cases/positive/<case>/: a project and `expected/`, the exact tree `kgen build` writes.
`make golden` (pytest --update-golden) rewrites both; review the diff.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import RunKgen

CASES = Path(__file__).parent / "cases"
BASE = CASES / "base"


def _names(kind: str) -> list[str]:
    return sorted(p.name for p in (CASES / kind).iterdir() if p.is_dir())


def _materialise(case: Path, dest: Path) -> Path:
    # A case with its own kgen.yaml, or marked `standalone`, does not start from base/.
    if not (case / "kgen.yaml").exists() and not (case / "standalone").exists():
        shutil.copytree(BASE, dest, dirs_exist_ok=True)
    shutil.copytree(
        case,
        dest,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("expected*", "args", "standalone"),
    )
    return dest


@pytest.mark.parametrize("name", _names("negative"))
def test_negative_case(
    name: str, tmp_path: Path, run_kgen: RunKgen, update_golden: bool
) -> None:
    case = CASES / "negative" / name
    root = _materialise(case, tmp_path / "project")
    args_file = case / "args"
    args = args_file.read_text().split() if args_file.exists() else ["validate"]
    result = run_kgen(*args, cwd=root)
    actual = f"exit {result.code}\n{result.out}{result.err}"
    expected_file = case / "expected.txt"
    if update_golden:
        expected_file.write_text(actual)
    assert expected_file.exists(), (
        f"no expected.txt for {name}; run make golden and review"
    )
    assert actual == expected_file.read_text()
    assert result.code in (1, 2), "a negative case must fail as invalid input or usage"
    assert "Traceback" not in actual


@pytest.mark.parametrize("name", _names("positive"))
def test_positive_case(
    name: str, tmp_path: Path, run_kgen: RunKgen, update_golden: bool
) -> None:
    case = CASES / "positive" / name
    root = _materialise(case, tmp_path / "project")
    result = run_kgen("build", cwd=root)
    assert result.code == 0, str(result)
    actual = _tree(root / "manifests")
    expected_dir = case / "expected"
    if update_golden:
        shutil.rmtree(expected_dir, ignore_errors=True)
        shutil.copytree(root / "manifests", expected_dir)
    assert expected_dir.is_dir(), f"no expected/ for {name}; run make golden and review"
    expected = _tree(expected_dir)
    assert sorted(actual) == sorted(expected)
    for path, text in expected.items():
        assert actual[path] == text, path


def _tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }
