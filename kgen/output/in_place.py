"""The writer's way for a build that changes few files: each written in place through a
journal (kgen.output.journal), not the whole tree restaged and swapped."""

from __future__ import annotations

import shutil
from collections.abc import Mapping

from kgen.errors import Problem
from kgen.output.atomic import Place, open_staging
from kgen.output.compare import OutputTree, Scan
from kgen.output.digests import Digest, TextsOf, texts_to_write
from kgen.output.journal import BACKUP, NoLinks, Stuck, Undone, few, write_in_place
from kgen.output.spool import Spool


def write_few(
    place: Place,
    tree: OutputTree,
    scan: Scan,
    files: Mapping[str, str | Digest],
    changed: set[str],
    removed: list[str],
    texts: TextsOf | None,
    spool: Spool | None,
) -> list[Problem] | None:
    """Write the `changed` files of `files` and remove `removed` in place, if they are
    few, in folders the tree has that keep a file; None if the whole tree is to be
    restaged (which also removes a folder kgen emptied)."""
    output = tree.output
    if tree.fd is None or not few(len(changed) + len(removed), len(files)):
        return None
    cut = len(output) + 1
    paths = sorted(path[cut:] for path in changed)
    for path in [*paths, *(path[cut:] for path in removed)]:
        folder, _, _name = path.rpartition("/")
        if "/" in folder or (folder and f"{output}/{folder}" not in scan.folders):
            return None
    if removed and not _folders_kept(scan, files, removed):
        return None
    spooled = spool.spooled if spool is not None else set()
    wanted = texts_to_write(files, changed - spooled, texts)
    mine = spool is None or spool.staged is None
    try:
        staged = open_staging(place) if mine or spool is None else spool.staged
    except OSError as exc:
        return [_unchanged(output, exc.strerror or str(exc))]
    assert staged is not None
    gone = sorted(path[cut:] for path in removed)
    try:
        write_in_place(
            tree.fd, staged, {p[cut:]: t for p, t in wanted.items()}, paths, gone
        )
        staged.swapped = False  # written: the staging folder goes
    except NoLinks:
        shutil.rmtree(BACKUP, ignore_errors=True, dir_fd=staged.folder)
        return None
    except Undone as exc:
        staged.swapped = False
        return [_unchanged(output, exc.reason)]
    except Stuck as exc:
        message = (
            f"cannot write {output}/: {exc.reason}; some of its files are new, and"
            " the rest could not be written"
        )
        hint = "run kgen build again: it finishes writing them"
        return [Problem(message, "io", file=output, hint=hint)]
    except OSError as exc:  # before the journal: nothing changed
        staged.swapped = False
        return [_unchanged(output, exc.strerror or str(exc))]
    finally:
        if mine:
            staged.close(place, remove=True)
    tree.watch.rewrote(files, changed | set(removed))
    return []


def _folders_kept(
    scan: Scan, files: Mapping[str, str | Digest], removed: list[str]
) -> bool:
    """Whether each folder a file is removed from keeps a file (kgen's or not)."""
    emptied = {path.rpartition("/")[0] for path in removed}
    gone = set(removed)
    for path in [*files, *scan.files]:
        if path not in gone:
            emptied.discard(path.rpartition("/")[0])
            if not emptied:
                return True
    return False


def _unchanged(output: str, reason: str) -> Problem:
    message = f"cannot write {output}/: {reason}; the previous tree is unchanged"
    return Problem(message, "io", file=output)
