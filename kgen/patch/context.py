"""One patch applied to one object: what the operations and merges share."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from kgen.errors import DataPath, Problem, shortened
from kgen.load.document import Origin
from kgen.spec.patches import ObjectPatch

if TYPE_CHECKING:
    # Only a job with patches records what they wrote (kgen.patch.sources imports
    # this module for every job).
    from kgen.patch.marks import Budget, PatchMarks

# The object's identity: kgen names its files, its index and the Argo CD and Flux
# objects by it, and the API server keys the object by it.
IDENTITY: tuple[DataPath, ...] = (
    ("apiVersion",),
    ("kind",),
    ("metadata", "name"),
    ("metadata", "namespace"),
)


class PatchSource(NamedTuple):
    """One entry of a `patches:` list: `base` is its data path in its file, `where`
    gives the origin of a data path of that file. A NamedTuple: a frozen dataclass's
    methods were compiled from source at import."""

    patch: ObjectPatch
    base: DataPath
    where: Callable[[DataPath], Origin]


class Patching:
    """`body` (the object's own copy) and where its patch sits: `base` is the patch's
    data path in its file, `where` gives the origin of a data path in that file. A
    plain class: as a dataclass its methods were compiled from source at import."""

    def __init__(
        self,
        body: dict[str, Any],
        kind: str,
        name: str,
        base: DataPath,
        where: Callable[[DataPath], Origin],
        marks: PatchMarks,
        budget: Budget,
    ) -> None:
        self.body, self.kind, self.name, self.base = body, kind, name, base
        self.where, self.marks, self.budget = where, marks, budget

    @property
    def what(self) -> str:
        return f"the rendered {self.kind} '{self.name}'"

    def problem(
        self, at: DataPath, message: str, code: str, hint: str, *, at_key: bool = False
    ) -> Problem:
        origin = self.where((*self.base, *at))
        line, column = (
            (origin.key_line, origin.key_column)
            if at_key
            else (origin.line, origin.column)
        )
        return Problem(
            message, code, file=origin.file, line=line, column=column, hint=hint
        )

    def too_large(self, at: DataPath) -> Problem:
        from kgen.patch.marks import MAX_ADDED

        return self.problem(
            at,
            f"the patches would add more than {MAX_ADDED:,} values to the rendered objects",
            "patch-too-large",
            "a patch that large belongs in the spec; copy and move less",
        )


def touches_identity(out: DataPath) -> DataPath | None:
    """The identity field a write at `out` changes (at it or above it), if any."""
    for field in IDENTITY:
        if field[: len(out)] == out:
            return field
    return None


def pointer_text(pointer: str) -> str:
    return shortened(pointer, 200)
