"""The output tree scanned by a child while the build renders (kgen.output.early_scan)
never answers differently from the scan under the build lock.

Each case changes an output file in one of the ways a file can change behind kgen's
back, on two copies of a project: one built with the cache and the early scan, one
with KGEN_NO_CACHE (no record, no early scan). The build that follows must give the
same exit code, stdout, stderr and output tree on both. A change made before the build
is one the child sees; one made after the child looked and before the build looks
under its lock (`_fill` runs then) is one the check of the folders must catch, or, for
a file edited in place, the next build.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from kgen.output import early_scan
from tests.conftest import REPO, RunKgen, files_below, no_hang
from tests.warm_cold import built_pair, rewrite, same_as_cold, swap_case

sys.path.insert(0, str(REPO / "benchmarks"))
from generate import edit_spec, generate

FILE = "manifests/dev-cpu/pt-job-00001.pytorchjob.yaml"


def _pair(tmp_path: Path, run_kgen: RunKgen) -> tuple[Path, Path]:
    """Two built copies of a project of 4 jobs, aged, the first's tree recorded."""
    warm, cold = built_pair(tmp_path, run_kgen, lambda root: generate(root, 4))
    assert run_kgen("build", "--check", "-C", str(warm)).code == 0
    return warm, cold


def _in_place(root: Path) -> None:
    rewrite(root / FILE, swap_case, new_inode=False)


def _replaced(root: Path) -> None:
    rewrite(root / FILE, swap_case, new_inode=True)


def _linked(root: Path) -> None:
    (root / "elsewhere.yaml").write_bytes((root / FILE).read_bytes())
    (root / FILE).unlink()
    (root / FILE).symlink_to(root / "elsewhere.yaml")


def _fifo(root: Path) -> None:
    (root / FILE).unlink()
    os.mkfifo(root / FILE)


CHANGES: dict[str, Callable[[Path], object]] = {
    "edited in place, size and mtime kept": _in_place,
    "replaced, size and mtime kept": _replaced,
    "replaced by a link": _linked,
    "replaced by a FIFO": _fifo,
    "removed": lambda root: (root / FILE).unlink(),
    "an extra file": lambda root: (root / "manifests/dev-cpu/extra.yaml").write_text(
        "a: 1\n"
    ),
    "a spec edited": lambda root: edit_spec(root, 2, 9),
    "nothing": lambda root: None,
}


@pytest.mark.parametrize("name", list(CHANGES))
def test_a_change_before_the_build_is_found_by_the_child(
    name: str,
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    early_scans: list[bool],
) -> None:
    warm, cold = _pair(tmp_path, run_kgen)
    for root in (warm, cold):
        CHANGES[name](root)
    time.sleep(0.1)  # the folders as last changed past the clock step
    with no_hang(f"the build hung on an output file {name}"):
        found = same_as_cold(run_kgen, monkeypatch, warm, cold, "build")
    assert found.code in (0, 1)
    if name == "a spec edited":
        assert "5 files written" in found.err  # with its kustomization, in place
    assert early_scans == [True]  # the child's scan was the build's


@pytest.mark.parametrize("name", [n for n in CHANGES if n != "a spec edited"])
def test_a_change_while_the_build_renders_is_never_taken_on_trust(
    name: str,
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    early_scans: list[bool],
) -> None:
    """Changed after the child looked, before the build looks under its lock: every
    change to a folder's entries makes the build scan for itself; a file edited in
    place is left as it is by this build, and restored by the next."""
    warm, cold = _pair(tmp_path, run_kgen)
    for root in (warm, cold):
        edit_spec(root, 2, 9)  # a job file: the tree is still as recorded
    spy = early_scan._fill

    def changed_meanwhile(*args: object) -> bool:
        CHANGES[name](warm)
        return spy(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(early_scan, "_fill", changed_meanwhile)
    CHANGES[name](cold)
    built = run_kgen("build", "-C", str(warm))
    monkeypatch.setattr(early_scan, "_fill", spy)
    with monkeypatch.context() as off:
        off.setenv("KGEN_NO_CACHE", "1")
        expected = run_kgen("build", "-C", str(cold))
    if name == "edited in place, size and mtime kept":
        assert built.code == 0 and early_scans == [True]
        # Not seen by this build: its lstat was the recorded one when the child
        # looked. The record keeps that lstat, not the edited file's.
        assert b"GENERATED" in (warm / FILE).read_bytes()
        again = run_kgen("build", "-C", str(warm))
        assert again.code == 0 and "1 file written" in again.err
    else:
        assert early_scans == ([True] if name == "nothing" else [False])
        assert (built.code, built.err.replace(str(warm), str(cold))) == (
            expected.code,
            expected.err,
        )
    assert files_below(warm / "manifests") == files_below(cold / "manifests")


@pytest.mark.parametrize(
    "how", ["fails", "has more to send than a pipe holds", "is not done in time"]
)
def test_a_child_that_fails_leaves_the_scan_to_the_build(
    how: str,
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    early_scans: list[bool],
) -> None:
    warm, cold = _pair(tmp_path, run_kgen)
    for root in (warm, cold):
        _in_place(root)
    if how == "fails":
        monkeypatch.setattr(early_scan, "_child", lambda *args: os._exit(1))
    elif how == "is not done in time":
        monkeypatch.setattr(early_scan, "_child", lambda *args: time.sleep(600))
        monkeypatch.setattr(early_scan, "WAIT_S", 0.01)  # then stopped, and reaped
    else:
        monkeypatch.setattr(early_scan, "_MAX_BYTES", 16)
    found = same_as_cold(run_kgen, monkeypatch, warm, cold, "build")
    assert found.code == 0 and "1 file written" in found.err
    assert early_scans == []  # nothing came back to fill the scan with


def test_a_build_that_ends_before_it_writes_reaps_its_child(
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    early_scans: list[bool],
) -> None:
    warm, _cold = _pair(tmp_path, run_kgen)
    children: list[int] = []
    fork = os.fork

    def counted() -> int:
        pid = fork()
        if pid:
            children.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", counted)
    (warm / "jobs/job-00003.yaml").write_text("name: [broken\n")
    assert run_kgen("build", "-C", str(warm)).code == 1
    assert len(children) == 1
    with pytest.raises(ChildProcessError):
        os.waitpid(children[0], os.WNOHANG)  # reaped already
    assert early_scans == []


def test_no_early_scan_without_a_core_to_spare_or_a_record(
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    early_scans: list[bool],
) -> None:
    warm, _cold = _pair(tmp_path, run_kgen)
    forks: list[int] = []

    def fork() -> int:  # never called; if it were, no child either
        forks.append(1)
        raise OSError("no fork here")

    monkeypatch.setattr(os, "fork", fork)
    monkeypatch.setenv("KGEN_WORKERS", "1")
    edit_spec(warm, 2, 9)
    assert run_kgen("build", "-C", str(warm)).code == 0
    monkeypatch.setenv("KGEN_WORKERS", "2")
    monkeypatch.setenv("KGEN_NO_CACHE", "1")
    edit_spec(warm, 2, 10)
    assert run_kgen("build", "-C", str(warm)).code == 0
    monkeypatch.delenv("KGEN_NO_CACHE")
    # Another thread running: a fork would copy none of it (nor what it holds).
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        edit_spec(warm, 2, 11)
        assert run_kgen("build", "-C", str(warm)).code == 0
    finally:
        release.set()
        other.join()
    assert forks == [] and early_scans == []
