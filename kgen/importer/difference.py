"""What an input object has that its render lacks (kgen.importer.leftover): compared
map by map, and the lists Kubernetes merges by key (kgen.patch.strategic) item by item
on that key, regardless of order, so the difference reads as the strategic merge a
person would write."""

from __future__ import annotations

import copy
import json
from typing import Any

from kgen.errors import DataPath, printable
from kgen.patch.strategic import MERGE_KEYS

# What the API server or the operator fills in when a field is missing (an object
# exported from a cluster has them all): written out in the input, kgen leaves it to
# them, and it is no patch. By the field's list or map and its key.
# A container port's protocol, a container's termination message path and policy:
# kubernetes pkg/apis/core/v1/defaults.go SetDefaults_ContainerPort and
# SetDefaults_Container (tag v1.31.0). runPolicy.suspend: training-operator
# pkg/apis/kubeflow.org/v1 common_types.go RunPolicy.Suspend, default false (v1.8.0).
DEFAULTS: dict[tuple[str, str], Any] = {
    ("ports", "protocol"): "TCP",
    ("containers", "terminationMessagePath"): "/dev/termination-log",
    ("containers", "terminationMessagePolicy"): "File",
    ("initContainers", "terminationMessagePath"): "/dev/termination-log",
    ("initContainers", "terminationMessagePolicy"): "File",
    ("runPolicy", "suspend"): False,
}
SAME = object()  # no difference
WHOLE_ITEMS = ("containers", "initContainers", "volumes")
RENAMED = ("containers",)


class Leftover:
    """The difference between an input object and its render, as a merge patch and the
    places (data paths in the input) it keeps."""

    def __init__(self, *, whole: bool = False) -> None:
        self.places: list[DataPath] = []
        # Containers the input names otherwise than the render (a kind that finds its
        # container by position): where in the render, and the input's name. A merge
        # cannot rename an item it finds by name, so these come first, as `ops:`.
        self.renames: list[tuple[DataPath, Any]] = []
        # Also a container or volume the render has and the input lacks: one is no
        # default, and no merge of the input's fields removes it.
        self.whole = whole

    def extra(
        self, given: Any, rendered: Any, path: DataPath, at: DataPath = ()
    ) -> Any:
        """What of `given` (at `path`; at `at` in the render) the merge must add to
        `rendered`, or SAME."""
        if path and path[-1] == "resources" and isinstance(given, dict):
            given = _without_derived_requests(given)
        if isinstance(given, dict) and isinstance(rendered, dict):
            out: dict[str, Any] = {}
            for key, value in given.items():
                if _left_out(value):  # the API server reads it as left out
                    continue
                if key not in rendered:
                    if _defaulted((*path, key), value):
                        continue
                    out[key] = copy.deepcopy(value)
                    self.places.append((*path, key))
                    continue
                inner = self.extra(value, rendered[key], (*path, key), (*at, key))
                if inner is not SAME:
                    out[key] = inner
            return out or SAME
        merge_key = MERGE_KEYS.get(str(path[-1])) if path else None
        if merge_key and _keyed(given, merge_key) and _keyed(rendered, merge_key):
            return self._extra_items(given, rendered, (path, at), merge_key)
        if _same(given, rendered):
            return SAME
        self.places.append(path)
        return copy.deepcopy(given)

    def _extra_items(
        self,
        given: list[Any],
        rendered: list[Any],
        paths: tuple[DataPath, DataPath],
        key: str,
    ) -> Any:
        # Items merge by their key, as Kubernetes merges them: order is not compared.
        path, at = paths
        by_key = {item[key]: (i, item) for i, item in enumerate(rendered)}
        names = {item[key] for item in given}
        out = []
        for index, item in enumerate(given):
            i, other = by_key.get(item[key], (None, None))
            # Else the render's item at the same place, if the input lacks it.
            if (
                other is None
                and path[-1] in RENAMED
                and index < len(rendered)
                and rendered[index][key] not in names
            ):
                i, other = index, {**rendered[index], key: item[key]}
                self.renames.append(((*at, index, key), item[key]))
                self.places.append((*path, index, key))
            if other is None or i is None:
                out.append(copy.deepcopy(item))
                self.places.append((*path, index))
                continue
            inner = self.extra(item, other, (*path, index), (*at, i))
            if inner is not SAME:
                out.append({key: item[key], **inner})
        if self.whole and path[-1] in WHOLE_ITEMS:
            self.places += [path] if any(i[key] not in names for i in rendered) else []
        return out or SAME


def _keyed(items: Any, key: str) -> bool:
    """A list whose items are maps, each with a distinct `key`."""
    if not isinstance(items, list):
        return False
    if not all(isinstance(i, dict) and hashable(i.get(key)) for i in items):
        return False
    keys = [i.get(key) for i in items]
    return None not in keys and len(set(keys)) == len(keys)


def hashable(value: Any) -> bool:
    return isinstance(value, str | int | float | bool)


def _same(given: Any, rendered: Any) -> bool:
    """Equal, or the same quantity written as a number and as a string (`cpu: 2`)."""
    if given == rendered and type(given) is type(rendered):
        return True
    numbers = (int, float)
    if isinstance(given, bool) or isinstance(rendered, bool):
        return False
    kinds = {isinstance(given, numbers), isinstance(rendered, numbers)}
    if kinds == {True, False} and isinstance(given, str | int | float):
        return isinstance(rendered, str | int | float) and str(given) == str(rendered)
    return bool(given == rendered)


def _left_out(value: Any) -> bool:
    """A null, or a map of nulls only (`metadata: {annotations: }`): fields left out,
    as the API server decodes them. An empty map (`emptyDir: {}`) is a value."""
    if isinstance(value, dict):
        return bool(value) and all(_left_out(v) for v in value.values())
    return value is None


def _without_derived_requests(resources: dict[str, Any]) -> dict[str, Any]:
    """`resources` without the extended resources' requests that equal their limits:
    Kubernetes takes such a request from the limit (and refuses any other), so a spec
    that counts GPUs into limits gives it back (kubernetes pkg/apis/core/v1/defaults.go
    SetDefaults_Pod, pkg/apis/core/validation ValidateResourceRequirements, v1.31.0)."""
    requests, limits = resources.get("requests"), resources.get("limits")
    if not isinstance(requests, dict) or not isinstance(limits, dict):
        return resources
    kept = {
        name: value
        for name, value in requests.items()
        if not ("/" in str(name) and name in limits and _same(value, limits[name]))
    }
    return {**resources, "requests": kept} if kept else _dropped(resources)


def _dropped(resources: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in resources.items() if k != "requests"}


def _defaulted(path: DataPath, value: Any) -> bool:
    """`value` at `path` is what is filled in when it is missing."""
    parent = next((str(p) for p in reversed(path[:-1]) if isinstance(p, str)), "")
    default = DEFAULTS.get((parent, str(path[-1])), SAME)
    return type(default) is type(value) and default == value


def field_name(data: Any, path: DataPath) -> str:
    """`path` to read in a message: list items by their merge key where they have one
    (`containers[pytorch].stdin`), every key printable."""
    out, node = "", data
    for part in path:
        if isinstance(part, int):
            key = MERGE_KEYS.get(_last_key(out)) if out else None
            item = node[part] if isinstance(node, list) and part < len(node) else None
            name = item.get(key) if key and isinstance(item, dict) else None
            out += f"[{printable(str(name))}]" if hashable(name) else f"[{part}]"
            node = item
            continue
        text = printable(str(part))
        text = json.dumps(text) if "." in text or "[" in text else text
        out += f".{text}" if out else text
        node = node.get(part) if isinstance(node, dict) else None
    return out


def _last_key(text: str) -> str:
    return text.rsplit(".", 1)[-1].split("[", 1)[0]
