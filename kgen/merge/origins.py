"""Where one value of a merged spec came from, found without recording every value.

Locating a problem needs the origin of a handful of paths, not of the whole spec: a
merge that records provenance costs three times a plain one (an overlay patching
10,000 env entries spent a tenth of a second on it, twice a run). `Origins` walks back
from the last layer to the job file along one path instead, mapping list indexes
through each named-list merge. It answers exactly what `merge_layers` with a
`Provenance` would record for that path (tests compare the two on random merges), so
the spec line a problem points at is the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from kgen.errors import DataPath
from kgen.load.document import Origin, Positions
from kgen.merge.layers import NAMED_LISTS, Layer, merge_layers
from kgen.merge.named import fingerprint, plan_named

_MISSING: Any = object()
_Plan = tuple[list[tuple[int | None, int | None]], bool]


class _Found(NamedTuple):
    """This layer decides the path's origin (None: the layer removed it)."""

    origin: Origin | None


class _Earlier(NamedTuple):
    """The value at the path comes from before this layer, where it sat at `path`."""

    path: DataPath


class Origins:
    """The origin of any path of `layers` merged over a job document."""

    def __init__(self, data: Any, positions: Positions, layers: Sequence[Layer]):
        self.positions = positions
        self.layers = list(layers)
        # The spec before each layer: the plain merge, layer by layer.
        self.before: list[Any] = [data]
        for layer in self.layers[:-1]:
            self.before.append(merge_layers(self.before[-1], [layer]))
        self._plans: dict[tuple[int, DataPath], _Plan] = {}

    def nearest(self, path: DataPath, file: str) -> Origin:
        """The origin of `path`, or of its deepest ancestor that has one."""
        for cut in range(len(path), -1, -1):
            found = self.of(path[:cut])
            if found is not None:
                return found
        return Origin(file, 1, 1, 1, 1)

    def of(self, path: DataPath) -> Origin | None:
        """What a recorded provenance would hold for `path` exactly."""
        for index in range(len(self.layers) - 1, -1, -1):
            step = self._through(index, path)
            if isinstance(step, _Found):
                return step.origin
            path = step.path
        return self.positions.get(path)

    def _through(self, index: int, path: DataPath) -> _Found | _Earlier:
        """Follow `path` through layer `index`, as kgen.merge.layers applies it."""
        layer = self.layers[index]
        positions = layer.positions
        base, patch = self.before[index], layer.data
        src: DataPath = layer.root
        dst: DataPath = ()
        out: DataPath = ()  # where the value sat before this layer
        rest, fresh = path, False  # fresh: below a value this layer added whole

        def earlier(where: DataPath) -> _Found | _Earlier:
            # Nothing below a value this layer added comes from before it.
            return _Found(None) if fresh else _Earlier(where)

        while True:
            if isinstance(patch, dict) and isinstance(base, dict):
                if not rest or rest[0] not in patch:
                    return earlier(out + rest)
                key, value = rest[0], patch[rest[0]]
                if value is None:
                    if key not in base:
                        return earlier(out + rest)  # deleting nothing changes nothing
                    # The deletion is where a problem about the missing key points.
                    found = positions.get((*src, key)) if len(rest) == 1 else None
                    return _Found(found)
                if key not in base:
                    if len(rest) == 1:
                        return _Found(positions.get((*src, key)))
                    base, fresh = _empty_like(value), True
                else:
                    base = base[key]
                patch, src, dst, out = value, (*src, key), (*dst, key), (*out, key)
                rest = rest[1:]
                continue
            named = NAMED_LISTS.get(str(dst[-1])) if dst else None
            if (
                named is None
                or not isinstance(patch, list)
                or not (base is _MISSING or isinstance(base, list))
            ):
                # Replaced whole: everything below comes from this layer.
                return _Found(positions.get(src + rest))
            items = [] if base is _MISSING else base
            if not rest:
                return earlier(out)  # the list itself keeps its place
            if not any(isinstance(item, dict | list) for item in patch):
                found = self._scalars(items, patch, src, rest, positions)
                return found if found is not None else earlier(out + rest)
            plan, in_place = self._plan(index, dst, items, patch, named)
            at = rest[0]
            if not isinstance(at, int) or not 0 <= at < len(plan):
                return earlier(out + rest) if in_place else _Found(None)
            base_at, patch_at = plan[at]
            if patch_at is None:
                return earlier((*out, base_at, *rest[1:]))
            item = patch[patch_at]
            if base_at is None:
                if len(rest) == 1:
                    return _Found(positions.get((*src, patch_at)))
                base, fresh = _empty_like(item), True
            else:
                base = items[base_at]
                if len(rest) == 1:
                    if isinstance(base, dict) and isinstance(item, dict):
                        return earlier((*out, base_at))
                    return _Found(positions.get((*src, patch_at)))
            patch, src = item, (*src, patch_at)
            dst, out = (*dst, at), (*out, at if base_at is None else base_at)
            rest = rest[1:]

    def _scalars(
        self,
        items: list[Any],
        patch: list[Any],
        src: DataPath,
        rest: DataPath,
        positions: Positions,
    ) -> _Found | None:
        """A patch of scalars only, appended after the base unless equal to one in it:
        the origin of an appended item; None for a base item, which kept its index."""
        at = rest[0]
        if not isinstance(at, int) or at < len(items):
            return None
        present = {fingerprint(item) for item in items}
        added = [j for j, item in enumerate(patch) if item not in present]
        if at - len(items) >= len(added) or len(rest) > 1:
            return _Found(None)
        return _Found(positions.get((*src, added[at - len(items)])))

    def _plan(
        self, index: int, dst: DataPath, items: list[Any], patch: list[Any], key: str
    ) -> _Plan:
        found = self._plans.get((index, dst))
        if found is None:
            found = self._plans[(index, dst)] = plan_named(items, patch, key)
        return found


def _empty_like(value: Any) -> Any:
    return {} if isinstance(value, dict) else _MISSING
