"""The next build's part of writing in place (kgen.output.journal): finish what a
killed build's journal says, if the journal is kgen's (kgen.output.atomic.recover calls
this under the build lock, for each staging folder nobody uses)."""

from __future__ import annotations

import contextlib
import json
import os
from typing import TYPE_CHECKING

from kgen.output.journal import DROP, JOURNAL, PUT, folders
from kgen.output.safe_paths import Refused, open_file, open_folder, read_all
from kgen.output.scan import Stat, stat_of

if TYPE_CHECKING:
    from kgen.output.atomic import Place

_MAX_JOURNAL = 1 << 20
_TREE = "tree"  # kgen.output.atomic.TREE (not imported: atomic imports this module)


def finish(place: Place, staging: int) -> None:
    """Finish what the journal in the (marked, unused) staging folder `staging` says,
    if it is kgen's: rename into the output root each file still staged whose lstat is
    the journal's, and remove each file to remove whose lstat is the journal's."""
    entries = _entries(staging)
    if not entries:
        return
    try:
        output = open_folder(place.parent, place.name)
    except (OSError, Refused):
        return
    try:
        tree = open_folder(staging, _TREE)
    except (OSError, Refused):
        os.close(output)
        return
    try:
        for kind, path, recorded in entries:
            with contextlib.suppress(OSError, Refused):
                _finish_one(output, tree, kind, path, recorded)
    finally:
        os.close(tree)
        os.close(output)


def _finish_one(output: int, tree: int, kind: str, path: str, recorded: Stat) -> None:
    with folders(output, tree, path) as (into, source):
        name = path.rpartition("/")[2]
        at = source if kind == PUT else into
        if stat_of(os.stat(name, dir_fd=at, follow_symlinks=False)) != recorded:
            return  # done already, or not kgen's
        if kind == PUT:
            os.rename(name, name, src_dir_fd=source, dst_dir_fd=into)
        else:
            os.unlink(name, dir_fd=into)


def _entries(staging: int) -> list[tuple[str, str, Stat]]:
    """The journal's entries that are well formed; none if it is not a small regular
    file of them."""
    try:
        fd = open_file(staging, JOURNAL, JOURNAL)
    except (OSError, Refused):
        return []
    if fd is None:
        return []
    try:
        data = read_all(fd, limit=_MAX_JOURNAL)
    except OSError:
        return []
    if not isinstance(data, bytes):
        return []
    try:
        found = json.loads(data)
    except ValueError:
        return []
    if not isinstance(found, list):
        return []
    entries = []
    for entry in found:
        if (
            isinstance(entry, list)
            and len(entry) == 3
            and entry[0] in (PUT, DROP)
            and isinstance(entry[1], str)
            and isinstance(entry[2], str)
            and _plain(entry[1])
        ):
            try:
                entries.append((entry[0], entry[1], bytes.fromhex(entry[2])))
            except ValueError:
                continue
    return entries


def _plain(path: str) -> bool:
    """A path of one or two plain names (`<env>/<file>`, or a file of the root)."""
    parts = path.split("/")
    return len(parts) <= 2 and all(
        part not in ("", ".", "..") and "\0" not in part for part in parts
    )
