"""The record of the output tree (kgen.output.stat_record) and the replayed check
(kgen.commands.up_to_date) never answer differently from a run without them.

Every case runs the same command on two copies of a project: one with the cache (and
so the records), one with KGEN_NO_CACHE. Exit codes, stdout and stderr must be equal
byte for byte. Files are aged a minute first, as a tree is between two commands: a
file changed within the clock step before kgen looks is never recorded (git's racy
files), which `test_a_file_changed_as_it_is_recorded_is_not_recorded` proves.
"""

from __future__ import annotations

import os
import pickle
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from kgen.commands import build as build_command
from kgen.commands import up_to_date
from kgen.output import compare, journal, scan, stat_record, writer
from kgen.output.scan import pack_stat
from kgen.output.stat_record import (
    TreeWatch,
    load_record,
    record_file,
    settled,
)
from kgen.pipeline.cache import cache_folder
from tests.conftest import RunKgen, copy_example, files_below, no_hang
from tests.warm_cold import age, built_pair, plant, rewrite, same_as_cold, swap_case

JOB = "manifests/dev-cpu/mnist-ddp.pytorchjob.yaml"


def _record_of(root: Path) -> Path:
    """Where the tree record of `root`'s manifests/ is kept."""
    where = record_file(root, "manifests")
    assert where is not None
    return where


def _pair(tmp_path: Path, run_kgen: RunKgen) -> tuple[Path, Path]:
    """Two built copies of the example project, aged, with every file recorded on the
    first (a check that read them all)."""
    warm, cold = built_pair(tmp_path, run_kgen, copy_example)
    assert run_kgen("build", "--check", "-C", str(warm)).code == 0
    return warm, cold


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The output files commands read from here on."""
    read: list[str] = []
    original = compare._read

    def counting(folder: int, name: str, shown: str, limit: int) -> object:
        read.append(shown)
        return original(folder, name, shown, limit)

    monkeypatch.setattr(compare, "_read", counting)
    return read


@pytest.mark.parametrize("new_inode", [False, True])
def test_a_file_rewritten_with_size_and_mtime_kept_is_caught(
    new_inode: bool,
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    warm, cold = _pair(tmp_path, run_kgen)
    for root in (warm, cold):
        rewrite(root / JOB, swap_case, new_inode=new_inode)
    read = _reads(monkeypatch)
    found = same_as_cold(run_kgen, monkeypatch, warm, cold, "build", "--check")
    assert found.code == 1
    assert f"modified: {JOB}\n" in found.err
    assert JOB in read


def test_a_file_changed_in_the_same_second_is_caught(
    tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a file system that keeps whole seconds, a file checked and then truncated and
    written again within that second keeps its size, mtime, ctime and inode: the
    record never trusted a file that new."""
    root = copy_example(tmp_path / "p")
    assert run_kgen("build", "-C", str(root)).code == 0
    second = int(time.time()) * 1_000_000_000

    def whole_seconds(status: os.stat_result) -> bytes:
        kept = (status.st_ino, status.st_dev, status.st_mode)
        return pack_stat(status.st_size, second, second, *kept)

    monkeypatch.setattr(compare, "stat_of", whole_seconds)
    monkeypatch.setattr(scan, "stat_of", whole_seconds)
    monkeypatch.setattr(stat_record, "stat_of", whole_seconds)
    monkeypatch.setattr(up_to_date, "stat_of", whole_seconds)
    assert run_kgen("build", "--check", "-C", str(root)).code == 0
    rewrite(root / JOB, swap_case, new_inode=False)
    found = run_kgen("build", "--check", "-C", str(root))
    assert (found.code, f"modified: {JOB}\n" in found.err) == (1, True)


def test_a_file_changed_as_it_is_recorded_is_not_recorded(tmp_path: Path) -> None:
    fine = pack_stat(10, 5_123_456_789, 0, 1, 1, 0o100644)
    whole_second = pack_stat(10, 5_000_000_000, 0, 1, 1, 0o100644)
    assert settled(fine, 5_200_000_000)
    assert not settled(fine, 5_150_000_000)  # within the clock tick
    assert not settled(whole_second, 7_900_000_000)  # a coarse file system's step
    assert settled(whole_second, 8_100_000_000)
    watch = TreeWatch(tmp_path / "record.pickle", "out")
    watch.since = 5_150_000_000
    watch.found("out/a.yaml", fine)
    scan = compare.Scan(files={"out/a.yaml"})
    watch.verified({"out/a.yaml": "a: 1\n"}, whole=True, scan=scan)
    assert "out/a.yaml" not in load_record(tmp_path / "record.pickle").stats


def test_the_record_lives_outside_the_project_and_per_folder(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    warm, cold = _pair(tmp_path, run_kgen)
    where = _record_of(warm)
    assert where.exists()
    folder = cache_folder(warm)
    assert folder is not None and where.parent == folder
    assert warm.resolve() not in where.resolve().parents
    # Another tree (another copy, another output folder) has another record.
    assert record_file(cold, "manifests") != where
    assert record_file(warm, "argocd") != where


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"not a pickle",
        pickle.dumps(("salt", {}, "", frozenset())),
        # Anything but plain data is refused before it is made.
        b"cos\nsystem\n(S'touch planted'\ntR.",
    ],
)
def test_a_damaged_or_foreign_record_is_ignored(
    damage: bytes,
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    warm, cold = _pair(tmp_path, run_kgen)
    where = _record_of(warm)
    where.write_bytes(damage)
    for root in (warm, cold):
        rewrite(root / JOB, swap_case, new_inode=False)
    monkeypatch.chdir(tmp_path)
    found = same_as_cold(run_kgen, monkeypatch, warm, cold, "build", "--check")
    assert found.code == 1
    assert not (tmp_path / "planted").exists()


@pytest.mark.parametrize("planted", ["fifo", "link"])
def test_a_record_that_is_no_regular_file_is_ignored_not_followed(
    planted: str,
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A FIFO at the record's place blocked a plain open for ever; a link would be
    # read and written through.
    warm, cold = _pair(tmp_path, run_kgen)
    where = _record_of(warm)
    target = tmp_path / "elsewhere.pickle"
    plant(where, planted, target)
    for root in (warm, cold):
        rewrite(root / JOB, swap_case, new_inode=False)
    monkeypatch.chdir(tmp_path)

    with no_hang("the build hung on the record"):
        found = same_as_cold(run_kgen, monkeypatch, warm, cold, "build")
    assert found.code == 0
    assert where.is_file() and not where.is_symlink()  # replaced, not written through
    assert target.read_bytes() != where.read_bytes()


def test_a_build_after_one_edit_reads_only_what_it_wrote(
    tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
) -> None:
    warm, cold = _pair(tmp_path, run_kgen)
    for root in (warm, cold):
        job = root / "jobs/nightly-eval-2.yaml"
        job.write_bytes((root / "jobs/nightly-eval.yaml").read_bytes())
        os.utime(job, (time.time() - 30, time.time() - 30))
    read = _reads(monkeypatch)
    built = run_kgen("build", "-C", str(warm))
    assert built.code == 0
    written = int(built.err.rsplit(": ", 1)[1].split(" files written")[0])
    # Only the files that changed are read (to learn they did): every other is known.
    assert 0 < len(read) == written
    changed = set(read)
    monkeypatch.setenv("KGEN_NO_CACHE", "1")
    assert run_kgen("build", "-C", str(cold)) == built
    monkeypatch.delenv("KGEN_NO_CACHE")
    del read[:]
    # The next command reads the files the build wrote, and no others: those it
    # carried over by a hard link are known by their new lstat.
    checked = run_kgen("build", "--check", "-C", str(warm))
    assert checked.code == 0
    assert set(read) == changed


def _no_run(*args: object, **kwargs: object) -> object:
    raise AssertionError("the check ran in full")


@pytest.mark.parametrize("command", [("build", "--check"), ("build",)])
@pytest.mark.parametrize("report_format", ["text", "json", "junit", "sarif"])
def test_a_replayed_check_reports_what_the_check_did(
    command: tuple[str, ...],
    report_format: str,
    project: Callable[..., Path],
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Warnings included, in every format, without loading the project; and a build
    that changes nothing, as a build that changed nothing."""
    root = project(
        {
            "jobs/a.yaml": """
                framework: pytorch
                image: docker.io/x/y:latest
                roles:
                  master: {replicas: 1}
                  worker: {replicas: 2}
            """
        }
    )
    assert run_kgen("build", "-C", str(root)).code == 0
    age(root)
    args = (*command, "--format", report_format, "-C", str(root))
    first = run_kgen(*args)
    assert first.code == 0 and "image-latest" in first.out + first.err
    monkeypatch.setattr(build_command, "expected_tree_of", _no_run)
    again = run_kgen(*args)
    assert (again.code, again.out, again.err) == (first.code, first.out, first.err)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


CHANGES: dict[str, Callable[[Path], object]] = {
    "a job": lambda root: _edit(root / "jobs/tf-ps.yaml", "image: ", "image: x"),
    "a comment in a job": lambda root: _edit(
        root / "jobs/tf-ps.yaml", "\n", "\n# ok\n"
    ),
    "a new job": lambda root: (root / "jobs/nightly-eval-2.yaml").write_bytes(
        (root / "jobs/nightly-eval.yaml").read_bytes()
    ),
    "a file beside the jobs": lambda root: (root / "jobs/notes.txt").write_text("x\n"),
    "an overlay": lambda root: (root / "overlays/dev.yaml").write_text(
        (root / "overlays/dev.yaml")
        .read_text()
        .replace("backoffLimit: 1", "backoffLimit: 2")
    ),
    "a team object": lambda root: (root / "resources/extra.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\ndata: {a: b}\n"
    ),
    "an output file": lambda root: rewrite(root / JOB, swap_case, new_inode=False),
    "an output file removed": lambda root: (root / JOB).unlink(),
    "a file added to the output": lambda root: (
        root / "manifests/dev-cpu/x.yaml"
    ).write_text("a: 1\n"),
    "the index": lambda root: (root / "manifests/.kgen-index").write_text(
        (root / "manifests/.kgen-index").read_text().replace(f"{JOB}\n", "", 1)
    ),
    "a link in the output": lambda root: os.symlink(
        "/etc/passwd", root / "manifests/dev-cpu/l.yaml"
    ),
    "an empty folder in the output": lambda root: (root / "manifests/empty").mkdir(),
}


@pytest.mark.parametrize("command", [("build", "--check"), ("build",)])
@pytest.mark.parametrize("name", list(CHANGES))
def test_a_change_is_never_replayed(
    name: str,
    command: tuple[str, ...],
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    warm, cold = _pair(tmp_path, run_kgen)
    assert run_kgen(*command, "-C", str(warm)).code == 0  # recorded
    assert run_kgen(*command, "-C", str(warm)).code == 0  # a replay
    for root in (warm, cold):
        CHANGES[name](root)
        for inputs in ("kgen.yaml", "jobs", "overlays", "resources"):
            age(root / inputs, 30)
    same_as_cold(run_kgen, monkeypatch, warm, cold, *command)
    same_as_cold(run_kgen, monkeypatch, warm, cold, *command)
    same_as_cold(run_kgen, monkeypatch, warm, cold, "build", "--check")


@pytest.mark.parametrize("way", ["restaged", "in place"])
def test_a_file_edited_during_a_build_is_not_taken_on_trust(
    way: str, tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Edited after the build compared it and before the record of the new tree:
    the build carried the edited file over (or left it in place, writing the few files
    that changed: kgen.output.in_place), and the record must not vouch for it."""
    root = copy_example(tmp_path / "p")
    assert run_kgen("build", "-C", str(root)).code == 0
    age(root)
    assert run_kgen("build", "--check", "-C", str(root)).code == 0
    (root / "jobs/nightly-eval-2.yaml").write_bytes(
        (root / "jobs/nightly-eval.yaml").read_bytes()
    )
    if way == "restaged":
        monkeypatch.setattr(journal, "MAX_FILES", 0)
    else:
        monkeypatch.setattr(journal, "KEPT_PER_CHANGED", 1)
        monkeypatch.setattr(writer, "_stage_and_swap", None)  # not restaged
    hooked = "lstat_tree" if way == "restaged" else "save_record"
    original = getattr(stat_record, hooked)

    def meanwhile(*args: object) -> object:
        path = root / JOB
        path.write_bytes(swap_case(path.read_bytes()))  # a plain edit: a new mtime
        return original(*args)

    monkeypatch.setattr(stat_record, hooked, meanwhile)
    built = run_kgen("build", "-C", str(root))
    assert built.code == 0
    monkeypatch.setattr(stat_record, hooked, original)
    found = run_kgen("build", "--check", "-C", str(root))
    assert (found.code, f"modified: {JOB}\n" in found.err) == (1, True)


def test_a_build_after_a_killed_one_recovers_instead_of_replaying(
    tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
) -> None:
    warm, cold = _pair(tmp_path, run_kgen)
    assert run_kgen("build", "-C", str(warm)).code == 0  # recorded
    for root in (warm, cold):
        (root / ".manifests.kgen-new-4242").mkdir()  # killed before its marker
    same_as_cold(run_kgen, monkeypatch, warm, cold, "build")
    assert not (warm / ".manifests.kgen-new-4242").exists()
    assert not (cold / ".manifests.kgen-new-4242").exists()


def test_a_rebuild_with_nothing_new_to_record_leaves_the_record(
    tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After files are written in place, the record is saved again only if there is
    something to add or a whole tree to forget: its entries for the files replaced
    match no file there now, so a rebuild that read only those leaves it as it is,
    and the next command still reads exactly what was written."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
    from generate import edit_spec, generate

    warm, cold = tmp_path / "warm", tmp_path / "cold"
    for root in (warm, cold):
        generate(root, 20)
        assert run_kgen("build", "-C", str(root)).code == 0
        age(root)
    assert run_kgen("build", "--check", "-C", str(warm)).code == 0
    where = record_file(warm, "manifests")
    assert where is not None and load_record(where).tree  # a whole tree recorded
    read = _reads(monkeypatch)
    saved: list[object] = []
    original = stat_record.save_record

    def saving(place: Path | None, record: stat_record.TreeRecord) -> None:
        saved.append(record)
        original(place, record)

    monkeypatch.setattr(stat_record, "save_record", saving)
    for epochs in (7, 8, 9):
        for root in (warm, cold):
            edit_spec(root, 3, epochs)
        del read[:], saved[:]
        before = where.read_bytes()
        found = run_kgen("build", "-C", str(warm))
        assert "5 files written, 0 removed" in found.err
        # The files that changed, read to learn they did; the first time, also the
        # job's claims, recorded as digests and now rendered as texts.
        assert len(read) == (9 if epochs == 7 else 5)
        monkeypatch.setenv("KGEN_NO_CACHE", "1")
        assert run_kgen("build", "-C", str(cold)).err == found.err
        monkeypatch.delenv("KGEN_NO_CACHE")
        if epochs == 7:  # the tree recorded is forgotten, the claims recorded
            assert len(saved) == 1 and not load_record(where).tree
            assert len(load_record(where).stats) == len(load_record(where).held)
        else:  # the record is left as it is
            assert saved == [] and where.read_bytes() == before
    del read[:]
    found = run_kgen("build", "--check", "-C", str(warm))
    assert found.code == 0
    # Only the job's files: those written, and its claims (recorded as texts, and
    # now digests). The rest is known as the first check recorded it.
    assert read and all("/tf-job-00003" in p or "/.kgen-index" in p for p in read)
    assert files_below(warm / "manifests") == files_below(cold / "manifests")
    age(warm)
    (warm / "manifests/dev-cpu/tf-job-00003.tfjob.yaml").write_text("x: 1\n")
    found = run_kgen("build", "--check", "-C", str(warm))
    assert "modified: manifests/dev-cpu/tf-job-00003.tfjob.yaml" in found.err


def test_the_scan_vouches_only_for_files_as_recorded_and_as_expected(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    for name in "abcde":
        (folder / name).write_text("a: 1\n")
    recorded = {f"out/{name}": scan.stat_of(os.lstat(folder / name)) for name in "abcd"}
    os.utime(folder / "b", ns=(0, 5_000_000_001))  # touched since
    (folder / "d").unlink()  # gone
    found = compare.Scan(recorded=recorded, unchanged=set())
    fd = os.open(folder, os.O_RDONLY)
    try:
        scan.scan_below(fd, "out", found)
    finally:
        os.close(fd)
    # Only files in the record, as recorded (e, new to it, is read whatever it is).
    assert found.unchanged == {"out/a", "out/c"}
    assert found.files == {"out/a", "out/b", "out/c", "out/e"}
    watch = TreeWatch(None, "out")
    watch.old.stats = recorded
    watch.old.held = {p: stat_record.held("a: 1\n") for p in recorded}
    expected = dict.fromkeys(found.files, "a: 1\n") | {"out/c": "a: 2\n"}
    assert watch.vouched(found.unchanged, expected) == {"out/a"}
    assert watch.trusted == {"out/a"} and watch.seen == {}  # not read
