"""A build killed at any moment leaves the old tree or the new one; builds never interleave."""

from __future__ import annotations

import os
import random
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import files_below, write_tree

JOBS = 60
KILLS = int(os.environ.get("KGEN_TEST_KILLS", "25"))


def _make_project(root: Path) -> Path:
    files = {
        "kgen.yaml": "environments:\n  a: [tag]\n  b: {overlays: [tag], namespace: b}\n"
        "lint:\n  ignore:\n    resources-missing: synthetic jobs\n",
        "overlays/tag.yaml": "patch:\n  image: repo/train:1\n",
    }
    for i in range(JOBS):
        files[f"jobs/job-{i:03}.yaml"] = (
            "framework: pytorch\nimage: repo/train:0\n"
            "env:\n"
            + "".join(f"  - {{name: VAR_{k}, value: '{k}'}}\n" for k in range(20))
            + "roles:\n  master: {replicas: 1}\n  worker: {replicas: 3}\n"
        )
    return write_tree(root, files)


def _set_state(root: Path, state: int) -> None:
    (root / "overlays" / "tag.yaml").write_text(
        f"patch:\n  image: repo/train:{state}\n"
    )


def _build(root: Path) -> subprocess.Popen[bytes]:
    # Without the cache every build renders and writes everything, so kills land in
    # every stage of a build, not just in a quick no-op.
    return subprocess.Popen(
        [sys.executable, "-m", "kgen", "--no-cache", "build", "-C", str(root)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _complete_build(root: Path) -> float:
    start = time.monotonic()
    proc = _build(root)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err.decode()
    return time.monotonic() - start


def test_killed_builds_leave_the_old_or_the_new_tree(tmp_path: Path):
    root = _make_project(tmp_path)
    trees = {}
    durations = []
    for state in (1, 2):
        _set_state(root, state)
        durations.append(_complete_build(root))
        trees[state] = files_below(root / "manifests")
    assert trees[1] != trees[2]
    rng = random.Random(20261122)
    outcomes = {"old": 0, "new": 0}
    state = 2

    def kill_at(fraction: float) -> None:
        """Start a build of the other state and kill it `fraction` of a build's
        length in (the median of the complete builds so far: a machine that slows
        down stretches the moments with it)."""
        nonlocal state
        old, state = state, 3 - state
        _set_state(root, state)
        proc = _build(root)
        time.sleep(fraction * statistics.median(durations))
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        now = files_below(root / "manifests")
        assert now in (trees[old], trees[state]), "a killed build left a mixed tree"
        outcomes["old" if now == trees[old] else "new"] += 1
        durations.append(_complete_build(root))
        assert files_below(root / "manifests") == trees[state], (
            "the next build recovers without cleanup"
        )

    # One kill per slot across 1.6x a build's length, jittered: the early slots land
    # before the swap and the late ones after it, on a slow machine or a fast one.
    for slot in range(KILLS):
        kill_at(1.6 * (slot + rng.random()) / KILLS)
    # A machine busy enough to bunch them on one side gets more on the other, up to
    # as many again: each still kills a build that is running or just done.
    for _ in range(KILLS):
        if outcomes["old"] and outcomes["new"]:
            break
        kill_at(rng.uniform(1.0, 2.5) if outcomes["old"] else rng.uniform(0, 0.3))
    leftovers = [
        p.name
        for p in tmp_path.iterdir()
        if ".kgen-new-" in p.name or ".kgen-old-" in p.name
    ]
    assert leftovers == []
    if KILLS >= 10:  # a short run (KGEN_TEST_KILLS) may land on one side only
        assert outcomes["old"] and outcomes["new"], (
            f"kills should land on both sides: {outcomes}"
        )


def test_concurrent_builds_do_not_interleave(tmp_path: Path):
    root = _make_project(tmp_path)
    _set_state(root, 1)
    _complete_build(root)
    _set_state(root, 2)
    expected_root = _make_project(tmp_path / "expected")
    _set_state(expected_root, 2)
    _complete_build(expected_root)
    procs = [_build(root) for _ in range(3)]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
    assert files_below(root / "manifests") == files_below(expected_root / "manifests")


@pytest.mark.parametrize("step", ["kgen.output.spool", "kgen.output.fill"])
def test_a_failed_write_is_a_clear_error_and_keeps_the_old_tree(
    tmp_path: Path, run_kgen, monkeypatch: pytest.MonkeyPatch, step: str
):
    root = _make_project(tmp_path)
    _set_state(root, 1)
    _complete_build(root)
    before = files_below(root / "manifests")
    _set_state(root, 2)

    def disk_full(*_args: object, **_kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(f"{step}.write_new", disk_full)
    result = run_kgen("build", "-C", str(root))
    assert result.code == 1
    error = "manifests: error: cannot write manifests/: No space left on device; the previous tree is unchanged (io)\n"
    assert error in result.err
    assert files_below(root / "manifests") == before
    assert [p.name for p in tmp_path.iterdir() if ".kgen-new-" in p.name] == []
