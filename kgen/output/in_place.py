"""The writer's way for a build that changes few files: each written in place through a
journal (kgen.output.journal), not the whole tree restaged and swapped."""

from __future__ import annotations

from collections.abc import Mapping

from kgen.errors import Problem
from kgen.output.atomic import Place, open_staging
from kgen.output.compare import OutputTree, Scan
from kgen.output.digests import Digest, TextsOf, texts_to_write
from kgen.output.journal import Stuck, Undone, few, write_in_place
from kgen.output.spool import Spool


def write_few(
    place: Place,
    tree: OutputTree,
    scan: Scan,
    files: Mapping[str, str | Digest],
    changed: set[str],
    texts: TextsOf | None,
    spool: Spool | None,
) -> list[Problem] | None:
    """Write the `changed` files of `files` in place, if they are few, all in folders
    the tree has, and no file goes; None if the whole tree is to be restaged."""
    output = tree.output
    if tree.fd is None or not few(len(changed), len(files)):
        return None
    cut = len(output) + 1
    paths = sorted(path[cut:] for path in changed)
    for path in paths:
        folder, _, _name = path.rpartition("/")
        if "/" in folder or (folder and f"{output}/{folder}" not in scan.folders):
            return None
    spooled = spool.spooled if spool is not None else set()
    wanted = texts_to_write(files, changed - spooled, texts)
    mine = spool is None or spool.staged is None
    try:
        staged = open_staging(place) if mine or spool is None else spool.staged
    except OSError as exc:
        return [_unchanged(output, exc.strerror or str(exc))]
    assert staged is not None
    try:
        write_in_place(
            tree.fd, staged, {path[cut:]: t for path, t in wanted.items()}, paths
        )
        staged.swapped = False  # written: the staging folder goes
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
    tree.watch.rewrote(files, changed)
    return []


def _unchanged(output: str, reason: str) -> Problem:
    message = f"cannot write {output}/: {reason}; the previous tree is unchanged"
    return Problem(message, "io", file=output)
