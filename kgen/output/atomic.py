"""Replace a whole directory in one step (kgen.output.lock keeps two builds from interleaving).

The new tree is staged beside the old one and the two are exchanged with Linux
renameat2(RENAME_EXCHANGE): at every instant the output root is the complete old tree or
the complete new one. Where the call is missing (another OS or filesystem) two renames
are used, and the next build finishes an interrupted swap.

Everything happens in the output root's parent folder, opened once without following
links. A staging folder is created there under a name nothing uses, with a marker file
inside, and holds the new tree (and the old one, in between the two renames). Recovery
touches only folders under the exact names kgen gives them that carry the marker (or
are empty), so a link or a folder planted under one of kgen's names is never followed,
moved or emptied, and an input folder kgen.yaml names there is refused
(kgen.output.root). A build holds a lock on its staging folder while it uses it
(texts are staged as renders arrive, before the build lock: kgen.output.spool), and
recovery leaves a locked one alone; a killed build's lock goes with it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import shutil
import stat
from collections.abc import Iterator
from dataclasses import dataclass

from kgen.output import left_staged
from kgen.output.exchange import exchange as _exchange
from kgen.output.folder_entries import exists as _exists
from kgen.output.folder_entries import is_folder as _is_folder
from kgen.output.folder_entries import unused as _unused
from kgen.output.journal_replay import finish
from kgen.output.lean_remove import remove_folder
from kgen.output.safe_paths import Refused, open_folder, write_new

# A staging folder holds the marker and the tree; the old tree goes beside it when
# renameat2 is missing.
MARKER = "kgen-staging"
TREE = "tree"
OLD = "old"
# The names _new_staging gives: `new-<pid>`, then `new-<pid>-<8 hex digits>`. Recovery
# looks at nothing else, so a folder of the user's that only starts like one (say, an
# input folder `.manifests.kgen-jobs`) is never taken for kgen's.
_STAGING_NAME = r"new-[0-9]+(?:-[0-9a-f]{8})?"
_MARKER_TEXT = (
    b"kgen stages a new output tree here; the next build removes this folder\n"
)


@dataclass(frozen=True)
class Place:
    """Where the output root sits: its parent folder, open, and its name there."""

    parent: int
    name: str
    # The parent's path from the project root ('' for the root), for messages.
    shown: str

    def path(self, name: str) -> str:
        return f"{self.shown}/{name}" if self.shown else name

    @property
    def lock_name(self) -> str:
        return f".{self.name}.kgen-lock"

    @property
    def prefix(self) -> str:
        return f".{self.name}.kgen-"


class SwapError(Exception):
    """A swap failed; `message` says, truly, where the old and the new tree are."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


def _marked(place: Place, name: str) -> int | None:
    """The staging folder `name`, open, if it is a real folder with kgen's marker."""
    try:
        fd = open_folder(place.parent, name)
    except (OSError, Refused):
        return None
    try:
        marker = os.stat(MARKER, dir_fd=fd, follow_symlinks=False)
    except OSError:
        marker = None
    if marker is None or not stat.S_ISREG(marker.st_mode):
        os.close(fd)
        return None
    return fd


def recover(place: Place) -> None:
    """Finish or undo what a killed build left: put back an old tree that was moved
    aside before the new one arrived, and remove kgen's staging folders (and empty
    folders under its names). Anything else under kgen's names is left as it is."""
    pattern = re.compile(re.escape(place.prefix) + _STAGING_NAME)
    names = sorted(name for name in os.listdir(place.parent) if pattern.fullmatch(name))
    for name in names:
        recover_one(place, name)


def recover_one(place: Place, name: str, *, mine: bool = False) -> None:
    """What recover does for the staging folder `name`; `mine`: this process made
    it, and may hold its lock still (kgen.output.left_staged)."""
    with contextlib.suppress(OSError):
        # Killed between creating the folder and its marker: it is empty.
        os.rmdir(name, dir_fd=place.parent)
        left_staged.removed(place.parent, name)
        return
    fd = _marked(place, name)
    if fd is None:
        return
    if not mine and not _unused(fd):  # another build is staging there now
        os.close(fd)
        return
    try:
        if not _exists(place.parent, place.name) and _is_folder(fd, OLD):
            os.rename(OLD, place.name, src_dir_fd=fd, dst_dir_fd=place.parent)
        finish(place, fd)  # files written in place: the rest of them
    except OSError:
        return  # the old tree stays where it is, never removed
    finally:
        os.close(fd)
    _remove(place, name)


left_staged.recover_with(
    lambda parent, output, name: recover_one(Place(parent, output, ""), name, mine=True)
)


def _remove(place: Place, name: str) -> None:
    """Remove the staging folder `name`, all of it even if a signal stops it."""
    try:
        shutil.rmtree(name, ignore_errors=True, dir_fd=place.parent)
        if _exists(place.parent, name):  # near the open-file limit: with fewer
            remove_folder(place.parent, name)
    except BaseException:
        shutil.rmtree(name, ignore_errors=True, dir_fd=place.parent)
        raise
    finally:
        left_staged.removed(place.parent, name)


@dataclass
class Staged:
    """A staging folder in use: its name beside the output root, the folder open (and
    locked: recovery leaves it alone) and the new tree's folder inside, open."""

    name: str
    folder: int
    tree: int
    # Given to swap_in, which removes it or, holding the old tree, keeps it.
    swapped: bool = False

    def close(self, place: Place, *, remove: bool) -> None:
        """Close both folders (the lock goes), removing the staging folder first
        (unless it went to swap_in)."""
        # The tree's descriptor first: near the open-file limit, removing the folder
        # needs it (kgen.output.lean_remove).
        os.close(self.tree)
        try:
            if remove and not self.swapped:
                _remove(place, self.name)
        finally:
            os.close(self.folder)
        if remove and not self.swapped and _exists(place.parent, self.name):
            remove_folder(place.parent, self.name)


def open_staging(place: Place) -> Staged:
    """A new staging folder beside the output root, locked, with the marker and an
    (empty) tree folder inside."""
    name = _new_staging(place)
    try:
        folder = open_folder(place.parent, name)
        try:
            fcntl.flock(folder, fcntl.LOCK_EX | fcntl.LOCK_NB)
            write_new(MARKER, _MARKER_TEXT, folder=folder)
            os.mkdir(TREE, 0o777, dir_fd=folder)
            return Staged(name, folder, open_folder(folder, TREE))
        except BaseException:
            os.close(folder)
            raise
    except BaseException:
        _remove(place, name)
        raise


@contextlib.contextmanager
def staging(place: Place) -> Iterator[tuple[str, int]]:
    """A new staging folder beside the output root, with the marker: its name and an
    open descriptor of the (empty) tree folder inside. Removed on an error."""
    staged = open_staging(place)
    try:
        yield staged.name, staged.tree
    except BaseException:
        staged.close(place, remove=True)
        raise
    staged.close(place, remove=False)


def _new_staging(place: Place) -> str:
    """Create a staging folder under a name nothing uses (a leftover nobody may touch,
    or something planted, keeps its name)."""
    base = f"{place.prefix}new-{os.getpid()}"
    for attempt in range(100):
        # Then unguessable names: a pull request can plant names it can predict.
        name = base if attempt == 0 else f"{base}-{os.urandom(4).hex()}"
        left_staged.made(place.parent, place.name, name)
        try:
            os.mkdir(name, 0o777, dir_fd=place.parent)
            return name
        except FileExistsError:
            left_staged.removed(place.parent, name)  # not this process's
            continue
    raise FileExistsError(errno.EEXIST, "no free staging folder name", base)


def swap_in(place: Place, staged: str) -> str | None:
    """Make the staged tree the output root, atomically where the OS allows, and remove
    the staging folder with the old tree. Raises SwapError, saying where each tree is,
    if the swap fails; returns why the old tree could not be removed, if it could not
    (the new tree is in place then)."""
    stage = _marked(place, staged)
    if stage is None:
        raise SwapError(
            "the staging folder disappeared; the previous tree is unchanged"
        )
    try:
        _swap(place, stage, staged)
    except SwapError as failed:
        os.close(stage)  # first: removing the folder needs descriptors (Staged.close)
        stage = -1
        if failed.hint is None:  # nothing moved: the staged tree goes
            _remove(place, staged)
        raise
    finally:
        if stage >= 0:
            os.close(stage)
    try:
        shutil.rmtree(staged, dir_fd=place.parent)
    except OSError as exc:
        _remove(place, staged)
        if _exists(place.parent, staged):
            return _reason(exc)
    except BaseException:
        _remove(place, staged)  # stopped part way (Ctrl-C, a signal): the rest of it
        raise
    left_staged.removed(place.parent, staged)
    return None


def _swap(place: Place, stage: int, staged: str) -> None:
    parent = place.parent
    try:
        if not _exists(parent, place.name):
            os.rename(TREE, place.name, src_dir_fd=stage, dst_dir_fd=parent)
            return
        if _exchange(stage, TREE, parent, place.name):
            return
        os.rename(place.name, OLD, src_dir_fd=parent, dst_dir_fd=stage)
    except OSError as exc:
        raise SwapError(f"{_reason(exc)}; the previous tree is unchanged") from None
    try:
        os.rename(TREE, place.name, src_dir_fd=stage, dst_dir_fd=parent)
    except OSError as exc:
        try:
            os.rename(OLD, place.name, src_dir_fd=stage, dst_dir_fd=parent)
        except OSError:
            aside = place.path(f"{staged}/{OLD}")
            raise SwapError(
                f"{_reason(exc)}; the previous tree is at {aside} and could not be moved back",
                f"move {aside} back to {place.path(place.name)} by hand",
            ) from None
        raise SwapError(f"{_reason(exc)}; the previous tree is unchanged") from None


def _reason(exc: BaseException) -> str:
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc)
