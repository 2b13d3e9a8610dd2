"""The staging folders this process made and has not removed (kgen.output.atomic), for
a build that SIGTERM or SIGHUP stops (kgen.stopping) to sweep before it dies.

Its `with` and `finally` blocks remove what it staged; a signal can still land between
the creation of a folder and the block that would remove it, or between a swap and the
removal of the folder left holding the old tree. The sweep does for each folder left
what the next build's recovery would (kgen.output.atomic.recover_one): the old tree
put back if only it had been moved aside, the folder removed.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import NamedTuple

from kgen.stopping import at_stop


class _Key(NamedTuple):
    device: int
    inode: int
    name: str


# Each folder's parent (a descriptor of its own, kept open) and the output root's name.
_made: dict[_Key, tuple[int, str]] = {}
# How a folder left is recovered: kgen.output.atomic's recovery, which it hands over
# when it loads (it notes each folder here, so this module cannot import it).
_recover: list[Callable[[int, str, str], None]] = []


def recover_with(recover: Callable[[int, str, str], None]) -> None:
    """Recover each folder left with `recover(parent, output, name)`."""
    _recover[:] = [recover]


def _key(parent: int, name: str) -> _Key:
    found = os.fstat(parent)
    return _Key(found.st_dev, found.st_ino, name)


def made(parent: int, output: str, name: str) -> None:
    """Note the staging folder `name` in `parent`, for the output root `output`
    (before it is made: a signal may land as soon as it is)."""
    key = _key(parent, name)
    if key not in _made:
        _made[key] = (os.dup(parent), output)


def removed(parent: int, name: str) -> None:
    """The staging folder `name` in `parent` is gone (or never was kgen's)."""
    entry = _made.pop(_key(parent, name), None)
    if entry is not None:
        os.close(entry[0])


def sweep() -> None:
    """Recover each staging folder still noted, as the next build would."""
    while _made:
        key, (parent, output) = _made.popitem()
        try:
            with contextlib.suppress(OSError):
                for recover in _recover:
                    recover(parent, output, key.name)
        finally:
            os.close(parent)


at_stop(sweep)
