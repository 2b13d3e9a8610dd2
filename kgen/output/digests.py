"""A file kgen renders, known by its digest instead of its text.

`build --check` with every render in the cache compares the tree on disk with what
kgen would write; holding the text of every file for that cost as much memory as the
tree is large (430 MB at 5,000 jobs). The cache keeps each file's header apart and a
digest of the rest, so the comparison needs a few dozen bytes a file, and a build needs
the texts only of the files it writes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import NamedTuple


class Digest(NamedTuple):
    """A file that is `header` followed by `size` bytes whose SHA-256 is `sha256`."""

    header: str
    sha256: str
    size: int

    @property
    def limit(self) -> int:
        """The file's exact size in bytes: a larger file differs, and is not read."""
        return len(self.header.encode()) + self.size

    def holds(self, data: bytes) -> bool:
        header = self.header.encode()
        return (
            len(data) == len(header) + self.size
            and data.startswith(header)
            and hashlib.sha256(data[len(header) :]).hexdigest() == self.sha256
        )


def body_digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


# What kgen would write at each path: the text, or (build --check) its digest.
Expected = dict[str, "str | Digest"]
# Gives the texts of the files at the paths asked for, which a tree had as digests.
TextsOf = Callable[[list[str]], dict[str, str]]


def texts_to_write(
    files: Mapping[str, str | Digest], changed: set[str], texts: TextsOf | None
) -> dict[str, str]:
    """The texts of the `changed` files, asking `texts` for those given as digests."""
    written = {p: t for p in sorted(changed) if isinstance(t := files[p], str)}
    asked = sorted(changed - written.keys())
    if asked:
        found = texts(asked) if texts is not None else {}
        if set(found) != set(asked):  # pragma: no cover - the caller's promise
            raise RuntimeError("no text for a file to write")
        written.update(found)
    return written
