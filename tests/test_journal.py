"""A build that changes few files writes them in place through a journal
(kgen.output.journal): killed at any step, the next build's recovery leaves the old
tree or the new one, and the result is the tree a full build writes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kgen.output import journal, writer
from kgen.output.atomic import Place, recover
from kgen.output.scan import stat_of
from tests.conftest import RunKgen, files_below, write_tree
from tests.hostile.case import OUTSIDE_SECRET, materialise
from tests.hostile.cases_edit import CASES as EDIT_CASES
from tests.hostile.cases_edit import PLANTED, STAGING
from tests.test_output_trees import snapshot

JOBS = 40
# Runs `kgen build` with a hook that kills the process (no clean-up, as SIGKILL) at the
# given step of writing in place; exits 0 if the build ends before it.
KILLER = """
import os, sys
from kgen.output import journal
steps = []
kill_at = int(sys.argv[1])
def hook(step):
    steps.append(step)
    if len(steps) == kill_at:
        sys.stderr.write("killed at " + step + "\\n")
        sys.stderr.flush()
        os._exit(9)
journal.step_hook = hook
sys.argv = ["kgen", "build", "-C", sys.argv[2]]
from kgen.__main__ import main
code = main()
sys.stderr.write("steps " + ",".join(steps) + "\\n")
sys.exit(code)
"""


def _make_project(root: Path) -> Path:
    files = {
        "kgen.yaml": "environments:\n  a: [tag]\n  b: {overlays: [tag], namespace: b}\n"
        "lint:\n  ignore:\n    resources-missing: synthetic jobs\n",
        "overlays/tag.yaml": "patch:\n  labels: {team: a}\n",
    }
    for i in range(JOBS):
        files[f"jobs/job-{i:03}.yaml"] = _job(0)
    return write_tree(root, files)


def _job(state: int) -> str:
    return (
        f"framework: pytorch\nimage: repo/train:{state}\n"
        "roles:\n  master: {replicas: 1}\n  worker: {replicas: 2}\n"
    )


def _set_state(root: Path, state: int, *, renamed: bool = False) -> None:
    """Job 7 in `state`; `renamed`: named anew in state 2, so its files go."""
    name = "name: job-007-b\n" if renamed and state == 2 else ""
    (root / "jobs" / "job-007.yaml").write_text(name + _job(state))


def _build(root: Path, *, kill_at: int = 0) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", KILLER, str(kill_at), str(root)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "KGEN_CACHE_DIR": str(root.parent / "cache")},
    )


def _recover(root: Path) -> None:
    parent = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        recover(Place(parent, "manifests", ""))
    finally:
        os.close(parent)


def _staging(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if ".kgen-new-" in p.name)


@pytest.mark.parametrize("renamed", [False, True])
def test_a_build_killed_at_each_step_leaves_the_old_or_the_new_tree(
    tmp_path: Path, renamed: bool
):
    root = _make_project(tmp_path / "p")
    trees = {}
    for state in (1, 2):
        _set_state(root, state, renamed=renamed)
        assert _build(root).returncode == 0
        trees[state] = files_below(root / "manifests")
    finished = _build(root)  # nothing to write
    assert "steps \n" in finished.stderr
    _set_state(root, 1, renamed=renamed)
    finished = _build(root)
    assert finished.returncode == 0, finished.stderr
    steps = finished.stderr.split("steps ")[1].split()[0].split(",")
    # Written in place: the two environments' files of the job and the index (and
    # their kustomizations, and the renamed job's files removed).
    writes = ["rename"] * 5 + ["remove"] * 2 if renamed else ["rename"] * 3
    assert steps == ["backup", "stage", "journal", *writes, "finish"]
    assert files_below(root / "manifests") == trees[1]
    seen = set()
    state = 1
    for kill_at in range(1, len(steps) + 1):
        old, state = state, 3 - state
        _set_state(root, state, renamed=renamed)
        killed = _build(root, kill_at=kill_at)
        assert killed.returncode == 9, killed.stderr
        assert _staging(root), "a killed build leaves its staging folder"
        _recover(root)
        now = files_below(root / "manifests")
        assert now in (trees[old], trees[state]), f"mixed tree at step {kill_at}"
        seen.add("old" if now == trees[old] else "new")
        assert _staging(root) == []
        after = _build(root)
        assert after.returncode == 0, after.stderr
        assert files_below(root / "manifests") == trees[state]
        check = subprocess.run(
            [sys.executable, "-m", "kgen", "build", "--check", "-C", str(root)],
            capture_output=True,
            text=True,
            env={**os.environ, "KGEN_CACHE_DIR": str(root.parent / "cache")},
        )
        assert check.returncode == 0, check.stderr
    assert seen == {"old", "new"}


# As KILLER, but the hook sends the process a catchable signal at the given step.
SIGNALLER = KILLER.replace(
    "kill_at = int(sys.argv[1])", "kill_at = int(sys.argv[1]); sent = int(sys.argv[3])"
).replace(
    """        sys.stderr.write("killed at " + step + "\\n")
        sys.stderr.flush()
        os._exit(9)""",
    """        os.kill(os.getpid(), sent)""",
)


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_an_interrupt_during_the_renames_waits_for_the_last_file(
    tmp_path: Path, name: str
):
    number = getattr(signal, name)
    root = _make_project(tmp_path / "p")
    _set_state(root, 1)
    assert _build(root).returncode == 0
    _set_state(root, 2)
    assert _build(root).returncode == 0
    new = files_below(root / "manifests")
    _set_state(root, 1)
    assert _build(root).returncode == 0
    _set_state(root, 2)
    # Step 4 is the first rename (backup, stage, journal, rename, ...).
    stopped = subprocess.run(
        [sys.executable, "-c", SIGNALLER, "4", str(root), str(number)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "KGEN_CACHE_DIR": str(root.parent / "cache")},
    )
    # Ctrl-C is kgen's "aborted" (130); the others end the process as they would.
    assert stopped.returncode == (130 if name == "SIGINT" else -number), stopped.stderr
    assert "Traceback" not in stopped.stderr
    assert files_below(root / "manifests") == new
    assert _staging(root) == []  # removed after the renames, before the end


def test_a_killed_build_is_finished_by_the_next_build(tmp_path: Path):
    root = _make_project(tmp_path / "p")
    _set_state(root, 1)
    assert _build(root).returncode == 0
    _set_state(root, 2)
    assert _build(root).returncode == 0
    new = files_below(root / "manifests")
    _set_state(root, 1)
    # Killed after the journal and the first file: the tree is mixed until the next
    # build finishes the journal.
    assert _build(root, kill_at=5).returncode == 9
    assert files_below(root / "manifests") not in (new,)
    _set_state(root, 2)
    after = _build(root)
    assert after.returncode == 0, after.stderr
    assert files_below(root / "manifests") == new
    assert _staging(root) == []


def _read_only_later(
    monkeypatch: pytest.MonkeyPatch, fails_at: int
) -> list[tuple[str, str]]:
    calls: list[tuple[str, str]] = []
    original = os.rename

    def rename(src: str, dst: str, **kwargs: int) -> None:
        calls.append((src, dst))
        if len(calls) == fails_at:
            raise OSError(30, "Read-only file system")
        original(src, dst, **kwargs)

    monkeypatch.setattr(os, "rename", rename)
    return calls


@pytest.mark.parametrize("fails_at", [2, 3, 4])
def test_a_rename_that_fails_is_undone(
    tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch, fails_at: int
):
    root = _make_project(tmp_path / "p")
    monkeypatch.setenv("KGEN_CACHE_DIR", str(tmp_path / "cache"))
    _set_state(root, 1)
    assert run_kgen("build", "-C", str(root)).code == 0
    before = files_below(root / "manifests")
    _set_state(root, 2)
    monkeypatch.setattr(writer, "_stage_and_swap", None)  # written in place
    # The journal's own rename, then the files': the first of them or a later one fails.
    _read_only_later(monkeypatch, fails_at)
    result = run_kgen("build", "-C", str(root))
    assert result.code == 1
    error = (
        "manifests: error: cannot write manifests/: Read-only file system;"
        " the previous tree is unchanged (io)\n"
    )
    assert error in result.err
    assert files_below(root / "manifests") == before
    assert _staging(root) == []


def test_a_failed_write_before_the_journal_keeps_the_old_tree(
    tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    root = _make_project(tmp_path / "p")
    monkeypatch.setenv("KGEN_CACHE_DIR", str(tmp_path / "cache"))
    _set_state(root, 1)
    assert run_kgen("build", "-C", str(root)).code == 0
    before = files_below(root / "manifests")
    _set_state(root, 2)
    monkeypatch.setattr(writer, "_stage_and_swap", None)

    def disk_full(*_args: object, **_kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(journal, "write_new", disk_full)
    result = run_kgen("build", "-C", str(root))
    assert result.code == 1
    error = "manifests: error: cannot write manifests/: No space left on device; the previous tree is unchanged (io)\n"
    assert error in result.err
    assert files_below(root / "manifests") == before
    assert _staging(root) == []


def test_written_in_place_equals_a_full_build(tmp_path: Path, run_kgen: RunKgen):
    """The same files, byte for byte, and the same report, as a build that restages."""
    outputs = []
    for name, limit in (("few", journal.MAX_FILES), ("all", 0)):
        root = _make_project(tmp_path / name)
        _set_state(root, 1)
        assert run_kgen("build", "-C", str(root)).code == 0
        _set_state(root, 2)
        journal.MAX_FILES, saved = limit, journal.MAX_FILES
        try:
            result = run_kgen("build", "-C", str(root))
        finally:
            journal.MAX_FILES = saved
        assert result.code == 0
        outputs.append((result.err, files_below(root / "manifests")))
    assert outputs[0] == outputs[1]
    assert "3 files written, 0 removed, 80 unchanged" in outputs[0][0]


@pytest.mark.parametrize("name", sorted(EDIT_CASES))
def test_a_planted_journal_moves_nothing(
    name: str, tmp_path: Path, run_kgen: RunKgen
) -> None:
    case = EDIT_CASES[name]
    root = materialise(case, tmp_path / "project")
    outside = snapshot(tmp_path / "outside")
    result = run_kgen(*case.args, cwd=root)
    assert result.code == case.expected_exit, result
    assert snapshot(tmp_path / "outside") == outside
    assert OUTSIDE_SECRET.strip() not in result.out + result.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["outside", "project"]
    assert (root / "manifests/dev/notes.yaml").read_text() == "mine: 1\n"
    texts = files_below(root / "manifests").values()
    assert not any(PLANTED.encode() in text for text in texts)
    assert _staging(root) == [], "the planted folder is removed"


def test_a_journal_kgen_wrote_is_finished(tmp_path: Path, run_kgen: RunKgen) -> None:
    """The same planted folder, with the staged file's true lstat: recovery renames it
    into place (what tells kgen's journal from a planted one is that lstat alone)."""
    root = materialise(EDIT_CASES["planted-journal"], tmp_path / "project")
    staged = root / STAGING / "tree/dev/notes.yaml"
    status = stat_of(os.lstat(staged)).hex()
    (root / STAGING / "journal").write_text(f'[["put", "dev/notes.yaml", "{status}"]]')
    assert run_kgen("build", cwd=root).code == 0
    assert (root / "manifests/dev/notes.yaml").read_text() == PLANTED


def test_a_removal_that_fails_is_undone(
    tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    root = _make_project(tmp_path / "p")
    monkeypatch.setenv("KGEN_CACHE_DIR", str(tmp_path / "cache"))
    _set_state(root, 1, renamed=True)
    assert run_kgen("build", "-C", str(root)).code == 0
    before = files_below(root / "manifests")
    _set_state(root, 2, renamed=True)
    monkeypatch.setattr(writer, "_stage_and_swap", None)  # written in place
    original = os.unlink
    removals = []

    def unlink(path: str, **kwargs: int) -> None:
        if path.endswith(".pytorchjob.yaml"):  # the renamed job's files
            removals.append(path)
            if len(removals) == 2:
                raise OSError(13, "Permission denied")
        original(path, **kwargs)

    monkeypatch.setattr(os, "unlink", unlink)
    result = run_kgen("build", "-C", str(root))
    assert result.code == 1
    error = (
        "manifests: error: cannot write manifests/: Permission denied;"
        " the previous tree is unchanged (io)\n"
    )
    assert error in result.err
    assert files_below(root / "manifests") == before
    assert _staging(root) == []


def test_without_hard_links_the_tree_is_restaged(
    tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    """A file system without hard links: nothing is written in place (its undo needs
    them), and the restaged tree copies the files it cannot link."""
    expected = _make_project(tmp_path / "expected")
    root = _make_project(tmp_path / "p")
    monkeypatch.setenv("KGEN_CACHE_DIR", str(tmp_path / "cache"))
    for project in (root, expected):
        _set_state(project, 1)
        assert run_kgen("build", "-C", str(project)).code == 0
    _set_state(expected, 2)
    assert run_kgen("build", "-C", str(expected)).code == 0
    _set_state(root, 2)

    def no_links(*_args: object, **_kwargs: object) -> None:
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    steps: list[str] = []
    monkeypatch.setattr(journal, "step_hook", steps.append)
    result = run_kgen("build", "-C", str(root))
    assert result.code == 0, result.err
    assert steps == ["backup"]
    assert files_below(root / "manifests") == files_below(expected / "manifests")
    assert _staging(root) == []


def test_a_journal_never_writes_through_a_link(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    """Even a journal whose lstat holds (the worst case) moves nothing into a folder of
    the output root that is a link out of it."""
    root = materialise(EDIT_CASES["planted-journal"], tmp_path / "project")
    (root / "manifests/away").symlink_to(tmp_path / "outside")
    staged = root / STAGING / "tree/away/x.yaml"
    staged.parent.mkdir()
    staged.write_text(PLANTED)
    status = stat_of(os.lstat(staged)).hex()
    (root / STAGING / "journal").write_text(f'[["put", "away/x.yaml", "{status}"]]')
    outside = snapshot(tmp_path / "outside")
    run_kgen("build", cwd=root)
    assert snapshot(tmp_path / "outside") == outside
    assert _staging(root) == []
