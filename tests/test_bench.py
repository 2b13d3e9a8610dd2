"""`make bench` cannot rot unseen: at 5 jobs (no timing asserted), its project builds,
its write floor writes kgen's very tree, its object comparison sees a changed field,
and its kustomize overlays yield kgen's four environments object for object."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, files_below

sys.path.insert(0, str(REPO / "benchmarks"))
import kustomize_side
from floors import snapshot
from generate import edit_spec, generate
from memory import tree_peak_mb
from objects import differences, objects_of, tree_objects
from timing import Variant

KUBECTL = shutil.which("kubectl")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bench") / "project"
    generate(root, 5)
    subprocess.run(
        [sys.executable, "-m", "kgen", "build"],
        cwd=root,
        check=True,
        capture_output=True,
    )
    return root


def test_write_floor_writes_the_same_tree(built: Path, tmp_path: Path):
    files, size = snapshot(built / "manifests", tmp_path / "tree")
    dest = tmp_path / "out"
    subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "write_floor.py"),
            str(tmp_path / "tree"),
            str(dest),
        ],
        check=True,
    )
    written = files_below(dest / "manifests")
    assert written == files_below(built / "manifests")
    assert (files, size) == (len(written), sum(map(len, written.values())))
    assert files == 4 * (16 + 1) + 1  # 16 objects and a kustomization; the index


def test_comparison_sees_one_changed_value(built: Path):
    expected = tree_objects(built / "manifests" / "dev-cpu")
    text = (
        built / "manifests" / "dev-cpu" / "pt-job-00001.pytorchjob.yaml"
    ).read_text()
    changed = text.replace("memory: 64Gi", "memory: 65Gi", 1)
    others = [
        p.read_text()
        for p in sorted((built / "manifests" / "dev-cpu").glob("*.yaml"))
        if p.name not in ("kustomization.yaml", "pt-job-00001.pytorchjob.yaml")
    ]
    assert differences(expected, objects_of([*others, text])) == []
    assert differences(expected, objects_of([*others, changed])) == [
        "differs: PyTorchJob/ml-dev/pt-job-00001 at"
        " /spec/pytorchReplicaSpecs/Master/template/spec/containers/0/resources/limits/memory"
    ]
    assert differences(expected, objects_of(others)) == [
        "missing: PyTorchJob/ml-dev/pt-job-00001"
    ]


def test_edit_spec_changes_the_args_only(tmp_path: Path):
    generate(tmp_path, 8)
    before = (tmp_path / "jobs" / "job-00007.yaml").read_text()
    edit_spec(tmp_path, 7, 1234)
    after = (tmp_path / "jobs" / "job-00007.yaml").read_text()
    changed = [
        pair
        for pair in zip(before.splitlines(), after.splitlines(), strict=True)
        if pair[0] != pair[1]
    ]
    assert len(changed) == 1
    assert changed[0][1] == 'args: [--epochs, "1234", --lr, "0.01"]'


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
def test_kustomize_overlays_yield_kgen_environments(built: Path, tmp_path: Path):
    assert KUBECTL is not None
    folders = kustomize_side.set_up(built / "manifests", tmp_path)
    assert [f.name for f in folders] == ["prod-gpu", "dev-cpu", "kf12-gpu", "kf06-cpu"]
    assert (
        kustomize_side.check_same_objects(KUBECTL, built / "manifests", folders)
        == 4 * 16
    )
    # An overlay that misses one change fails loudly instead of timing other work.
    dev = tmp_path / "dev-cpu" / "kustomization.yaml"
    dev.write_text(dev.read_text().replace("value: '1'", "value: '2'"))
    with pytest.raises(SystemExit) as stopped:
        kustomize_side.check_same_objects(KUBECTL, built / "manifests", folders)
    assert str(stopped.value) == (
        "bench: kustomize's dev-cpu is not kgen's (3 differences):\n"
        + "\n".join(
            f"  differs: PyTorchJob/ml-dev/pt-job-0000{n} at /spec/nprocPerNode"
            for n in (1, 2, 4)
        )
    )


@pytest.mark.skipif(
    not Path("/proc/self/smaps_rollup").exists(), reason="no /proc smaps_rollup"
)
def test_tree_memory_counts_a_forked_child(tmp_path: Path):
    # The parent holds little; its forked child fills 60 MB: the tree's peak has it.
    script = (
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    data = b'x' * 60_000_000\n"
        "    time.sleep(0.4)\n"
        "    os._exit(0)\n"
        "os.wait()\n"
    )
    peak = tree_peak_mb(
        Variant([sys.executable, "-c", script], cwd=tmp_path), after=lambda: None
    )
    assert peak is not None
    assert 60 <= peak < 120
