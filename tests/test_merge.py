from __future__ import annotations

import gc
import json
import textwrap
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgen.load.yaml import load_bytes
from kgen.merge.layers import Layer, merge_layers
from kgen.merge.provenance import Provenance
from kgen.merge.select import selector_matches
from kgen.spec.project import JobSelector
from tests import merge_reference as reference


def doc(name: str, text: str):
    loaded, problems = load_bytes(textwrap.dedent(text).lstrip("\n").encode(), name)
    assert not problems
    return loaded


def merge(base_text: str, *patches: str):
    base = doc("job.yaml", base_text)
    layers = []
    for index, text in enumerate(patches):
        overlay = doc(f"o{index}.yaml", text)
        layers.append(Layer(overlay.data["patch"], overlay.positions, ("patch",)))
    provenance = Provenance(dict(base.positions))
    merged = merge_layers(base.data, layers, provenance=provenance)
    assert merge_layers(base.data, layers) == merged, (
        "tracking must not change the result"
    )
    return merged, provenance


def where(provenance: Provenance, *path):
    origin = provenance.origins[path]
    return f"{origin.file}:{origin.line}:{origin.column}"


def test_maps_merge_deeply_and_scalars_replace():
    merged, prov = merge(
        """
        resources:
          requests: {cpu: "1", memory: 1Gi}
        """,
        """
        patch:
          resources:
            requests:
              memory: 2Gi
        """,
    )
    assert merged == {"resources": {"requests": {"cpu": "1", "memory": "2Gi"}}}
    assert where(prov, "resources", "requests", "memory") == "o0.yaml:4:15"
    assert where(prov, "resources", "requests", "cpu") == "job.yaml:2:19"
    assert [o.file for o in prov.overridden[("resources", "requests", "memory")]] == [
        "job.yaml"
    ]


def test_null_deletes_a_key_and_points_its_provenance_at_the_deletion():
    merged, prov = merge(
        "resources: {gpu: 1, limits: {cpu: '2'}}\n",
        "patch:\n  resources:\n    gpu: null\n",
    )
    assert merged == {"resources": {"limits": {"cpu": "2"}}}
    # A problem about the missing key (a required field deleted) names the overlay.
    origin = prov.origins[("resources", "gpu")]
    assert (origin.file, origin.line, origin.column) == ("o0.yaml", 3, 10)


def test_null_for_an_absent_key_is_a_no_op():
    merged, _ = merge("a: 1\n", "patch:\n  b: null\n  c: {d: null, e: 2}\n")
    assert merged == {"a": 1, "c": {"e": 2}}


def test_env_merges_by_name_keeping_order_and_appending_new():
    merged, prov = merge(
        """
        env:
          - {name: A, value: "1"}
          - {name: B, value: "2"}
        """,
        """
        patch:
          env:
            - {name: C, value: "3"}
            - {name: A, value: "9"}
        """,
    )
    assert merged["env"] == [
        {"name": "A", "value": "9"},
        {"name": "B", "value": "2"},
        {"name": "C", "value": "3"},
    ]
    assert where(prov, "env", 0, "value") == "o0.yaml:4:24"
    assert where(prov, "env", 1, "value") == "job.yaml:3:22"
    assert where(prov, "env", 2, "name") == "o0.yaml:3:14"


def test_patch_delete_removes_a_named_item_and_shifts_provenance():
    merged, prov = merge(
        """
        volumes:
          - {name: a, claim: x, mountPath: /a}
          - {name: b, claim: y, mountPath: /b}
        """,
        """
        patch:
          volumes:
            - {name: a, $patch: delete}
        """,
    )
    assert merged["volumes"] == [{"name": "b", "claim": "y", "mountPath": "/b"}]
    assert where(prov, "volumes", 0, "claim") == "job.yaml:3:22"
    assert ("volumes", 1) not in prov.origins


def test_tolerations_merge_by_key_and_keyless_items_append_once():
    merged, _ = merge(
        "tolerations:\n  - {key: gpu, operator: Exists}\n",
        "patch:\n  tolerations:\n    - {key: gpu, effect: NoSchedule}\n    - {operator: Exists}\n",
        "patch:\n  tolerations:\n    - {operator: Exists}\n",
    )
    assert merged["tolerations"] == [
        {"key": "gpu", "operator": "Exists", "effect": "NoSchedule"},
        {"operator": "Exists"},
    ]


def test_other_lists_are_replaced_whole():
    merged, prov = merge("args: [a, b, c]\n", "patch:\n  args: [x]\n")
    assert merged == {"args": ["x"]}
    assert ("args", 1) not in prov.origins
    assert where(prov, "args", 0) == "o0.yaml:2:10"


def test_later_overlays_win():
    merged, prov = merge(
        "image: a:1\n", "patch: {image: 'b:2'}\n", "patch: {image: 'c:3'}\n"
    )
    assert merged == {"image": "c:3"}
    assert where(prov, "image") == "o1.yaml:1:16"
    assert [o.file for o in prov.overridden[("image",)]] == ["job.yaml", "o0.yaml"]


def test_merge_never_mutates_its_inputs():
    base = {"env": [{"name": "A", "value": "1"}], "r": {"x": 1}}
    patch = {"env": [{"name": "A", "value": "2"}], "r": {"x": 2}}
    merge_layers(base, [Layer(patch, {}, ())])
    assert base == {"env": [{"name": "A", "value": "1"}], "r": {"x": 1}}
    assert patch == {"env": [{"name": "A", "value": "2"}], "r": {"x": 2}}


def test_selectors():
    job = {"name": "mnist-ddp", "framework": "pytorch", "labels": {"team": "vision"}}
    assert selector_matches(None, job)
    assert selector_matches(JobSelector(names=["mnist-*"]), job)
    assert not selector_matches(JobSelector(names=["resnet"]), job)
    assert selector_matches(
        JobSelector(frameworks=["pytorch"], labels={"team": "vision"}), job
    )
    assert not selector_matches(JobSelector(frameworks=["tensorflow"]), job)
    assert not selector_matches(JobSelector(labels={"team": "nlp"}), job)


# --- the same answers as the quadratic merge, in linear time

NAMES = st.sampled_from(["a", "b", 1, True])
SCALARS = st.sampled_from(["x", "y", 1, 1.0, True, None])


def _item(key: str) -> st.SearchStrategy[Any]:
    named = st.fixed_dictionaries(
        {key: NAMES},
        optional={
            "value": SCALARS,
            "mountPath": st.sampled_from(["/a", "/b"]),
            "$patch": st.just("delete"),
            "extra": st.dictionaries(st.sampled_from(["p", "q"]), SCALARS, max_size=2),
        },
    )
    keyless = st.dictionaries(
        st.sampled_from(["operator", "effect"]), SCALARS, max_size=2
    )
    hostile = st.one_of(
        SCALARS,
        st.lists(SCALARS, max_size=2),
        st.just({key: {"n": 1}}),
        st.just({key: [1]}),
    )
    return st.one_of(named, keyless, hostile)


def _spec(*, nulls: bool) -> st.SearchStrategy[dict[str, Any]]:
    values = SCALARS if nulls else SCALARS.filter(lambda v: v is not None)
    resources = st.dictionaries(
        st.sampled_from(["cpu", "memory", "gpu"]),
        st.one_of(values, st.dictionaries(st.sampled_from(["a", "b"]), values)),
        max_size=3,
    )
    optional: dict[str, st.SearchStrategy[Any]] = {
        "volumes": st.lists(_item("name"), max_size=4),
        "tolerations": st.lists(_item("key"), max_size=4),
        "args": st.lists(values, max_size=3),
        "resources": resources,
        "image": values,
    }
    if nulls:  # an overlay deletes whole lists and mappings too, or replaces them
        optional = {k: st.one_of(st.none(), v, values) for k, v in optional.items()}
    return st.fixed_dictionaries(
        {"env": st.lists(_item("name"), max_size=6)}, optional=optional
    )


def _loaded(name: str, data: Any):
    return doc(name, json.dumps(data))


@settings(max_examples=300)
@given(
    base=_spec(nulls=False),
    patches=st.lists(_spec(nulls=True), min_size=1, max_size=3),
)
def test_merge_matches_the_quadratic_reference(base, patches):
    base_doc = _loaded("job.yaml", base)
    overlays = [_loaded(f"o{i}.yaml", {"patch": p}) for i, p in enumerate(patches)]
    layers = [Layer(o.data["patch"], o.positions, ("patch",)) for o in overlays]
    old_layers = [
        reference.Layer(o.data["patch"], o.positions, ("patch",)) for o in overlays
    ]
    new, old = (
        Provenance(dict(base_doc.positions)),
        Provenance(dict(base_doc.positions)),
    )
    merged = merge_layers(base_doc.data, layers, provenance=new)
    expected = reference.merge_layers(base_doc.data, old_layers, provenance=old)
    assert merged == expected
    assert merge_layers(base_doc.data, layers) == expected
    assert new.origins == old.origins
    assert new.overridden == old.overridden


TRICKY = [
    # (base env, patch env): deletions take the first remaining item of a name; an
    # item appended by the patch can be patched or deleted again; keyless ones once.
    (
        "[{name: a, value: '1'}, {name: a, value: '2'}]",
        "[{name: a, $patch: delete}, {name: a, $patch: delete}]",
    ),
    (
        "[{name: a, value: '1'}, {name: a, value: '2'}]",
        "[{name: a, $patch: delete}, {name: a, value: '9'}]",
    ),
    ("[]", "[{name: c, value: '1'}, {name: c, $patch: delete}, {name: c, value: '2'}]"),
    ("[]", "[{name: c, value: '1'}, {name: c, value: '2'}, {name: c, extra: '3'}]"),
    ("[{name: a}]", "[{name: c}, {name: a, $patch: delete}, {name: a, value: '2'}]"),
    ("[{op: x}, 1]", "[{op: x}, {op: y}, {op: y}, 1, 1.0, true, 2]"),
]


@pytest.mark.parametrize(("base", "patch"), TRICKY)
def test_tricky_sequences_match_the_reference(base: str, patch: str) -> None:
    base_doc = doc("job.yaml", f"env: {base}\n")
    overlay = doc("o.yaml", f"patch:\n  env: {patch}\n")
    layer = Layer(overlay.data["patch"], overlay.positions, ("patch",))
    old_layer = reference.Layer(overlay.data["patch"], overlay.positions, ("patch",))
    new, old = (
        Provenance(dict(base_doc.positions)),
        Provenance(dict(base_doc.positions)),
    )
    merged = merge_layers(base_doc.data, [layer], provenance=new)
    assert merged == reference.merge_layers(base_doc.data, [old_layer], provenance=old)
    assert (new.origins, new.overridden) == (old.origins, old.overridden)


def _env_project(count: int) -> tuple[Any, list[Layer], Provenance]:
    job = "env:\n" + "".join(f"  - {{name: V{i}, value: a}}\n" for i in range(count))
    overlay = "patch:\n  env:\n" + "".join(
        f"    - {{name: V{i}, value: b}}\n" for i in range(count - 1, -1, -1)
    )
    base, patch = doc("job.yaml", job), doc("o.yaml", overlay)
    layer = Layer(patch.data["patch"], patch.positions, ("patch",))
    return base.data, [layer], Provenance(dict(base.positions))


def _merge_seconds(count: int) -> float:
    # CPU time without the garbage collector, whose passes over a growing heap are
    # not the merge's; the best of five, as other processes share the machine.
    best = float("inf")
    for _ in range(5):
        data, layers, provenance = _env_project(count)
        gc.disable()
        try:
            start = time.process_time()
            merge_layers(data, layers, provenance=provenance)
            merge_layers(data, layers)
            best = min(best, time.process_time() - start)
        finally:
            gc.enable()
    return best


def test_merging_a_long_named_list_takes_linear_time():
    # 10,000 then 20,000 entries, each patched by an overlay, with provenance: twice
    # the entries must take about twice the time (a quadratic merge takes four times).
    small, large = _merge_seconds(10_000), _merge_seconds(20_000)
    assert large / small < 3.0, (small, large)


def test_keyless_items_that_are_not_mappings_merge_in_linear_time():
    base = {"env": [1] * 50_000}
    layers = [Layer({"env": [1] * 50_000 + [2]}, {}, ())]
    start = time.perf_counter()
    merged = merge_layers(base, layers)
    assert merged == {"env": [1] * 50_000 + [2]}
    assert time.perf_counter() - start < 1.0


def test_hostile_names_that_are_mappings_or_lists_still_merge_by_equality():
    merged, _ = merge(
        "env:\n  - {name: {a: 1}, value: x}\n  - {name: [1], value: y}\n",
        "patch:\n  env:\n    - {name: {a: 1}, value: z}\n    - {name: [1], $patch: delete}\n",
    )
    assert merged["env"] == [{"name": {"a": 1}, "value": "z"}]
