"""A loaded YAML file: its plain data and the 1-based position of every key and
value, by data path."""

from __future__ import annotations

from typing import Any, NamedTuple

from kgen.errors import DataPath, Problem, Severity


class Origin(NamedTuple):
    """Where a value came from: file, value position and key position (1-based)."""

    file: str
    line: int
    column: int
    key_line: int
    key_column: int


Positions = dict[DataPath, Origin]


class Document:
    """One loaded YAML file: its data (None when empty) and the origin of every node.
    A plain class: as a dataclass its methods were compiled from source at import
    (0.3 ms of every run); equal when its file, data and positions are."""

    def __init__(
        self,
        file: str,
        data: Any,
        positions: Positions | None = None,
        written: dict[Origin, str] | None = None,
    ) -> None:
        self.file = file
        self.data = data
        self.positions: Positions = {} if positions is None else positions
        # Numbers written otherwise than Python prints them (`0755` is 755 in YAML
        # 1.2, `1e400` is inf), by their origin: messages quote what the user typed
        # (kgen.pipeline.locate).
        self.written: dict[Origin, str] = {} if written is None else written

    def _fields(self) -> tuple[Any, ...]:
        return (self.file, self.data, self.positions, self.written)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Document) or other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass was

    def __repr__(self) -> str:
        file, data, positions, written = self._fields()
        return (
            f"Document(file={file!r}, data={data!r}, positions={positions!r},"
            f" written={written!r})"
        )

    def origin(self, path: DataPath) -> Origin:
        """The origin of `path`, or of its deepest existing ancestor."""
        return nearest_origin(self.positions, path, self.file)

    def problem_at(
        self,
        path: DataPath,
        message: str,
        code: str,
        *,
        hint: str | None = None,
        severity: Severity = "error",
    ) -> Problem:
        """A problem at the value of `path` in this file (or its deepest ancestor's)."""
        origin = self.origin(path)
        return Problem(
            message,
            code,
            file=self.file,
            line=origin.line,
            column=origin.column,
            hint=hint,
            severity=severity,
        )


def nearest_origin(positions: Positions, path: DataPath, file: str) -> Origin:
    for cut in range(len(path), -1, -1):
        found = positions.get(path[:cut])
        if found is not None:
            return found
    return Origin(file, 1, 1, 1, 1)
