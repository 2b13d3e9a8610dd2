"""Values that sit under a secret-like name outside env: the keys of labels,
annotations, nodeSelector and affinity's matchLabels, and the `key` of a toleration or a
match expression beside its value. The names are judged as env variables' are
(kgen.rules.secret_names); kgen.rules.secrets reports a literal among them.

Read from the few places such a name can stand, not by a walk over the whole spec: a
spec's other keys are fields of kgen or of the Kubernetes API (`imagePullSecrets`,
`topologyKey`), which say nothing of their values.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from kgen.errors import DataPath
from kgen.rules.places import places
from kgen.rules.secret_names import secret_name

if TYPE_CHECKING:
    from kgen.spec.job import JobSpec
    from kgen.spec.pod import Toleration

NamedValue = tuple[DataPath, str, str]  # where, the name, the value


def named_values(spec: JobSpec) -> Iterator[NamedValue]:
    """Every string value under a secret-like name, with its path and that name."""
    for field, mapping in (
        ("labels", spec.labels),
        ("annotations", spec.annotations),
        ("podLabels", spec.pod_labels),
        ("podAnnotations", spec.pod_annotations),
    ):
        yield from _map((field,), mapping)
    for place in places(spec):
        where, found = place.path, place.set
        if "node_selector" in found:
            yield from _map((*where, "nodeSelector"), found["node_selector"])
        if "tolerations" in found:
            yield from _tolerations((*where, "tolerations"), found["tolerations"])
        if "affinity" in found:
            yield from _affinity((*where, "affinity"), found["affinity"])


def _secret(name: Any) -> bool:
    return isinstance(name, str) and secret_name(name.rpartition("/")[2])


def _map(path: DataPath, mapping: Mapping[str, Any]) -> Iterator[NamedValue]:
    for key, value in mapping.items():
        if isinstance(value, str) and _secret(key):
            yield (*path, key), key, value


def _tolerations(path: DataPath, tolerations: list[Toleration]) -> Iterator[NamedValue]:
    for index, toleration in enumerate(tolerations):
        if toleration.value and _secret(toleration.key):
            assert toleration.key is not None
            yield (*path, index, "value"), toleration.key, toleration.value


def _affinity(path: DataPath, affinity: Any) -> Iterator[NamedValue]:
    """matchLabels keys and match expressions' keys, anywhere in an affinity."""
    stack: list[tuple[DataPath, Any]] = [(path, affinity)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, list):
            stack += [((*where, i), item) for i, item in enumerate(node)]
        elif isinstance(node, dict):
            labels = node.get("matchLabels")
            if isinstance(labels, dict):
                yield from _map((*where, "matchLabels"), labels)
            values = node.get("values")
            if _secret(node.get("key")) and isinstance(values, list):
                for index, value in enumerate(values):
                    if isinstance(value, str):
                        yield (*where, "values", index), node["key"], value
            stack += [((*where, k), v) for k, v in node.items() if k != "matchLabels"]
