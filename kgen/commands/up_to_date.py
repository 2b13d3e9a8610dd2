"""`kgen build --check`, or `kgen build`, with nothing changed: the last one replayed.

A check that finds the tree up to date, or a build that changes nothing, records what it
read (kgen.pipeline.run_record) and what it expected. The next one with the same inputs,
on a tree kgen.output.stat_record still knows file by file (not one file, folder or byte
changed since), reports the same problems and the same last line, having read only the
inputs and lstat'ed the tree. Anything else, or any doubt, runs the command in full.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

from kgen.errors import KgenError, UsageError
from kgen.load.files import read_input
from kgen.output.digests import Digest
from kgen.output.safe_paths import Refused, open_below, open_folder
from kgen.output.scan import MAX_DEPTH, Stat, stat_of
from kgen.output.stat_record import load_record, record_file, tree_id
from kgen.pipeline.cache_place import cache_folder
from kgen.pipeline.run_record import (
    RunRecord,
    Watched,
    fingerprint,
    load_run,
    run_key,
    save_run,
)
from kgen.report.formats import REPORTERS, pick_format

if TYPE_CHECKING:
    from pathlib import Path

    from kgen.commands.options import Options
    from kgen.commands.outcome import Outcome
    from kgen.load.project import Project

PROJECT_FILE = "kgen.yaml"


def attempt_for(options: Options, *, check: bool, show_diff: bool) -> Attempt | None:
    """The look-up of the record of a run on inputs and a tree as the last one left
    them (kgen.commands.up_to_date): made before kgen.commands.build loads, with
    the project's models and renderers, which a replayed run never needs."""
    if show_diff and not check:
        # A reviewer asking for a diff expects nothing written (`kgen diff` shows one).
        raise UsageError(
            "--diff shows drift with --check; use `kgen build --check --diff` or `kgen diff`"
        )
    return (
        None if show_diff else Attempt(options, "build --check" if check else "build")
    )


class Attempt:
    """A command's look-up of its record (`command`: "build" or "build --check"): the
    key and the inputs as they were before it ran, so that a record is saved only of
    inputs that held still meanwhile."""

    def __init__(self, options: Options, command: str) -> None:
        self.options = options
        self.parts = (command, tuple(options.crds))
        # Before the check reads anything: inputs changed after it are not recorded.
        self.since = time.time_ns()
        self.key: str | None = None
        self.record: RunRecord | None = None
        self.folder = None if not _replayable(options) else cache_folder(options.root)
        if self.folder is None:
            return
        reading = read_input(
            options.root / PROJECT_FILE, PROJECT_FILE, root=options.root
        )
        if reading.raw is not None:
            self.key = run_key(options.root, reading.raw, self.parts)
        if self.key is not None:
            self.record = load_run(self.folder, command, self.key)

    def replay(self) -> int | None:
        """The exit code of the run the record stands for, reported as it was; None
        when the record does not hold (the command runs in full)."""
        record = self.record
        root = self.options.root
        if record is None:
            return None
        found = fingerprint(root, record.watched, recorded_sums=record.sums)
        if found != record.fingerprint:
            return None
        if not _tree_is(root, record.output, record.tree):
            return None
        if self.parts[0] == "build" and _left_behind(root, record.output):
            return None  # a killed build's staging folders: a build removes them
        options = self.options
        reporter = REPORTERS[pick_format(options.report_format)]
        stream = options.out if reporter.to_stdout else options.err
        problems = sorted(record.problems, key=lambda p: p.sort_key)
        reporter(stream=stream).report(problems, checked=list(record.checked))
        options.err.write(record.message)
        return 0

    def remember(
        self,
        outcome: Outcome,
        expected: dict[str, str | Digest],
        checked: list[str],
        message: str,
    ) -> None:
        """Record a run that found the tree up to date (and left it so), which ended
        with `message`."""
        project = outcome.project
        if self.folder is None or self.key is None or project is None:
            return
        watched = watched_of(project, self.options.crds)
        sums: list[bytes] = []
        before = fingerprint(
            self.options.root, watched, since=self.since, sums_into=sums
        )
        reading = read_input(
            self.options.root / PROJECT_FILE, PROJECT_FILE, root=self.options.root
        )
        if before is None or reading.raw is None:
            return
        if self.key != run_key(self.options.root, reading.raw, self.parts):
            return  # kgen.yaml changed meanwhile
        record = RunRecord(
            watched,
            before,
            tree_id(expected),
            project.spec.output,
            tuple(outcome.problems or ()),
            tuple(checked),
            message,
            tuple(sums),
        )
        save_run(self.folder, self.parts[0], self.key, record)


def _replayable(options: Options) -> bool:
    """A run over everything, with the cache on and no base to render."""
    return not (
        options.envs
        or options.base is not None
        or options.base_branch is not None
        or not options.cache
    )


def watched_of(project: Project, extra_crds: tuple[str, ...]) -> Watched:
    """What a check of `project` reads, and the paths whose identity kgen.output.root
    compares with the output folder."""
    spec = project.spec
    crds = (*spec.crds, *extra_crds)
    overlays = tuple(o.doc.file for o in project.overlays.values())
    parts = spec.output.split("/")
    places = [PROJECT_FILE, spec.jobs, spec.overlays, ".git", "schemas", "resources"]
    places.append("argocd" if spec.argocd is None else spec.argocd.output)
    if spec.flux is not None:
        places.append(spec.flux.output)
    places += [*crds, *("/".join(parts[:n]) for n in range(1, len(parts) + 1))]
    return Watched(
        (PROJECT_FILE, *overlays, *crds),
        ((spec.jobs, 1), (spec.overlays, 1), ("resources", 2)),
        tuple(places),
    )


def _tree_is(root: Path, output: str, tree: str) -> bool:
    """Whether the output tree is, file by file, the one kgen last found to be `tree`."""
    record = load_record(record_file(root, output), held=False)
    if not record.tree or record.tree != tree:
        return False
    stats: dict[str, Stat] = {}
    folders: set[str] = set()
    try:
        fd = open_below(root, output)
        try:
            whole = _walk(fd, output, stats, folders, 1)
        finally:
            os.close(fd)
    except (OSError, Refused, KgenError):
        return False
    return whole and folders == record.folders and stats == record.stats


def _left_behind(root: Path, output: str) -> bool:
    """Whether anything is beside the output folder under the names kgen stages under
    (kgen.output.atomic), which a build's recovery would look at."""
    parent, _, name = output.rpartition("/")
    prefix, lock = f".{name}.kgen-", f".{name}.kgen-lock"
    try:
        names = os.listdir(os.path.join(root, parent) if parent else root)
    except OSError:
        return True
    return any(n.startswith(prefix) and n != lock for n in names)


def _walk(
    fd: int, prefix: str, stats: dict[str, Stat], folders: set[str], depth: int
) -> bool:
    """Every file's lstat and every folder below `fd`; False at anything else."""
    if depth > MAX_DEPTH:
        return False
    below = []
    with os.scandir(fd) as entries:
        for entry in entries:
            path = f"{prefix}/{entry.name}"
            if entry.is_dir(follow_symlinks=False):
                below.append(entry.name)
                folders.add(path)
            elif entry.is_file(follow_symlinks=False):
                stats[path] = stat_of(entry.stat(follow_symlinks=False))
            else:
                return False
    for name in below:
        sub = open_folder(fd, name)
        try:
            if not _walk(sub, f"{prefix}/{name}", stats, folders, depth + 1):
                return False
        finally:
            os.close(sub)
    return True
