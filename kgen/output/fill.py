"""Fill a staging folder with the new output tree (kgen.output.writer): new texts
written, every other file a hard link to the old tree's, a thread per core."""

from __future__ import annotations

import os

from kgen.output.compare import OutputTree
from kgen.output.safe_paths import read_file, write_new
from kgen.output.threads import chunks as _chunks
from kgen.output.threads import threaded as _threaded


def fill(
    tree: OutputTree,
    stage: int,
    files: dict[str, str],
    *,
    links: list[str],
    folders: list[str],
) -> None:
    cut = len(tree.output) + 1
    linked = sorted(p[cut:] for p in links)
    # `files` are the changed ones: none of them is linked.
    writes = [(path[cut:], text) for path, text in files.items()]
    source = tree.fd

    def link(part: list[str]) -> None:
        for path in part:
            try:
                os.link(
                    path,
                    path,
                    src_dir_fd=source,
                    dst_dir_fd=stage,
                    follow_symlinks=False,
                )
            except OSError:
                _copy(source, stage, path)

    def write(part: list[tuple[str, str]]) -> None:
        # Plain system calls, as for reading: a file object per file was a third of
        # the time of writing 12,000 files.
        for path, text in part:
            write_new(path, text.encode(), folder=stage)

    empty = [f[cut:] for f in folders]
    for folder in _folders(
        [*linked, *(p for p, _ in writes), *(f + "/" for f in empty)]
    ):
        try:
            os.mkdir(folder, 0o777, dir_fd=stage)
        except FileExistsError:  # made for texts staged before (kgen.output.spool)
            continue
    _threaded(link, _chunks(linked))
    _threaded(write, _chunks(writes))


def _copy(source: int | None, stage: int, path: str) -> None:
    """Copy a regular file where a hard link failed (another owner, too many links)."""
    data = None if source is None else read_file(source, path, path)
    if not isinstance(data, bytes):
        raise FileNotFoundError(2, "vanished while staging", path)
    write_new(path, data, folder=stage)


def _folders(paths: list[str]) -> list[str]:
    """Every folder the paths need, parents first."""
    needed: set[str] = set()
    for path in paths:
        folder = path.rpartition("/")[0]
        while folder and folder not in needed:
            needed.add(folder)
            folder = folder.rpartition("/")[0]
    return sorted(needed)
