"""The merge as kgen first wrote it: each lookup a scan, quadratic in the list length.

Kept as the oracle for kgen.merge.layers, which must give the same data and the same
provenance in linear time (tests/test_merge.py compares them on random inputs).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kgen.errors import DataPath
from kgen.load.document import Origin, Positions
from kgen.merge.provenance import Provenance

NAMED_LISTS: Mapping[str, str] = {
    "env": "name",
    "volumes": "name",
    "tolerations": "key",
}
PATCH_DIRECTIVE = "$patch"
_MISSING: Any = object()


@dataclass(frozen=True)
class Layer:
    """A partial spec to merge: its data, and where its values sit in their file."""

    data: Mapping[str, Any]
    positions: Positions
    root: DataPath  # where `data` sits inside its document, e.g. ('patch',)


def merge_layers(
    base: Any, layers: list[Layer], *, provenance: Provenance | None = None
) -> Any:
    """Apply `layers` over `base` in order; update `provenance` when one is given."""
    merged = base
    for layer in layers:
        merged = _Merger(layer, provenance).merge(merged, layer.data, (), layer.root)
    return merged


class _Merger:
    def __init__(self, layer: Layer, provenance: Provenance | None) -> None:
        self.positions = layer.positions
        self.provenance = provenance

    def merge(self, base: Any, patch: Any, dst: DataPath, src: DataPath) -> Any:
        if isinstance(patch, dict) and isinstance(base, dict):
            return self._merge_map(base, patch, dst, src)
        key = NAMED_LISTS.get(str(dst[-1])) if dst and isinstance(patch, list) else None
        if key is not None and (base is _MISSING or isinstance(base, list)):
            items = [] if base is _MISSING else base
            return self._merge_named(items, patch, dst, src, key)
        self._replace(dst, src)
        return patch

    def _merge_map(
        self, base: dict[str, Any], patch: dict[str, Any], dst: DataPath, src: DataPath
    ) -> dict[str, Any]:
        out = dict(base)
        for key, value in patch.items():
            child_dst, child_src = (*dst, key), (*src, key)
            if value is None:
                if key in out:
                    del out[key]
                    self._drop(child_dst)
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
        # Plan first (which base item, which patch item, or both, ends up where), then
        # build data and provenance, so deletions cannot leave positions shifted.
        plan: list[tuple[int | None, int | None]] = [
            (i, None) for i in range(len(base))
        ]
        for j, item in enumerate(patch):
            name = item.get(key) if isinstance(item, dict) else None
            at = next(
                (
                    n
                    for n, (i, _) in enumerate(plan)
                    if name is not None
                    and i is not None
                    and _key_of(base[i], key) == name
                ),
                None,
            )
            if name is not None and at is None:
                at = next(
                    (
                        n
                        for n, (_, k) in enumerate(plan)
                        if k is not None and _key_of(patch[k], key) == name
                    ),
                    None,
                )
            if isinstance(item, dict) and item.get(PATCH_DIRECTIVE) == "delete":
                if at is not None:
                    plan.pop(at)
                continue
            if at is not None:
                plan[at] = (plan[at][0], j)
            elif name is not None or item not in base:
                plan.append((None, j))
        old = self._take_subtree(dst)
        out: list[Any] = []
        for index, (base_at, patch_at) in enumerate(plan):
            here = (*dst, index)
            if base_at is not None:
                self._restore(old, (*dst, base_at), here)
            item = base[base_at] if base_at is not None else _MISSING
            if patch_at is None:
                out.append(item)
                continue
            patch_item, from_patch = patch[patch_at], (*src, patch_at)
            if base_at is None:
                self._set(here, from_patch)
                item = _empty_like(patch_item)
            out.append(self.merge(item, patch_item, here, from_patch))
        if self.provenance is not None and dst in old:
            self.provenance.origins[dst] = old[dst]
        return out

    # -- provenance bookkeeping (no-ops when not tracking) --

    def _set(self, dst: DataPath, src: DataPath) -> None:
        if self.provenance is not None and src in self.positions:
            self.provenance.origins[dst] = self.positions[src]

    def _replace(self, dst: DataPath, src: DataPath) -> None:
        if self.provenance is None:
            return
        previous = self.provenance.origins.get(dst)
        self._drop(dst)
        # A key this layer adds has no earlier value; only a real override is recorded.
        if (
            previous is not None
            and src in self.positions
            and previous != self.positions[src]
        ):
            self.provenance.overridden.setdefault(dst, []).append(previous)
        size = len(src)
        for path, origin in self.positions.items():
            if path[:size] == src:
                self.provenance.origins[dst + path[size:]] = origin

    def _drop(self, dst: DataPath) -> None:
        if self.provenance is not None:
            self._take_subtree(dst)

    def _take_subtree(self, dst: DataPath) -> dict[DataPath, Origin]:
        if self.provenance is None:
            return {}
        size = len(dst)
        origins = self.provenance.origins
        taken = {path: origin for path, origin in origins.items() if path[:size] == dst}
        for path in taken:
            del origins[path]
        return taken

    def _restore(
        self, old: dict[DataPath, Origin], frm: DataPath, to: DataPath
    ) -> None:
        if self.provenance is None:
            return
        size = len(frm)
        for path, origin in old.items():
            if path[:size] == frm:
                self.provenance.origins[to + path[size:]] = origin


def _key_of(item: Any, key: str) -> Any:
    return item.get(key) if isinstance(item, dict) else None


def _empty_like(value: Any) -> Any:
    if isinstance(value, dict):
        return {}
    return _MISSING
