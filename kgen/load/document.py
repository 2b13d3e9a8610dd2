"""A loaded YAML file: its plain data and the 1-based position of every key and
value, by data path."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from kgen.errors import DataPath


class Origin(NamedTuple):
    """Where a value came from: file, value position and key position (1-based)."""

    file: str
    line: int
    column: int
    key_line: int
    key_column: int


Positions = dict[DataPath, Origin]


@dataclass
class Document:
    """One loaded YAML file: its data (None when empty) and the origin of every node."""

    file: str
    data: Any
    positions: Positions = field(default_factory=dict)
    # Integers written otherwise than Python prints them (`0755` is 755 in YAML 1.2), by
    # their origin: messages quote what the user typed (kgen.pipeline.locate).
    written: dict[Origin, str] = field(default_factory=dict)

    def origin(self, path: DataPath) -> Origin:
        """The origin of `path`, or of its deepest existing ancestor."""
        return nearest_origin(self.positions, path, self.file)


def nearest_origin(positions: Positions, path: DataPath, file: str) -> Origin:
    for cut in range(len(path), -1, -1):
        found = positions.get(path[:cut])
        if found is not None:
            return found
    return Origin(file, 1, 1, 1, 1)
