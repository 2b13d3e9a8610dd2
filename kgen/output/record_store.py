"""Where the tree record (kgen.output.stat_record) is kept, and how it is read and
written: in the user's cache folder, one per output folder by its real path and device,
as two pickles of plain data (the stats and the tree, then what each file held), from
this very kgen only (its code identity first). A record missing, unreadable, corrupt,
from another kgen or of another folder, or a file that is not a regular one (a link,
a FIFO) reads as empty; one that cannot be written only
costs time."""

from __future__ import annotations

import contextlib
import os
import pickle
import sys
from dataclasses import dataclass, field
from pathlib import Path

from kgen.output.scan import Stat
from kgen.pipeline.cache_file import MAX_TABLE_BYTES, PlainUnpickler, open_cache_file

_ALLOWED = {("builtins", n) for n in ("dict", "tuple", "frozenset", "set", "list")}


@dataclass
class TreeRecord:
    """Each file's lstat and what it held; `tree`, the tree_id of the whole tree when
    the output folder held exactly that (its `folders` too) and every file is here."""

    stats: dict[str, Stat] = field(default_factory=dict)
    held: dict[str, bytes] = field(default_factory=dict)
    tree: str = ""
    folders: frozenset[str] = frozenset()


def record_file(root: Path, output: str) -> Path | None:
    """Where the record of `output` is kept; None with the cache off or no folder."""
    # Imported here: kgen.pipeline.cache_place alone says where the cache is.
    from kgen.pipeline.cache_place import cache_folder
    from kgen.pipeline.code import digest

    folder = cache_folder(root)
    if folder is None:
        return None
    path = root / output
    try:
        device = os.stat(path).st_dev
    except OSError:
        return None
    return folder / f"tree-{digest(os.path.realpath(path), str(device))[:24]}.pickle"


def _salt() -> str:
    from kgen.pipeline.code import code_identity  # imported here, as in record_file

    return code_identity()


def load_record(where: Path | None, *, held: bool = True) -> TreeRecord:
    """The record at `where`; without `held`, only the stats and the tree (what the
    files held is a second pickle, which a replayed check never reads: a list in the
    stats' order, so both tables share one string a path)."""
    if where is None:
        return TreeRecord()
    handle = open_cache_file(where, MAX_TABLE_BYTES)
    if handle is None:
        return TreeRecord()
    try:
        with handle:
            loader = PlainUnpickler(handle, _ALLOWED)
            salt, stats, tree, folders = loader.load()
            helds = loader.load() if held else []
    except Exception:
        return TreeRecord()
    if salt != _salt() or not (
        isinstance(stats, dict)
        and isinstance(helds, list)
        and len(helds) == (len(stats) if held else 0)
        and isinstance(tree, str)
        and isinstance(folders, frozenset)
    ):
        return TreeRecord()
    stats = {sys.intern(p): s for p, s in stats.items()}  # the tree's own strings
    return TreeRecord(stats, dict(zip(stats, helds, strict=False)), tree, folders)


def save_record(where: Path | None, record: TreeRecord) -> None:
    if where is None:
        return
    data = (_salt(), record.stats, record.tree, record.folders)
    partial = where.with_name(f".{where.name}.{os.getpid()}.tmp")
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        with open(partial, "xb") as handle:  # never through what is there
            pickle.dump(data, handle, protocol=5)
            helds = [record.held.get(path, b"") for path in record.stats]
            pickle.dump(helds, handle, protocol=5)
        os.replace(partial, where)
    except OSError:  # a record that cannot be written only costs time
        with contextlib.suppress(OSError):
            os.unlink(partial)
