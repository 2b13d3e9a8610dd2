"""One file of the user's cache folder, read and written the one way every cache of
kgen's does: read only if it is a regular file (never through a link, never a FIFO's
wait) no larger than the reader takes; written aside and renamed into place, so a
reader sees the whole file or none. Either failing is no error: the next run works it
out again. Imports nothing of kgen, so that kgen.pipeline.code can use it."""

from __future__ import annotations

import contextlib
import os
import pickle
import stat
from collections.abc import Collection
from pathlib import Path
from typing import Any, BinaryIO

# A streamed table (the render cache's shards, the tree record, a run record) larger
# than this is not kgen's: far above one of 10,000 jobs (tens of MB).
MAX_TABLE_BYTES = 1 << 30


def read_cache_file(path: Path, max_bytes: int) -> bytes | None:
    """The bytes of `path`, or None if it is missing, not a regular file or larger
    than `max_bytes`."""
    handle = open_cache_file(path, max_bytes)
    if handle is None:
        return None
    with handle:
        try:
            return handle.read(max_bytes + 1)
        except OSError:
            return None


def open_cache_file(path: Path, max_bytes: int) -> BinaryIO | None:
    """`path` open to read (the caller closes it), or None if it is missing, not a
    regular file or larger than `max_bytes`: for a file read as a stream."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        status = os.fstat(fd)
        if stat.S_ISREG(status.st_mode) and status.st_size <= max_bytes:
            return os.fdopen(fd, "rb")
    except OSError:
        pass
    os.close(fd)
    return None


class PlainUnpickler(pickle.Unpickler):
    """An unpickler for a cache file that makes no class but those `allowed` names as
    (module, name): whoever planted the file can have it build nothing else."""

    def __init__(
        self,
        handle: BinaryIO,
        allowed: Collection[tuple[str, str]],
        what: str = "record data",
    ) -> None:
        super().__init__(handle)
        self.allowed, self.what = allowed, what

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in self.allowed:
            raise pickle.UnpicklingError(f"{module}.{name} is not {self.what}")
        return super().find_class(module, name)


def write_cache_file(path: Path, data: bytes) -> None:
    """`data` into `path`, written aside and renamed into place; nothing if the folder
    cannot be written."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        os.makedirs(path.parent, exist_ok=True)
        with open(partial, "xb") as handle:
            handle.write(data)
        os.replace(partial, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        if not isinstance(exc, OSError):  # Ctrl-C, SIGTERM (kgen.stopping)
            raise
