"""The write floor: a plain Python process writing the files kgen wrote (same tree, same
names, same bytes) from memory, one after the other. Usage: write_floor.py BLOB DEST.

BLOB is a marshal dump of [(relative path, bytes), ...] that floors.snapshot made from
kgen's own output; one read of it is the only input. Nothing is imported beyond what a
bare interpreter loads, so the figure is interpreter start plus the kernel's file work.
"""

from __future__ import annotations

import marshal
import os
import sys


def main(blob: str, dest: str) -> None:
    with open(blob, "rb") as handle:
        files = marshal.load(handle)
    made: set[str] = set()
    for relative, data in files:
        path = os.path.join(dest, relative)
        folder = os.path.dirname(path)
        if folder not in made:
            os.makedirs(folder, exist_ok=True)
            made.add(folder)
        with open(path, "wb") as out:
            out.write(data)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
