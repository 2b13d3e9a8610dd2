"""Merge overlays into a job spec, and record which file and line set each final value.

Rules (documented in the README, tested in tests/test_merge.py):
- mappings merge key by key, recursively; scalars replace;
- `key: null` in an overlay deletes the key (as Helm does for values);
- named lists merge item by item on their key: `env`, `volumes`, `containers` and
  `initContainers` by `name`, `tolerations` by `key`, `ports` by `containerPort`,
  `volumeMounts` by `mountPath`; an item `{name: X, $patch: delete}` removes item X;
  items without the key (a toleration that matches every taint) are appended once;
- every other list (command, args, ...) is replaced whole;
- later overlays win.

kustomize's strategic merge replaces lists in custom resources whole because CRDs carry no
merge keys (kubernetes-sigs/kustomize#1027, #2825); kgen knows its own lists.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from kgen.errors import DataPath
from kgen.load.document import Origin, Positions
from kgen.merge.named import fingerprint, plan_named
from kgen.merge.provenance import Provenance, Tracker

NAMED_LISTS: Mapping[str, str] = {
    "env": "name",
    "volumes": "name",
    "tolerations": "key",
    # The pod as teams write it (issue 18): containers by name as Kubernetes' own
    # strategic merge does, ports by number (its merge key), mounts by path.
    "containers": "name",
    "initContainers": "name",
    "ports": "containerPort",
    "volumeMounts": "mountPath",
}
_MISSING: Any = object()


class Layer(NamedTuple):
    """A partial spec to merge: its data, and where its values sit in their file. A
    NamedTuple: a frozen dataclass's methods were compiled from source at import."""

    data: Mapping[str, Any]
    positions: Positions
    root: DataPath  # where `data` sits inside its document, e.g. ('patch',)
    # Integers as written in its file, by origin (kgen.load.document.Document.written).
    written: Mapping[Origin, str] = MappingProxyType({})


def merge_layers(
    base: Any, layers: list[Layer], *, provenance: Provenance | None = None
) -> Any:
    """Apply `layers` over `base` in order; update `provenance` when one is given."""
    tracker = Tracker(provenance) if provenance is not None else None
    merged = base
    for layer in layers:
        merged = _Merger(layer, tracker).merge(merged, layer.data, (), layer.root)
    return merged


class _Merger:
    def __init__(self, layer: Layer, tracker: Tracker | None) -> None:
        self.positions = layer.positions
        self.tracker = tracker

    def merge(self, base: Any, patch: Any, dst: DataPath, src: DataPath) -> Any:
        if isinstance(patch, dict) and isinstance(base, dict):
            return self._merge_map(base, patch, dst, src)
        key = NAMED_LISTS.get(str(dst[-1])) if dst and isinstance(patch, list) else None
        if key is not None and (base is _MISSING or isinstance(base, list)):
            items = [] if base is _MISSING else base
            return self._merge_named(items, patch, dst, src, key)
        self._replace(dst, src, patch, scalar=not isinstance(base, dict | list))
        return patch

    def _merge_map(
        self, base: dict[str, Any], patch: dict[str, Any], dst: DataPath, src: DataPath
    ) -> dict[str, Any]:
        out = dict(base)
        for key, value in patch.items():
            child_dst, child_src = (*dst, key), (*src, key)
            if value is None:
                if key in out:
                    self._drop(
                        child_dst, scalar=not isinstance(out.pop(key), dict | list)
                    )
                    # A problem about the missing key (a required field an overlay
                    # deleted) then points at the deletion.
                    self._set(child_dst, child_src)
                continue
            if key in out:
                out[key] = self.merge(out[key], value, child_dst, child_src)
            else:
                self._set(child_dst, child_src)
                out[key] = self.merge(_empty_like(value), value, child_dst, child_src)
        return out

    def _merge_named(
        self, base: list[Any], patch: list[Any], dst: DataPath, src: DataPath, key: str
    ) -> list[Any]:
        if not any(isinstance(item, dict | list) for item in patch):
            return self._append_scalars(base, patch, dst, src)
        # Plan first (which base item, which patch item, or both, ends up where), then
        # build data and provenance, so deletions cannot leave positions shifted.
        plan, in_place = plan_named(base, patch, key)
        tracker = self.tracker
        old: dict[DataPath, Origin] = {}
        moved: dict[Any, list[tuple[DataPath, Origin]]] = {}
        # Where every base item keeps its index (nothing deleted), so does its
        # provenance: only moved items need theirs moved.
        if tracker is not None and not in_place:
            old = tracker.take(dst)
            moved = _by_item(old, len(dst))
        out: list[Any] = []
        for index, (base_at, patch_at) in enumerate(plan):
            if moved and base_at is not None:
                self._restore(moved.get(base_at, ()), (*dst, index))
            if patch_at is None:
                out.append(base[base_at])  # type: ignore[index]
                continue
            patch_item = patch[patch_at]
            if base_at is None:
                self._set((*dst, index), (*src, patch_at))
                if not isinstance(patch_item, dict | list):
                    out.append(patch_item)  # a new scalar: nothing to merge
                    continue
                item = _empty_like(patch_item)
            else:
                item = base[base_at]
            out.append(self.merge(item, patch_item, (*dst, index), (*src, patch_at)))
        if tracker is not None and dst in old:
            tracker.set(dst, old[dst])
        return out

    def _append_scalars(
        self, base: list[Any], patch: list[Any], dst: DataPath, src: DataPath
    ) -> list[Any]:
        """A patch of scalars only (no names, no deletions): each is appended unless an
        equal item is in the base, as _plan would say, without its bookkeeping."""
        present = {fingerprint(item) for item in base}
        added = [j for j, item in enumerate(patch) if item not in present]
        if self.tracker is not None:
            positions = self.positions
            found = ((index, positions.get((*src, j))) for index, j in enumerate(added))
            self.tracker.set_many(
                ((*dst, len(base) + index), origin)
                for index, origin in found
                if origin is not None
            )
        return [*base, *(patch[j] for j in added)]

    # -- provenance bookkeeping (no-ops when not tracking) --

    def _set(self, dst: DataPath, src: DataPath) -> None:
        if self.tracker is not None and src in self.positions:
            self.tracker.set(dst, self.positions[src])

    def _replace(
        self, dst: DataPath, src: DataPath, value: Any, *, scalar: bool
    ) -> None:
        """`value` from `src` replaces what was at `dst` (`scalar`: a value that holds
        nothing, or none)."""
        tracker = self.tracker
        if tracker is None:
            return
        previous = tracker.origins.get(dst)
        tracker.take(dst, scalar=scalar)
        positions = self.positions
        # A key this layer adds has no earlier value; only a real override is recorded.
        if previous is not None and src in positions and previous != positions[src]:
            tracker.overridden.setdefault(dst, []).append(previous)
        if not isinstance(value, dict | list):
            origin = positions.get(src)
            if origin is not None:
                tracker.set(dst, origin)
            return
        # The layer's positions below `src` are those of `value`'s own nodes.
        for rest in _node_paths(value):
            origin = positions.get(src + rest)
            if origin is not None:
                tracker.set(dst + rest, origin)

    def _drop(self, dst: DataPath, *, scalar: bool) -> None:
        if self.tracker is not None:
            self.tracker.take(dst, scalar=scalar)

    def _take_subtree(self, dst: DataPath) -> dict[DataPath, Origin]:
        return self.tracker.take(dst) if self.tracker is not None else {}

    def _restore(self, moved: Iterable[tuple[DataPath, Origin]], to: DataPath) -> None:
        if self.tracker is not None:
            for rest, origin in moved:
                self.tracker.set(to + rest, origin)


def _node_paths(value: Any) -> Iterator[DataPath]:
    """The path of `value` itself (empty) and of every node inside it."""
    yield ()
    if isinstance(value, dict | list):
        stack: list[tuple[DataPath, Any]] = [((), value)]
        while stack:
            path, node = stack.pop()
            items = node.items() if isinstance(node, dict) else enumerate(node)
            for key, child in items:
                yield (*path, key)
                if isinstance(child, dict | list):
                    stack.append(((*path, key), child))


def _by_item(
    old: dict[DataPath, Origin], size: int
) -> dict[Any, list[tuple[DataPath, Origin]]]:
    """The origins under a list, grouped by item index, each path relative to its item."""
    moved: dict[Any, list[tuple[DataPath, Origin]]] = {}
    rest = size + 1
    for path, origin in old.items():
        if len(path) > size:
            item = path[size]
            entry = (path[rest:], origin)
            group = moved.get(item)
            if group is None:
                moved[item] = [entry]
            else:
                group.append(entry)
    return moved


def _empty_like(value: Any) -> Any:
    if isinstance(value, dict):
        return {}
    return _MISSING
