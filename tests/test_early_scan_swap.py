"""A file the early scan (kgen.output.early_scan) vouched for, edited in place while
the build renders, is never trusted after a swap.

The child takes each file's lstat while the build renders. A build that changes many
files stages a new tree of hard links to the old one's unchanged files and swaps it in,
and the tree record keeps a linked file's entry if nothing but its ctime (which the
link sets) changed since it was seen. A file edited in place after the child looked,
its size kept and its mtime set back (`touch -d`), differs from the record by its ctime
alone: taken on trust through the swap, `build --check` said the tree was up to date
while the file held the edit, and every later build kept it. Without the early scan the
build's own scan, under its lock after the renders, sees the new ctime and reads it.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from kgen.output import early_scan
from tests.conftest import REPO, RunKgen, files_below
from tests.warm_cold import built_pair, rewrite, swap_case

sys.path.insert(0, str(REPO / "benchmarks"))
from generate import edit_spec, generate

FILE = "manifests/dev-cpu/pt-job-00001.pytorchjob.yaml"


@pytest.mark.parametrize("edited", [True, False])
def test_a_file_edited_while_a_swapping_build_renders_is_read_again(
    edited: bool,
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    early_scans: list[bool],
) -> None:
    warm, cold = built_pair(tmp_path, run_kgen, lambda root: generate(root, 4))
    assert run_kgen("build", "--check", "-C", str(warm)).code == 0  # recorded
    for root in (warm, cold):
        for job in (0, 2, 3):  # too many files to write in place: a swap
            edit_spec(root, job, 9)
    spy = early_scan._fill

    def edited_meanwhile(*args: object) -> bool:
        if edited:  # after the child looked, before the build looks under its lock
            rewrite(warm / FILE, swap_case, new_inode=False)
        return spy(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(early_scan, "_fill", edited_meanwhile)
    built = run_kgen("build", "-C", str(warm))
    monkeypatch.setattr(early_scan, "_fill", spy)
    assert built.code == 0 and "files written" in built.err
    assert early_scans == [True]  # the child's scan was the build's
    assert (b"GENERATED" in (warm / FILE).read_bytes()) is edited  # left to the next
    time.sleep(0.1)  # the swapped tree's times past the clock step
    check = run_kgen("build", "--check", "-C", str(warm))
    assert check.code == (1 if edited else 0), check.err
    assert run_kgen("build", "-C", str(warm)).code == 0
    monkeypatch.setenv("KGEN_NO_CACHE", "1")
    assert run_kgen("build", "-C", str(cold)).code == 0
    assert files_below(warm / "manifests") == files_below(cold / "manifests")
    assert run_kgen("build", "--check", "-C", str(warm)).code == 0
