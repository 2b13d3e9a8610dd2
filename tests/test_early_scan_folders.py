"""The early scan (kgen.output.early_scan) against folders of the output tree changed
behind kgen's back: before the child looks, and after it looked but before the build
looks under its lock (the child done, the output root not yet open). Either way the build says and leaves exactly what a build
without records (KGEN_NO_CACHE: no early scan) says and leaves."""

from __future__ import annotations

import os
import select
import shutil
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from kgen.output import early_scan
from tests.conftest import REPO, RunKgen, files_below, no_hang
from tests.warm_cold import built_pair

sys.path.insert(0, str(REPO / "benchmarks"))
from generate import edit_spec, generate

ENV = "manifests/dev-cpu"


def _link_to_copy(root: Path) -> None:
    shutil.copytree(root / ENV, root / "copy")
    shutil.rmtree(root / ENV)
    (root / ENV).symlink_to(root / "copy")


def _fifo(root: Path) -> None:
    shutil.rmtree(root / ENV)
    os.mkfifo(root / ENV)


def _socket(root: Path) -> None:
    shutil.rmtree(root / ENV)
    with socket.socket(socket.AF_UNIX) as bound:
        bound.bind(str(root / ENV))


def _renamed(root: Path) -> None:
    (root / ENV).rename(root / "manifests/dev-cpu-old")


def _emptied(root: Path) -> None:
    for path in (root / ENV).iterdir():
        path.unlink()


def _nested(root: Path) -> None:
    (root / ENV / "deeper/still").mkdir(parents=True)
    (root / ENV / "deeper/still/x.yaml").write_text("a: 1\n")


def _undecodable(root: Path) -> None:
    """A folder and a file whose names are not UTF-8 (surrogate escapes in Python)."""
    folder = os.fsencode(root / ENV) + b"/caf\xe9"
    os.mkdir(folder)
    with open(folder + b"/x\xff.yaml", "wb") as handle:
        handle.write(b"a: 1\n")


def _root_linked(root: Path) -> None:
    (root / "manifests").rename(root / "elsewhere")
    (root / "manifests").symlink_to(root / "elsewhere")


def _swapped_in(root: Path) -> None:
    """The whole output root replaced by a copy, every lstat in it new."""
    shutil.copytree(root / "manifests", root / "copy", copy_function=shutil.copy)
    (root / "manifests").rename(root / "gone")
    (root / "copy").rename(root / "manifests")


CHANGES: dict[str, Callable[[Path], object]] = {
    "a folder replaced by a link": _link_to_copy,
    "a folder replaced by a FIFO": _fifo,
    "a folder replaced by a socket": _socket,
    "a folder renamed": _renamed,
    "a folder emptied": _emptied,
    "a nested folder added": _nested,
    "names that are not UTF-8": _undecodable,
    "the output root replaced by a link": _root_linked,
    "the output root replaced by a copy": _swapped_in,
}


def _built(tmp_path: Path, run_kgen: RunKgen) -> tuple[Path, Path]:
    warm, cold = built_pair(tmp_path, run_kgen, lambda root: generate(root, 4))
    assert run_kgen("build", "--check", "-C", str(warm)).code == 0  # recorded
    for root in (warm, cold):
        edit_spec(root, 2, 9)
    return warm, cold


def _same(
    run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch, warm: Path, cold: Path
) -> int:
    with no_hang("the build hung on a changed output folder"):
        found = run_kgen("build", "-C", str(warm))
        with monkeypatch.context() as off:
            off.setenv("KGEN_NO_CACHE", "1")
            expected = run_kgen("build", "-C", str(cold))
    assert (found.code, found.out, found.err.replace(str(warm), str(cold))) == (
        expected.code,
        expected.out.replace(str(warm), str(cold)),
        expected.err,
    )
    for name in ("manifests", "copy", "elsewhere", "gone"):
        assert files_below(warm / name) == files_below(cold / name)
    return found.code


@pytest.mark.parametrize("name", list(CHANGES))
def test_a_folder_changed_before_the_build(
    name: str,
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    early_scans: list[bool],
) -> None:
    warm, cold = _built(tmp_path, run_kgen)
    for root in (warm, cold):
        CHANGES[name](root)
    time.sleep(0.1)  # past the clock step
    assert _same(run_kgen, monkeypatch, warm, cold) in (0, 1)
    # The child's scan was the build's, but where the output root is a link (never
    # followed: no child).
    assert early_scans == (
        [] if name == "the output root replaced by a link" else [True]
    )


@pytest.mark.parametrize("name", list(CHANGES))
def test_a_folder_changed_while_the_build_renders(
    name: str,
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    early_scans: list[bool],
) -> None:
    warm, cold = _built(tmp_path, run_kgen)
    start = early_scan.start
    forked: list[bool] = []

    def changed_meanwhile(root: Path, output: str) -> None:
        start(root, output)
        pending = early_scan._pending
        if pending is not None:  # the warm build's (the cold one has no record)
            assert pending.child is not None and pending.child.pipe is not None
            # The child is done (its answer sent): it looked.
            select.select([pending.child.pipe], [], [], 60)
            CHANGES[name](warm)
            forked.append(True)

    monkeypatch.setattr(early_scan, "start", changed_meanwhile)
    CHANGES[name](cold)
    assert _same(run_kgen, monkeypatch, warm, cold) in (0, 1)
    assert forked == [True]
    assert True not in early_scans  # the build scanned for itself
