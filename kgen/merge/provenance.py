"""Which file and line set each value of a merged spec, kept while overlays merge.

Moving a value's provenance moves the provenance of everything below it; finding that
subtree by scanning every path made merging an N-item list O(N²) (an overlay patching
10,000 env entries took 10 s). A tree of the paths makes a subtree cost its own size.
"""

from __future__ import annotations

from collections.abc import Iterable

from kgen.errors import DataPath
from kgen.load.document import Origin


class Provenance:
    """For each data path, the origin of its final value, and what it overrode. A
    plain class: as a dataclass its methods were compiled from source at import."""

    def __init__(
        self,
        origins: dict[DataPath, Origin],
        overridden: dict[DataPath, list[Origin]] | None = None,
    ) -> None:
        self.origins = origins
        self.overridden: dict[DataPath, list[Origin]] = (
            {} if overridden is None else overridden
        )


class PathTree:
    """The children of every path in a set of data paths."""

    __slots__ = ("children",)

    def __init__(self, paths: Iterable[DataPath]) -> None:
        self.children: dict[DataPath, dict[str | int, None]] = {}
        for path in paths:
            self.add(path)

    def add(self, path: DataPath) -> None:
        children = self.children
        while path:
            parent = path[:-1]
            siblings = children.get(parent)
            if siblings is not None:
                siblings[path[-1]] = None
                return
            children[parent] = {path[-1]: None}
            path = parent

    def subtree(self, root: DataPath) -> list[DataPath]:
        """`root` and every path below it that was added."""
        children = self.children
        if root not in children:  # a scalar: most paths
            return [root]
        found, stack = [], [root]
        while stack:
            path = stack.pop()
            found.append(path)
            below = children.get(path)
            if below:
                stack += [(*path, key) for key in below]
        return found

    def remove(self, root: DataPath, subtree: list[DataPath]) -> None:
        children = self.children
        for path in subtree:
            children.pop(path, None)
        if root:
            siblings = children.get(root[:-1])
            if siblings:
                siblings.pop(root[-1], None)


class Tracker:
    """Provenance being recorded. The tree of its paths, for moving whole subtrees, is
    built the first time one moves: replacing scalars never needs it."""

    def __init__(self, provenance: Provenance) -> None:
        self.origins = provenance.origins
        self.overridden = provenance.overridden
        self.tree: PathTree | None = None

    def set(self, path: DataPath, origin: Origin) -> None:
        self.origins[path] = origin
        if self.tree is not None:
            self.tree.add(path)

    def set_many(self, found: Iterable[tuple[DataPath, Origin]]) -> None:
        if self.tree is None:
            self.origins.update(found)
        else:
            for path, origin in found:
                self.set(path, origin)

    def take(self, root: DataPath, *, scalar: bool = False) -> dict[DataPath, Origin]:
        """Remove and return the origins of `root` and everything below it; `scalar`
        when the value at `root` holds nothing (a scalar, or no value yet)."""
        origins = self.origins
        if scalar:
            origin = origins.pop(root, None)
            return {} if origin is None else {root: origin}
        if self.tree is None:
            self.tree = PathTree(origins)
        subtree = self.tree.subtree(root)
        taken = {path: origins.pop(path) for path in subtree if path in origins}
        self.tree.remove(root, subtree)
        return taken
