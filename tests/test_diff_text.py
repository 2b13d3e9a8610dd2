"""The diff of the output tree is bounded in all, whatever a pull request plants in
it (issue 14, F18); tests/hostile/cases_attack.py holds the per-file bounds."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgen.output.compare import Contents, OutputTree
from kgen.output.diff_text import MAX_SHOWN, MAX_TOTAL
from tests.conftest import RunKgen
from tests.hostile.case import Case, materialise
from tests.hostile.cases_attack import owned

LINE = "k: " + "v" * 36 + "\n"  # 40 bytes
PER_FILE = 1500  # lines: 60,000 bytes, under MAX_SHOWN and MAX_REMOVED_LINES


def _planted_tree(tmp_path: Path, run_kgen: RunKgen, count: int) -> Path:
    root = materialise(Case({}), tmp_path / "project")
    assert run_kgen("build", cwd=root).code == 0
    folder = root / "manifests" / "junk"
    folder.mkdir()
    owned(root, *(f"manifests/junk/f{i:02}.yaml" for i in range(count)))
    for i in range(count):
        (folder / f"f{i:02}.yaml").write_text(LINE * PER_FILE)
    return root


def test_the_diff_stops_after_its_total(tmp_path: Path, run_kgen: RunKgen) -> None:
    root = _planted_tree(tmp_path, run_kgen, 40)
    for args in (("diff",), ("build", "--check", "--diff")):
        result = run_kgen(*args, cwd=root)
        shown = result.out.count("--- a/manifests/junk/")
        assert shown == 3, (args, shown)
        assert result.out.endswith(
            f"kgen: 37 more changed files are not shown: the diff stops after"
            f" {MAX_TOTAL:,} characters\n"
        )
        assert MAX_TOTAL < len(result.out) < MAX_TOTAL + MAX_SHOWN + 1000


def test_a_small_diff_is_whole(tmp_path: Path, run_kgen: RunKgen) -> None:
    root = _planted_tree(tmp_path, run_kgen, 3)
    result = run_kgen("diff", cwd=root)
    assert result.out.count("\n-" + LINE.rstrip()) == 3 * PER_FILE
    assert "not shown" not in result.out
    assert (
        result.err == "kgen: a build would modify 1, add 0 and remove 3 files\n"
    )  # 1: the index


def test_files_past_the_total_are_never_read(
    tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = materialise(Case({}), tmp_path / "project")
    assert run_kgen("build", cwd=root).code == 0
    folder = root / "manifests" / "junk"
    folder.mkdir()
    owned(root, *(f"manifests/junk/f{i:04}.yaml" for i in range(3000)))
    for i in range(3000):
        with open(folder / f"f{i:04}.yaml", "wb") as file:
            file.truncate(MAX_SHOWN)  # sparse: NUL bytes, escaped four times longer
    reads: list[list[str]] = []
    real = OutputTree.read

    def counted(tree: OutputTree, limits: dict[str, int]) -> Contents:
        reads.append(list(limits))
        return real(tree, limits)

    monkeypatch.setattr(OutputTree, "read", counted)
    result = run_kgen("diff", cwd=root)
    assert result.out.endswith(
        f"kgen: 2,999 more changed files are not shown: the diff stops after"
        f" {MAX_TOTAL:,} characters\n"
    )
    junk_reads = [paths for paths in reads if any("/junk/" in p for p in paths)]
    assert junk_reads == [["manifests/junk/f0000.yaml"]]
