from __future__ import annotations

import textwrap

from kgen.loader import load_bytes
from kgen.merge import Layer, Provenance, merge_layers, selector_matches
from kgen.project import JobSelector


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
