"""What kgen promises beyond correct output (docs/guarantees.md): no network, no
secret values, no writing outside the project and its output root."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import RunKgen, copy_example, write_tree

NO_NETWORK = """
import socket, sys

def refuse(*args, **kwargs):
    raise SystemExit("kgen tried to use the network")

socket.socket = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
socket.socketpair = refuse

from kgen.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _copy_repo(dest: Path) -> Path:
    return copy_example(dest, extra=("manifests", "argocd"))


@pytest.mark.parametrize(
    "args",
    [
        ("validate",),
        ("build",),
        ("build", "--check"),
        ("diff",),
        ("list",),
        ("argocd", "--check"),
        ("render", "mnist-ddp", "--env", "dev-cpu"),
        ("explain", "mnist-ddp", "--env", "prod-gpu"),
        ("schema", "--out", "schemas-out"),
    ],
)
def test_no_command_uses_the_network(args: tuple[str, ...], tmp_path: Path):
    root = _copy_repo(tmp_path / "project")
    done = subprocess.run(
        [sys.executable, "-c", NO_NETWORK, *args],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "KGEN_NO_CACHE": "1"},
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "network" not in done.stderr


def test_a_referenced_secret_never_reaches_the_output(
    tmp_path: Path, run_kgen: RunKgen
):
    # A Secret manifest lying in the project, as one might: kgen renders a reference
    # to it and never reads it, so its value appears nowhere.
    value = "s3cr3t-value-that-must-not-leak"
    write_tree(
        tmp_path,
        {
            "kgen.yaml": "environments:\n  dev: [v1]\n",
            "overlays/v1.yaml": "target: v1\n",
            "secrets/wandb.yaml": f"""
                apiVersion: v1
                kind: Secret
                metadata: {{name: wandb}}
                stringData: {{api-key: {value}}}
            """,
            "jobs/train.yaml": """
                framework: pytorch
                image: repo/train:1.0
                resources:
                  requests: {cpu: "1", memory: 1Gi}
                  limits: {memory: 1Gi}
                env:
                  - {name: WANDB_API_KEY, secretKeyRef: {name: wandb, key: api-key}}
                roles:
                  master: {replicas: 1}
            """,
        },
    )
    assert run_kgen("build", cwd=tmp_path).code == 0
    written = {
        p: p.read_text() for p in (tmp_path / "manifests").rglob("*") if p.is_file()
    }
    job = written[tmp_path / "manifests/dev/train.pytorchjob.yaml"]
    assert "secretKeyRef:\n" in job and "name: wandb" in job
    assert not [p for p, text in written.items() if value in text]
    assert not [p for p, text in written.items() if "kind: Secret" in text]


def test_allow_literals_in_kgen_yaml_allows_one_variable(
    tmp_path: Path, run_kgen: RunKgen
):
    write_tree(
        tmp_path,
        {
            "kgen.yaml": """
                environments:
                  dev: [v1]
                lint:
                  allowLiterals: {TOKEN_TTL: a lifetime in seconds}
            """,
            "overlays/v1.yaml": "target: v1\n",
            "jobs/train.yaml": """
                framework: pytorch
                image: repo/train:1.0
                resources:
                  requests: {cpu: "1", memory: 1Gi}
                  limits: {memory: 1Gi}
                env:
                  - {name: TOKEN_TTL, value: "3600"}
                  - {name: API_TOKEN, value: abc}
                roles:
                  master: {replicas: 1}
            """,
        },
    )
    result = run_kgen("validate", cwd=tmp_path)
    assert result.code == 1
    assert "API_TOKEN looks like a secret" in result.err
    assert "TOKEN_TTL" not in result.err


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("untouched\n")
    return outside


def _snapshot(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(folder.iterdir())}


def test_a_linked_folder_in_the_output_is_refused(tmp_path: Path, run_kgen: RunKgen):
    root = _copy_repo(tmp_path / "project")
    outside = _outside(tmp_path)
    shutil.rmtree(root / "manifests" / "dev-cpu")
    (root / "manifests" / "dev-cpu").symlink_to(outside)
    for args in (("build",), ("build", "--check", "--diff"), ("diff",)):
        result = run_kgen(*args, cwd=root)
        assert (result.code, result.err.splitlines()[0]) == (
            1,
            "manifests/dev-cpu: error: manifests/dev-cpu is a symbolic link; kgen's"
            " output folder holds only files and folders, and kgen never follows or"
            " opens anything else there (io)",
        )
        assert result.out == ""
        assert _snapshot(outside) == {"keep.txt": "untouched\n"}


def test_a_linked_file_kgen_wrote_is_refused_never_followed_or_removed(
    tmp_path: Path, run_kgen: RunKgen
):
    # The index says kgen wrote a regular file there; a link in its place is not
    # kgen's to read, replace or remove.
    root = _copy_repo(tmp_path / "project")
    outside = _outside(tmp_path)
    owned = root / "manifests" / "dev-cpu" / "mnist-ddp.pytorchjob.yaml"
    owned.unlink()
    owned.symlink_to(outside / "keep.txt")
    line = (
        (root / "manifests/.kgen-index")
        .read_text()
        .splitlines()
        .index(
            "manifests/dev-cpu/mnist-ddp.pytorchjob.yaml"
            " spec-yaml-sha256:"
            + _mark(root, "manifests/dev-cpu/mnist-ddp.pytorchjob.yaml")
        )
    )
    for args in (("build",), ("build", "--check", "--diff"), ("diff",)):
        result = run_kgen(*args, cwd=root)
        assert result.code == 1, result
        assert result.err.startswith(
            f"manifests/.kgen-index:{line + 1}:1: error: the index lists"
            " manifests/dev-cpu/mnist-ddp.pytorchjob.yaml, which is a symbolic link,"
            " not a file kgen wrote; kgen reads and removes only regular files it"
            " wrote (io)\n"
        ), result
        assert "untouched" not in result.out + result.err
    assert owned.is_symlink()
    assert _snapshot(outside) == {"keep.txt": "untouched\n"}


def test_a_linked_file_kgen_did_not_write_is_refused(tmp_path: Path, run_kgen: RunKgen):
    root = _copy_repo(tmp_path / "project")
    outside = _outside(tmp_path)
    notes = root / "manifests" / "dev-cpu" / "notes.yaml"
    notes.symlink_to(outside / "keep.txt")
    result = run_kgen("build", "--check", "--diff", cwd=root)
    assert result.code == 1
    assert result.err.startswith(
        "manifests/dev-cpu/notes.yaml: error: manifests/dev-cpu/notes.yaml is a"
        " symbolic link;"
    )
    assert "untouched" not in result.out + result.err
    assert run_kgen("build", cwd=root).code == 1
    assert notes.is_symlink()
    assert _snapshot(outside) == {"keep.txt": "untouched\n"}


def _mark(root: Path, path: str) -> str:
    for line in (root / "manifests/.kgen-index").read_text().splitlines():
        if line.startswith(path + " "):
            return line.split(":")[-1]
    raise AssertionError(path)


def test_argocd_never_writes_through_a_link(tmp_path: Path, run_kgen: RunKgen):
    root = _copy_repo(tmp_path / "project")
    outside = _outside(tmp_path)
    target = next((root / "argocd").glob("*.yaml"))
    target.unlink()
    target.symlink_to(outside / "keep.txt")
    result = run_kgen("argocd", cwd=root)
    assert result.code == 1
    # argocd/ is owned like the output folder: a link where kgen wrote a file is refused.
    assert "which is a symbolic link, not a file kgen wrote" in result.err
    assert _snapshot(outside) == {"keep.txt": "untouched\n"}
    shutil.rmtree(root / "argocd")
    (root / "argocd").symlink_to(outside)
    assert run_kgen("argocd", cwd=root).code == 1
    assert _snapshot(outside) == {"keep.txt": "untouched\n"}


def test_argocd_never_opens_a_named_pipe_and_writes_nothing_then(
    tmp_path: Path, run_kgen: RunKgen
):
    root = _copy_repo(tmp_path / "project")
    targets = sorted((root / "argocd").glob("*.yaml"))
    targets[0].write_text("stale\n")
    targets[-1].unlink()
    os.mkfifo(targets[-1])
    shown = targets[-1].relative_to(root).as_posix()
    result = run_kgen("argocd", cwd=root)
    assert result.code == 1
    assert result.err.endswith(
        f"error: the index lists {shown}, which is a named pipe, not a file kgen wrote;"
        " kgen reads and removes only regular files it wrote (io)\n"
        f"    hint: remove {shown} (kgen writes it again), or restore the output folder"
        " from git\n"
        "kgen: 1 error in 1 file\n"
    )
    assert targets[0].read_text() == "stale\n"  # nothing written: no partial update


def test_argocd_never_writes_through_a_planted_partial_file(
    tmp_path: Path, run_kgen: RunKgen
):
    root = _copy_repo(tmp_path / "project")
    outside = _outside(tmp_path)
    target = next((root / "argocd").glob("*.yaml"))
    expected = target.read_text()
    target.write_text("stale\n")
    partial = target.with_name(f".{target.name}.kgen-new-{os.getpid()}")
    partial.symlink_to(outside / "keep.txt")
    result = run_kgen("argocd", cwd=root)
    # argocd/ is kgen's alone, like the output folder: a link planted in it is refused
    # and nothing is written, through it or beside it.
    assert result.code == 1, result
    assert "hint: remove it: the output folder is kgen's alone" in result.err
    assert target.read_text() == "stale\n" != expected
    assert _snapshot(outside) == {"keep.txt": "untouched\n"}
