"""kgen.merge.origins finds the origin of one path of a merged spec without recording every
value; it must answer exactly what a merge recording provenance holds for that path,
or problems would point at other lines than before."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgen.errors import DataPath
from kgen.merge.layers import Layer, merge_layers
from kgen.merge.origins import Origins
from kgen.merge.provenance import Provenance
from tests.test_merge import TRICKY, _loaded, _spec, doc


def _paths(data: Any, path: DataPath = ()) -> list[DataPath]:
    found = [path]
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += _paths(value, (*path, index))
    return found


def _agree(base_doc: Any, layers: list[Layer]) -> int:
    """Compare every path that has or might have an origin; how many were compared."""
    recorded = Provenance(dict(base_doc.positions))
    merged = merge_layers(base_doc.data, layers, provenance=recorded)
    origins = Origins(base_doc.data, base_doc.positions, layers)
    asked = {*recorded.origins, *_paths(merged), *base_doc.positions}
    for layer in layers:
        size = len(layer.root)
        asked |= {path[size:] for path in layer.positions if len(path) > size}
    # Paths that exist nowhere: past the end of lists, below scalars, unknown keys.
    asked |= {(*path, extra) for path in list(asked) for extra in (0, 7, "zz")}
    for path in asked:
        assert origins.of(path) == recorded.origins.get(path), path
        assert origins.nearest(path, "job.yaml") == _nearest(recorded, path)
    return len(asked)


def _nearest(provenance: Provenance, path: DataPath) -> Any:
    from kgen.load.document import nearest_origin

    return nearest_origin(provenance.origins, path, "job.yaml")


@settings(max_examples=300)
@given(
    base=_spec(nulls=False),
    patches=st.lists(_spec(nulls=True), min_size=1, max_size=3),
)
def test_origins_match_the_recorded_provenance(base, patches):
    base_doc = _loaded("job.yaml", base)
    overlays = [_loaded(f"o{i}.yaml", {"patch": p}) for i, p in enumerate(patches)]
    layers = [Layer(o.data["patch"], o.positions, ("patch",)) for o in overlays]
    assert _agree(base_doc, layers)


@pytest.mark.parametrize(("base", "patch"), TRICKY)
def test_origins_through_tricky_sequences(base: str, patch: str) -> None:
    base_doc = doc("job.yaml", f"env: {base}\n")
    overlay = doc("o.yaml", f"patch:\n  env: {patch}\n")
    assert _agree(
        base_doc, [Layer(overlay.data["patch"], overlay.positions, ("patch",))]
    )


def test_deleting_then_adding_a_key_leaves_nothing_of_the_old_value() -> None:
    base_doc = doc(
        "job.yaml", "resources: {limits: {cpu: '1'}, requests: {cpu: '1'}}\n"
    )
    first = doc("o1.yaml", "patch: {resources: null}\n")
    second = doc("o2.yaml", "patch: {resources: {requests: {memory: 1Gi}}}\n")
    layers = [Layer(d.data["patch"], d.positions, ("patch",)) for d in (first, second)]
    origins = Origins(base_doc.data, base_doc.positions, layers)
    assert origins.of(("resources", "limits", "cpu")) is None
    memory = origins.of(("resources", "requests", "memory"))
    assert memory is not None
    assert memory.file == "o2.yaml"
    assert _agree(base_doc, layers)
