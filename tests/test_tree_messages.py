"""Every message a build gives about the output tree is true of the tree afterwards.

Each test makes a build fail at one point (staging, the swap, the fallback renames,
removing the old tree, the lock) and checks the tree against what the message says:
"the previous tree is unchanged" means the old tree, byte for byte; "is in place" means
the new one. Tests run as root, so the permission failures drop root's powers over
files in a child process (and skip where that is impossible).
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import subprocess
import sys
import types
from collections.abc import Callable
from pathlib import Path

import pytest

from kgen.output import atomic
from kgen.output.atomic import MARKER, OLD, TREE, Place, recover
from tests.conftest import RunKgen, files_below, write_tree

UNCHANGED = "the previous tree is unchanged"


def _project(root: Path) -> Path:
    files = {
        "kgen.yaml": "environments:\n  a: [tag]\n  b: {overlays: [tag], namespace: b}\n"
        "lint:\n  ignore:\n    resources-missing: synthetic jobs\n"
        "    job-changed-in-place: the states differ on purpose\n",
        "overlays/tag.yaml": "patch:\n  image: repo/train:1\n",
    }
    for i in range(3):
        files[f"jobs/job-{i}.yaml"] = (
            "framework: pytorch\nimage: repo/train:0\n"
            "roles:\n  master: {replicas: 1}\n  worker: {replicas: 1}\n"
        )
    return write_tree(root, files)


def _set_state(root: Path, state: int) -> None:
    (root / "overlays/tag.yaml").write_text(f"patch:\n  image: repo/train:{state}\n")


@pytest.fixture
def trees(
    tmp_path: Path, run_kgen: RunKgen
) -> tuple[Path, dict[int, dict[str, bytes]]]:
    """A project built in state 1, then set to state 2; the trees of both states."""
    root = _project(tmp_path / "project")
    found = {}
    for state in (2, 1):
        _set_state(root, state)
        assert run_kgen("build", cwd=root).code == 0
        found[state] = files_below(root / "manifests")
    _set_state(root, 2)
    return root, found


def _leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if ".kgen-new-" in p.name)


def _assert_true(err: str, root: Path, trees: dict[int, dict[str, bytes]]) -> None:
    """The tree is what the message says it is."""
    if UNCHANGED in err:
        assert files_below(root / "manifests") == trees[1], err
    else:
        assert "manifests/ is in place" in err, err
        assert files_below(root / "manifests") == trees[2], err


def _fail(exc: OSError) -> Callable[..., None]:
    def fail(*_args: object, **_kwargs: object) -> None:
        raise exc

    return fail


# New files are made in two places: texts as their renders arrive (spool), the rest
# (kustomizations, the index, copies) when the tree is filled in.
@pytest.mark.parametrize("step", ["kgen.output.spool", "kgen.output.fill"])
def test_a_failure_while_staging_keeps_the_old_tree(
    trees: tuple[Path, dict[int, dict[str, bytes]]],
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    step: str,
) -> None:
    root, found = trees
    monkeypatch.setattr(
        f"{step}.write_new", _fail(OSError(errno.ENOSPC, "No space left on device"))
    )
    # Every render fresh, so that its texts go through the spool: the cache has
    # state 2's renders from the first build, and their texts come in at the fill.
    monkeypatch.setenv("KGEN_NO_CACHE", "1")
    result = run_kgen("build", cwd=root)
    assert (result.code, result.err) == (
        1,
        "manifests: error: cannot write manifests/: No space left on device;"
        " the previous tree is unchanged (io)\nkgen: 1 error in 1 file\n",
    )
    _assert_true(result.err, root, found)
    assert _leftovers(root) == []


def test_a_failed_exchange_keeps_the_old_tree(
    trees: tuple[Path, dict[int, dict[str, bytes]]],
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root, found = trees

    def renameat2(*_args: object) -> int:
        ctypes.set_errno(errno.EACCES)
        return -1

    libc = types.SimpleNamespace(renameat2=renameat2)
    monkeypatch.setattr(ctypes, "CDLL", lambda *_args, **_kwargs: libc)
    result = run_kgen("build", cwd=root)
    assert (result.code, result.err) == (
        1,
        "manifests: error: cannot write manifests/: Permission denied;"
        " the previous tree is unchanged (io)\nkgen: 1 error in 1 file\n",
    )
    _assert_true(result.err, root, found)
    assert _leftovers(root) == []


@pytest.mark.parametrize("failures", [0, 1, 2])
def test_the_fallback_renames_say_where_each_tree_is(
    trees: tuple[Path, dict[int, dict[str, bytes]]],
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    failures: int,
) -> None:
    # Without renameat2 the old tree moves aside and the new one in; the second rename
    # failing moves the old one back, and that failing too is said, with where it is.
    root, found = trees
    monkeypatch.setattr(atomic, "_exchange", lambda *_args: False)
    real, calls = os.rename, []

    def rename(*args: object, **kwargs: object) -> None:
        if "src_dir_fd" in kwargs:  # the swap's renames
            calls.append(args)
        if calls and calls[-1] is args and 2 <= len(calls) <= 1 + failures:
            raise OSError(errno.EIO, "Input/output error")
        real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "rename", rename)
    result = run_kgen("build", cwd=root)
    if failures == 0:
        assert result.code == 0, result
        assert files_below(root / "manifests") == found[2]
    elif failures == 1:
        assert result.code == 1
        _assert_true(result.err, root, found)
    else:
        assert result.code == 1
        [staged] = _leftovers(root)
        assert result.err.startswith(
            "manifests: error: cannot write manifests/: Input/output error; the previous"
            f" tree is at {staged}/old and could not be moved back (io)\n"
            f"    hint: move {staged}/old back to manifests by hand\n"
        ), result.err
        assert not (root / "manifests").exists()
        monkeypatch.undo()
        saved = root / staged / OLD
        assert {
            p.relative_to(saved).as_posix(): p.read_bytes()
            for p in sorted(saved.rglob("*"))
            if p.is_file()
        } == found[1]
        # The next build puts it back first, then builds.
        assert run_kgen("build", cwd=root).code == 0
        assert files_below(root / "manifests") == found[2]
    assert _leftovers(root) == []


def test_an_old_tree_that_cannot_be_removed_is_reported_with_the_new_one_in_place(
    trees: tuple[Path, dict[int, dict[str, bytes]]],
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root, found = trees

    real = shutil.rmtree

    def rmtree(path: str, ignore_errors: bool = False, **kwargs: object) -> None:
        if "dir_fd" not in kwargs:
            real(path, ignore_errors, **kwargs)  # type: ignore[arg-type]
        # As a folder without write permission: nothing in it can be removed.
        elif not ignore_errors:
            raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(shutil, "rmtree", rmtree)
    # Nor by the removal that holds fewer descriptors, tried after it.
    monkeypatch.setattr("kgen.output.atomic.remove_folder", lambda *_: None)
    result = run_kgen("build", cwd=root)
    [staged] = _leftovers(root)
    assert (result.code, result.err) == (
        1,
        f"{staged}: error: the new manifests/ is in place, but the previous tree could"
        f" not be removed from {staged}: Permission denied (io)\n"
        f"    hint: remove {staged} by hand; the next build also tries\n"
        "kgen: 1 error in 1 file\n",
    )
    _assert_true(result.err, root, found)
    monkeypatch.undo()
    assert run_kgen("build", cwd=root).code == 0
    assert _leftovers(root) == []


def test_recovery_puts_back_an_old_tree_moved_aside_and_clears_staging(
    trees: tuple[Path, dict[int, dict[str, bytes]]],
) -> None:
    # What a build killed between the two fallback renames leaves.
    root, found = trees
    staged = root / ".manifests.kgen-new-99"
    staged.mkdir()
    (staged / MARKER).write_text("x\n")
    (staged / TREE).mkdir()
    (root / "manifests").rename(staged / OLD)
    (root / ".manifests.kgen-new-98").mkdir()  # killed before its marker: empty
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        recover(Place(fd, "manifests", ""))
    finally:
        os.close(fd)
    assert files_below(root / "manifests") == found[1]
    assert _leftovers(root) == []


# --- without root's power over files (a CI runner is not root)

CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER = 1, 2, 3
PR_CAPBSET_DROP = 24


def _drop_file_powers() -> None:
    """In the child, before it runs kgen: give up, for good, the capabilities that let
    root ignore file permissions (dropped from the bounding set, as root would regain
    them at exec otherwise)."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            os._exit(97)


def _kgen_without_root(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "kgen", *args],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "KGEN_NO_CACHE": "1", "NO_COLOR": "1"},
        preexec_fn=_drop_file_powers,
        check=False,
        timeout=120,
    )
    if done.returncode == 97:
        pytest.skip("cannot give up root's power over files here")
    return done


def _permissions_apply(tmp_path: Path) -> bool:
    probe = tmp_path / "probe"
    probe.mkdir()
    probe.chmod(0o555)
    done = subprocess.run(
        [sys.executable, "-c", f"open({str(probe / 'x')!r}, 'w')"],
        preexec_fn=_drop_file_powers,
        capture_output=True,
        check=False,
    )
    probe.chmod(0o755)
    return done.returncode == 1


def test_a_read_only_environment_folder_never_gets_a_false_message(
    trees: tuple[Path, dict[int, dict[str, bytes]]], tmp_path: Path
) -> None:
    root, found = trees
    if not _permissions_apply(tmp_path):
        pytest.skip("file permissions do not apply to this process")
    (root / "manifests/a").chmod(0o555)
    try:
        done = _kgen_without_root(root, "build")
    finally:
        for folder in (
            root / "manifests/a",
            *root.glob(".manifests.kgen-new-*/tree/a"),
        ):
            folder.chmod(0o755)
    assert done.returncode == 1, done.stderr
    assert UNCHANGED not in done.stderr
    _assert_true(done.stderr, root, found)
    [staged] = _leftovers(root)
    assert (
        f"{staged}: error: the new manifests/ is in place, but the previous tree could"
        f" not be removed from {staged}: Permission denied (io)\n"
    ) in done.stderr


def test_a_project_root_where_the_lock_cannot_be_created(
    trees: tuple[Path, dict[int, dict[str, bytes]]], tmp_path: Path
) -> None:
    root, found = trees
    if not _permissions_apply(tmp_path):
        pytest.skip("file permissions do not apply to this process")
    (root / ".manifests.kgen-lock").unlink()
    root.chmod(0o555)
    try:
        done = _kgen_without_root(root, "build")
    finally:
        root.chmod(0o755)
    assert (done.returncode, done.stderr) == (
        1,
        ".manifests.kgen-lock: error: cannot lock .manifests.kgen-lock: Permission"
        " denied; nothing was written (io)\n"
        "    hint: kgen needs a regular file there that it can create and lock: remove"
        " what is there, or make the folder writable\n"
        "kgen: 1 error in 1 file\n",
    )
    assert files_below(root / "manifests") == found[1]


@pytest.mark.parametrize(
    ("folder", "args", "error"),
    [
        (
            "manifests/a",
            ("build", "--check"),
            "manifests/a: error: cannot read manifests/a: Permission denied (io)",
        ),
        (
            "manifests/a",
            ("diff",),
            "manifests/a: error: cannot read manifests/a: Permission denied (io)",
        ),
        (
            "manifests/a",
            ("build",),
            "manifests/a: error: cannot read manifests/a: Permission denied (io)",
        ),
        (
            "manifests",
            ("validate",),
            "manifests/.kgen-index: error: kgen's index of the files it wrote is"
            " damaged; cannot read it: Permission denied (io)",
        ),
    ],
)
def test_an_unreadable_output_folder_is_a_located_error(
    trees: tuple[Path, dict[int, dict[str, bytes]]],
    tmp_path: Path,
    folder: str,
    args: tuple[str, ...],
    error: str,
) -> None:
    root, found = trees
    if not _permissions_apply(tmp_path):
        pytest.skip("file permissions do not apply to this process")
    (root / folder).chmod(0)
    try:
        done = _kgen_without_root(root, *args)
    finally:
        (root / folder).chmod(0o755)
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith(error + "\n"), done.stderr
    assert files_below(root / "manifests") == found[1]
