"""Replace the few files a build changed one by one, all or nothing through a journal.

Restaging a whole tree of 12,000 files to change five of them cost more than the rest
of a one-spec rebuild. When few files change or go, the writer (kgen.output.in_place)
stages only their new texts in a staging folder (kgen.output.atomic), then writes the
journal there: each staged file's path in the output root and its exact lstat (inode,
device, size, times to the nanosecond), and each file to remove with its own. The
journal appears by a rename, at once: before it, the output root is untouched; after
it, the build renames each staged file over the old one, removes the files that go,
then the journal and the staging folder (Ctrl-C, SIGTERM and SIGHUP wait for that:
kgen.output.held_signals). A build killed after the journal appeared is
finished by the next build's recovery (kgen.output.atomic.recover, under the build
lock), so the tree is the new one.

The staging folder sits beside the output root, where a pull request can put anything,
so a journal is only a claim: recovery moves or removes a file only if its lstat is, to
the nanosecond, the one the journal gives (a file a checkout made has another inode and
ctime, and nobody can plant those), only under a path of plain names, in a real folder
of the output root opened without following links, and reads the journal only if it is a
small regular file. Anything else in the journal is ignored and the folder removed, as
before. Before the journal appears the build keeps, in the staging folder, a hard link
to each file it replaces or removes, so a step that fails part way (a read-only
folder) is undone and the previous tree stays.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from kgen.output.held_signals import held
from kgen.output.safe_paths import Refused, open_folder, write_new
from kgen.output.scan import Stat, stat_of

if TYPE_CHECKING:
    from kgen.output.atomic import Staged

JOURNAL = "journal"
# What an entry of the journal does: a staged file renamed into place, a file removed.
PUT = "put"
DROP = "remove"
# Hard links to the files replaced, for undoing a rename that failed.
BACKUP = "replaced"
# The most files written in place, and the least share of the tree left as it is (a
# build changing more restages the whole tree: one swap, whatever the count).
MAX_FILES = 256
KEPT_PER_CHANGED = 8

# Called before each step of write_in_place: tests stop a build there, as a kill would.
step_hook: Callable[[str], None] | None = None


class Undone(Exception):
    """Writing in place failed and was undone: the previous tree is unchanged."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class NoLinks(Exception):
    """No hard link could be made (a file system without them): nothing changed, and
    the whole tree is to be restaged (which copies where links fail)."""


class Stuck(Exception):
    """Writing in place failed part way and could not be undone."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def few(changed: int, total: int) -> bool:
    """Whether `changed` files of a tree of `total` are few enough to write in place."""
    return 0 < changed <= MAX_FILES and changed * KEPT_PER_CHANGED <= total - changed


def _step(name: str) -> None:
    if step_hook is not None:
        step_hook(name)


def write_in_place(
    output: int,
    staged: Staged,
    texts: dict[str, str],
    paths: list[str],
    removed: list[str],
) -> None:
    """Make each of `paths` (relative to the open output root `output`; their folders
    exist) hold its new text: from `texts` or, for the rest, already staged in
    `staged`'s tree; and remove `removed`. Raises Undone (nothing changed) or Stuck."""
    tree = staged.tree
    _step("backup")
    replaced = _back_up(output, staged.folder, [*paths, *removed])
    _step("stage")
    for path in sorted(texts):
        folder = path.rpartition("/")[0]
        if folder:
            with contextlib.suppress(FileExistsError):
                os.mkdir(folder, 0o777, dir_fd=tree)
        write_new(path, texts[path].encode(), folder=tree)
    entries = [
        (PUT, path, stat_of(os.stat(path, dir_fd=tree, follow_symlinks=False)))
        for path in paths
    ]
    # A file removed is named by its own lstat (its link made, which changes ctime).
    for path in removed:
        with contextlib.suppress(FileNotFoundError):
            entries.append((DROP, path, _lstat_in(output, path)))
    _step("journal")
    data = json.dumps([[kind, path, s.hex()] for kind, path, s in entries]).encode()
    write_new(f"{JOURNAL}.new", data, folder=staged.folder)
    # From the journal's rename to its removal the tree is mixed: an interrupt waits.
    with held():
        os.rename(
            f"{JOURNAL}.new",
            JOURNAL,
            src_dir_fd=staged.folder,
            dst_dir_fd=staged.folder,
        )
        staged.swapped = True  # the folder holds a journal: only recovery removes it
        _commit(output, tree, staged.folder, entries, replaced)
        _step("finish")
        os.unlink(JOURNAL, dir_fd=staged.folder)
        # No journal: the folder goes, even if a signal held back stops the build.
        staged.swapped = False


def _commit(
    output: int,
    tree: int,
    staging: int,
    entries: list[tuple[str, str, Stat]],
    replaced: dict[str, str],
) -> None:
    """Rename each staged file into place and remove each file that goes; undone if
    one step fails."""
    done: list[tuple[str, str]] = []
    try:
        for kind, path, _status in entries:
            _step("rename" if kind == PUT else "remove")
            with folders(output, tree, path) as (into, source):
                name = path.rpartition("/")[2]
                if kind == PUT:
                    os.rename(name, name, src_dir_fd=source, dst_dir_fd=into)
                else:
                    os.unlink(name, dir_fd=into)
            done.append((kind, path))
    except (OSError, Refused) as exc:
        _undo(output, staging, done, replaced, exc)


def _lstat_in(output: int, path: str) -> Stat:
    folder, _, name = path.rpartition("/")
    fd = open_folder(output, folder)
    try:
        return stat_of(os.stat(name, dir_fd=fd, follow_symlinks=False))
    finally:
        os.close(fd)


def _back_up(output: int, staging: int, paths: list[str]) -> dict[str, str]:
    """Hard links, in the staging folder, to the files at `paths` (those there): the
    name of each one's link, by path."""
    os.mkdir(BACKUP, 0o777, dir_fd=staging)
    backup = open_folder(staging, BACKUP)
    replaced: dict[str, str] = {}
    try:
        for number, path in enumerate(paths):
            try:
                os.link(
                    path,
                    str(number),
                    src_dir_fd=output,
                    dst_dir_fd=backup,
                    follow_symlinks=False,
                )
            except FileNotFoundError:
                continue  # a new file
            except OSError as exc:  # no hard links here: the tree is restaged
                raise NoLinks(exc.strerror or str(exc)) from None
            replaced[path] = str(number)
    finally:
        os.close(backup)
    return replaced


def _undo(
    output: int,
    staging: int,
    done: list[tuple[str, str]],
    replaced: dict[str, str],
    exc: OSError | Refused,
) -> None:
    """Put back the files `done` replaced or removed (and remove those it added);
    raise Undone, or Stuck if that failed too."""
    reason = str(exc) if isinstance(exc, Refused) else exc.strerror or str(exc)
    try:
        backup = open_folder(staging, BACKUP)
        try:
            for kind, path in reversed(done):
                folder, _, name = path.rpartition("/")
                into = open_folder(output, folder)
                try:
                    if kind == DROP:
                        os.link(
                            replaced[path], name, src_dir_fd=backup, dst_dir_fd=into
                        )
                    elif path in replaced:
                        os.rename(
                            replaced[path], name, src_dir_fd=backup, dst_dir_fd=into
                        )
                    else:
                        os.unlink(name, dir_fd=into)
                finally:
                    os.close(into)
        finally:
            os.close(backup)
        os.unlink(JOURNAL, dir_fd=staging)
    except (OSError, Refused) as failed:
        raise Stuck(reason) from failed
    raise Undone(reason)


@contextlib.contextmanager
def folders(output: int, tree: int, path: str) -> Iterator[tuple[int, int]]:
    """The folder of `path` in the output root and in the staged tree, open without
    following links."""
    folder = path.rpartition("/")[0]
    into = open_folder(output, folder)
    try:
        source = open_folder(tree, folder)
        try:
            yield into, source
        finally:
            os.close(source)
    finally:
        os.close(into)
