"""Write the output tree, or say how it differs from what is on disk (drift).

kgen owns what it lists in `<output>/.kgen-index` (kgen.output.index): it rewrites and removes
only those files, and refuses to overwrite a file it did not write. A build stages the
whole new tree beside the old and swaps it in at once (kgen.output.atomic), or renames
the few files it changed into place through a journal (kgen.output.in_place); a build
that changes nothing touches nothing. Every message about the tree says what is true of it
afterwards: the previous tree unchanged, or the new one in place.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kgen.errors import KgenError, Problem
from kgen.output.atomic import Place, Staged, SwapError, recover, staging, swap_in
from kgen.output.compare import SAME, OutputTree, Scan, TreeDiff, compare, read_current
from kgen.output.diff_text import unified_diff
from kgen.output.digests import Digest, TextsOf, texts_to_write
from kgen.output.early_scan import relook
from kgen.output.fill import fill as _fill
from kgen.output.in_place import write_few
from kgen.output.index import index_path, scoped_index
from kgen.output.lock import build_lock
from kgen.output.safe_paths import Refused, open_below
from kgen.output.spool import Spool
from kgen.output.tree_problems import (
    foreign_file,
    refused_folder,
    tree_problems,
    unreadable,
)

# Hears what a build would write and remove before anything is (kgen.pipeline.fresh):
# it raises if that rests on a cache entry that does not hold.
Vouch = Callable[[TreeDiff, Mapping[str, "str | Digest"]], None]


@dataclass
class WriteSummary:
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    # Files kgen did not write, kept as they are and listed in no kustomization.
    unowned: list[str] = field(default_factory=list)


@dataclass
class Drift:
    """How the tree differs from what kgen renders; `problems` when it cannot say."""

    diff: TreeDiff
    problems: list[Problem]
    text: str = ""


def check_tree(
    root: Path,
    files: Mapping[str, str | Digest],
    *,
    output: str,
    scope: tuple[str, ...] = (),
    show: bool = False,
) -> Drift:
    """Compare the tree on disk with `files` (index included). With `scope` (the
    folders of the environments built), only they and their index entries count; with
    `show`, the unified diff too (which needs texts, not digests)."""
    try:
        with OutputTree.open(root, output) as tree:
            scan, index = tree.scan(), tree.index()
            problems = tree_problems(scan, index, files, output=output)
            if problems:
                return Drift(TreeDiff(), problems)
            if scope:
                files = scoped_index(files, index, output, scope)
            current = read_current(tree, files)
            diff = compare(scan, files, current, scope=scope)
            diff.unowned = [p for p in diff.stale if p not in index.marks]
            diff.stale = [p for p in diff.stale if p in index.marks]
            tree.watch.verified(files, whole=not scope and diff.clean, scan=scan)
            text = unified_diff(tree, files, diff, current) if show else ""
    except KgenError as exc:
        return Drift(TreeDiff(), exc.problems)
    except OSError as exc:
        return Drift(TreeDiff(), [unreadable(output, exc)])
    return Drift(diff, [], text)


def write_tree(
    root: Path,
    files: Mapping[str, str | Digest],
    *,
    output: str,
    scope: tuple[str, ...] = (),
    texts: TextsOf | None = None,
    spool: Spool | None = None,
    vouch: Vouch | None = None,
) -> tuple[WriteSummary, list[Problem]]:
    """Make the output root exactly `files` (index included) plus the files kgen does not
    own, in one atomic swap; a build that changes nothing touches nothing. With `scope`
    (the folders of the environments built), everything outside it stays as it is.
    A file given as a digest has its text asked of `texts` only if it is written, and
    not at all if `spool` staged it (its staging folder becomes the new tree's).
    `vouch` hears what would change, before anything does."""
    if spool is not None and spool.error is not None:
        reason = spool.error.strerror or str(spool.error)
        message = f"cannot write {output}/: {reason}; the previous tree is unchanged"
        return WriteSummary(), [Problem(message, "io", file=output)]
    if spool is not None and spool.place is not None:  # its texts are staged there
        return _locked(root, spool.place, files, scope, (texts, vouch), spool)
    folder, _, name = output.rpartition("/")
    try:
        parent = _open_parent(root, folder)
    except Refused as exc:
        return WriteSummary(), [refused_folder(exc, output)]
    except OSError as exc:
        problem = Problem(
            f"cannot create {folder}/ for the output folder: {exc.strerror}; nothing was written",
            "io",
            file=folder,
        )
        return WriteSummary(), [problem]
    try:
        place = Place(parent, name, folder)
        return _locked(root, place, files, scope, (texts, vouch), None)
    finally:
        os.close(parent)


def _locked(
    root: Path,
    place: Place,
    files: Mapping[str, str | Digest],
    scope: tuple[str, ...],
    asked: tuple[TextsOf | None, Vouch | None],
    spool: Spool | None,
) -> tuple[WriteSummary, list[Problem]]:
    output = f"{place.shown}/{place.name}" if place.shown else place.name
    try:
        with build_lock(place):
            recover(place)
            with OutputTree.below(place.parent, place.name, output, root=root) as tree:
                return _write(place, tree, files, scope, asked, spool)
    except KgenError as exc:
        return WriteSummary(), exc.problems
    except OSError as exc:  # reading the tree or beside it, before any change to it
        problem = Problem(
            f"cannot write {output}/: {exc.strerror or exc}", "io", file=output
        )
        return WriteSummary(), [problem]


def _open_parent(root: Path, folder: str) -> int:
    return open_below(root, folder, create=True)


def _write(
    place: Place,
    tree: OutputTree,
    files: Mapping[str, str | Digest],
    scope: tuple[str, ...],
    asked: tuple[TextsOf | None, Vouch | None],
    spool: Spool | None,
) -> tuple[WriteSummary, list[Problem]]:
    texts, vouch = asked
    output = tree.output
    scan, index = tree.scan(), tree.index()
    problems = tree_problems(scan, index, files, output=output)
    if problems:
        return WriteSummary(), problems
    if scope:
        files = scoped_index(files, index, output, scope)
    owned = index.marks.keys()
    current = read_current(tree, files)
    foreign = [
        p
        for p, text in files.items()
        if p not in owned
        and p != index_path(output)
        and current[p] is not None
        and current[p] is not SAME
        and (isinstance(text, Digest) or current[p] != text.encode())
    ]
    if foreign:
        return WriteSummary(), [foreign_file(path) for path in foreign]
    diff = compare(scan, files, current, scope=scope)
    if vouch is not None and (diff.modified or diff.missing or diff.stale):
        vouch(diff, files)
    stale_owned = [p for p in diff.stale if p in owned]
    summary = WriteSummary(sorted([*diff.modified, *diff.missing]), stale_owned)
    summary.unchanged = len(files) - len(summary.written)
    summary.unowned = sorted(p for p in diff.stale if p not in owned)
    if not (summary.written or summary.removed):
        tree.watch.verified(files, whole=not scope, scan=scan)
        return summary, []
    changed = {*diff.modified, *diff.missing}
    spooled = spool.spooled if spool is not None else set()
    # A few files written in place (kgen.output.in_place)?
    few = write_few(place, tree, scan, files, changed, stale_owned, texts, spool)
    if few is not None:
        return summary, few
    del current  # as read; a large tree's entries are not needed to fill the new one
    # kgen's files that did not change (unless staged already), files it does not
    # own, and (in a build of some environments) everything outside them, go into the
    # new tree as they are: one list, not sets of them (120,000 paths at 10,000 jobs).
    links = [p for p in files if p not in changed and p not in spooled]
    links += scan.files - files.keys() - set(stale_owned)
    relook(tree.watch, tree.fd, links)  # after an early scan
    problems = _stage_and_swap(
        place,
        tree,
        texts_to_write(files, changed - spooled, texts),
        links=links,
        folders=_kept_folders(scan),
        staged=spool.staged if spool is not None else None,
    )
    if not problems:
        tree.watch.written(place.parent, place.name, files, linked=set(links))
    return summary, problems


def _kept_folders(scan: Scan) -> list[str]:
    """The tree's folders that hold no file (relative to the output root): a swap
    keeps them, since kgen never made them; a folder kgen emptied goes."""
    full: set[str] = set()
    for path in scan.files:
        folder = path.rpartition("/")[0]
        while folder and folder not in full:
            full.add(folder)
            folder = folder.rpartition("/")[0]
    return sorted(scan.folders - full)


def _stage_and_swap(
    place: Place,
    tree: OutputTree,
    files: dict[str, str],
    *,
    links: list[str],
    folders: list[str],
    staged: Staged | None = None,
) -> list[Problem]:
    """Stage the new tree beside the old (in `staged`, if texts are already staged
    there) and swap it in. Files kgen does not own, and its own files that did not
    change, are hard links to the old tree's (copies where links fail): neither tree's
    files are ever changed in place."""
    output = tree.output
    try:
        if staged is None:
            with staging(place) as (name, stage):
                _fill(tree, stage, files, links=links, folders=folders)
        else:
            name = staged.name
            _fill(tree, staged.tree, files, links=links, folders=folders)
            staged.swapped = True
        leftover = swap_in(place, name)
    except SwapError as exc:
        return [
            Problem(
                f"cannot write {output}/: {exc.message}",
                "io",
                file=output,
                hint=exc.hint,
            )
        ]
    except OSError as exc:
        # A full disk or a read-only folder while staging: the old tree is in place.
        reason = exc.strerror or str(exc)
        message = f"cannot write {output}/: {reason}; the previous tree is unchanged"
        return [Problem(message, "io", file=output)]
    if leftover is None:
        return []
    aside = place.path(name)
    return [
        Problem(
            f"the new {output}/ is in place, but the previous tree could not be removed"
            f" from {aside}: {leftover}",
            "io",
            file=aside,
            hint=f"remove {aside} by hand; the next build also tries",
        )
    ]
