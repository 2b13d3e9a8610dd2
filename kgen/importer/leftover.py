"""`kgen import`, what the spec fields cannot say: the imported spec is rendered for its
target (the render the build uses), compared with the input object, and what the input
has that the render lacks becomes a strategic-merge patch in the spec's `patches:`
(docs/patches.md), so `kgen build` gives the same object back. Each field kept that way
is reported at the input's line (`import-as-patch`); what no patch can place (the
cluster's status, server-set metadata) is reported too (`import-dropped`). Never a
value: a field under a secret's name is named, not quoted.

What the render adds that the input lacks (kgen's defaults, the operator's port) is no
patch: the operator would fill most of it in anyway.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from kgen.errors import DataPath, Problem, format_path, printable
from kgen.load.document import Document
from kgen.load.limits import MAX_DEPTH
from kgen.patch.strategic import MERGE_KEYS

# Set by the API server on every object, never by whoever wrote the manifest
# (k8s.io/apimachinery pkg/apis/meta/v1 types.go, ObjectMeta, tag v0.31.0).
SERVER_SET = (
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
)
# Labels kgen writes itself (kgen.render.base, kgen.render.job), and the namespace, which
# the imported environment sets.
OWN_LABELS = ("app.kubernetes.io/managed-by", "kgen.io/job")
# What the API server or the operator fills in when a field is missing: written out in
# the input, kgen leaves it to them, and it is no patch. By the field's last keys.
# A container port's protocol: k8s.io/api core/v1 types.go ContainerPort.Protocol,
# default TCP (tag v0.31.0). runPolicy.suspend: training-operator
# pkg/apis/kubeflow.org/v1 common_types.go RunPolicy.Suspend, default false (v1.8.0).
DEFAULTS: dict[tuple[str, str], Any] = {
    ("ports", "protocol"): "TCP",
    ("runPolicy", "suspend"): False,
}
# Inputs are hostile: at most this many fields reported one by one (the rest counted),
# and a patch no deeper than the loader lets a document be.
MAX_REPORTED = 100
# A merge sits this deep in a job spec (`patches:`, its item, `merge:`), and the spec
# is read back under the loader's depth limit.
PATCH_DEPTH = 3
_SAME = object()
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
        `rendered`, or _SAME."""
        if isinstance(given, dict) and isinstance(rendered, dict):
            out: dict[str, Any] = {}
            for key, value in given.items():
                if key not in rendered:
                    if _defaulted((*path, key), value):
                        continue
                    out[key] = copy.deepcopy(value)
                    self.places.append((*path, key))
                    continue
                inner = self.extra(value, rendered[key], (*path, key), (*at, key))
                if inner is not _SAME:
                    out[key] = inner
            return out or _SAME
        merge_key = MERGE_KEYS.get(str(path[-1])) if path else None
        if merge_key and _keyed(given, merge_key) and _keyed(rendered, merge_key):
            return self._extra_items(given, rendered, (path, at), merge_key)
        if _same(given, rendered):
            return _SAME
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
            if inner is not _SAME:
                out.append({key: item[key], **inner})
        if self.whole and path[-1] in WHOLE_ITEMS:
            self.places += [path] if any(i[key] not in names for i in rendered) else []
        return out or _SAME


def _keyed(items: Any, key: str) -> bool:
    """A list whose items are maps, each with a distinct `key`."""
    if not isinstance(items, list):
        return False
    if not all(isinstance(i, dict) and _hashable(i.get(key)) for i in items):
        return False
    keys = [i.get(key) for i in items]
    return None not in keys and len(set(keys)) == len(keys)


def _hashable(value: Any) -> bool:
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


def _defaulted(path: DataPath, value: Any) -> bool:
    """`value` at `path` is what is filled in when it is missing."""
    parent = next((str(p) for p in reversed(path[:-1]) if isinstance(p, str)), "")
    default = DEFAULTS.get((parent, str(path[-1])), _SAME)
    return type(default) is type(value) and default == value


def kept_as_patches(
    doc: Document,
    spec: dict[str, Any],
    env: tuple[str, str | None],
    found: list[Problem],
) -> tuple[list[dict[str, Any]], list[Problem], int]:
    """The `patches:` entry that keeps what of `doc`'s object `spec` does not render
    for `env` (target, namespace); `found` (what the import reported) and the problems
    that say what was kept and what could not be; and the number of fields kept.

    What the import could not express and reported (`import-unsupported` at a path) is
    withdrawn when the patch keeps it."""
    data = doc.data
    what = f"{data.get('kind')} {printable(str(data['metadata']['name']))}"
    problems = [*found, *_dropped(doc, what)]
    rendered = _render(spec, *env)
    if rendered is None:
        # The import's own error says why; else the build will, and this says what
        # was not looked at until then.
        if any(p.severity == "error" for p in found):
            return [], problems, 0
        message = f"{what} was not compared with its render, as the imported spec does not validate: fields no spec field says may be missing"
        hint = "run `kgen validate` on the imported project, fix the input and import again"
        return [], [*problems, _problem(doc, (), message, "import-unchecked", hint)], 0
    leftover = Leftover()
    given = _comparable(data)
    merge = leftover.extra(given, rendered, ())
    if merge is _SAME and not leftover.renames:
        return [], problems, 0
    patches = _patches(leftover.renames, {} if merge is _SAME else merge)
    refused = _not_kept(patches, rendered, given)
    if refused is not None:
        why, at = refused
        at = at or leftover.places[0]  # the first field it would have kept
        message = f"cannot keep what this {what} has beyond the spec as a patch: {why}"
        hint = "add it by hand after import, or leave it out"
        problem = _problem(doc, at, message, "import-unsupported", hint)
        return [], [*problems, problem], 0
    problems = [p for p in problems if not _kept(p, leftover.places)]
    for path in leftover.places[:MAX_REPORTED]:
        problems.append(
            _problem(
                doc,
                path,
                f"{what}: {_field(data, path)} has no job spec field; kept as a patch",
                "import-as-patch",
                "kgen build renders it through `patches:` (docs/patches.md); move it to a spec field if one comes",
            )
        )
    if len(leftover.places) > MAX_REPORTED:
        rest = len(leftover.places) - MAX_REPORTED
        problems.append(
            _problem(
                doc,
                leftover.places[MAX_REPORTED],
                f"{what}: {rest:,} more fields kept as a patch, from here on",
                "import-as-patch",
                None,
            )
        )
    return patches, problems, len(leftover.places)


def _patches(
    renames: list[tuple[DataPath, Any]], merge: dict[str, Any]
) -> list[dict[str, Any]]:
    ops = [
        {"op": "replace", "path": _pointer(at), "value": name} for at, name in renames
    ]
    return ([{"ops": ops}] if ops else []) + ([{"merge": merge}] if merge else [])


def _pointer(path: DataPath) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _not_kept(
    patches: list[dict[str, Any]], rendered: dict[str, Any], given: dict[str, Any]
) -> tuple[str, DataPath] | None:
    """Why the patches do not give `given` back from `rendered`, if they do not: they
    are applied as `kgen build` applies them, and what is still left over is
    compared."""
    from kgen.load.document import Origin
    from kgen.patch.context import Patching
    from kgen.patch.marks import Budget, PatchMarks
    from kgen.patch.ops import apply_ops
    from kgen.patch.strategic import merge_into
    from kgen.spec.patches import PatchOp

    if max(_depth(p) for p in patches) + PATCH_DEPTH > MAX_DEPTH:
        return f"it is nested deeper than a job spec may be ({MAX_DEPTH} levels)", ()
    nowhere = Origin("", 1, 1, 1, 1)
    body = copy.deepcopy(rendered)
    kind, name = str(body.get("kind")), str(body["metadata"]["name"])
    patching = Patching(body, kind, name, (), lambda _: nowhere, PatchMarks(), Budget())
    for patch in patches:
        problem = (
            apply_ops(patching, [PatchOp.model_validate(op) for op in patch["ops"]])
            if "ops" in patch
            else merge_into(patching, patch["merge"])
        )
        if problem is not None:
            return problem.message, ()
    check = Leftover(whole=True)
    check.extra(given, patching.body, ())
    if check.places:
        at = check.places[0]
        return f"the patched render still differs at {_field(given, at)}", at
    return None


def _depth(value: Any) -> int:
    """How deeply `value` nests, iteratively (it may be as deep as the input)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(node, dict):
            stack += [(v, depth + 1) for v in node.values()]
        elif isinstance(node, list):
            stack += [(v, depth + 1) for v in node]
    return deepest


def _kept(problem: Problem, places: list[DataPath]) -> bool:
    """`problem` says the import left out something the patch keeps."""
    if problem.code != "import-unsupported" or not problem.path:
        return False
    at = problem.path
    return any(place[: len(at)] == at or at[: len(place)] == place for place in places)


def _comparable(data: dict[str, Any]) -> dict[str, Any]:
    """The input object without what a patch cannot or need not place."""
    out = {k: v for k, v in data.items() if k != "status"}
    meta = {
        k: v
        for k, v in (data.get("metadata") or {}).items()
        if k not in SERVER_SET and k != "namespace"
    }
    if isinstance(meta.get("labels"), dict):
        meta["labels"] = {
            k: v for k, v in meta["labels"].items() if k not in OWN_LABELS
        }
    out["metadata"] = {k: v for k, v in meta.items() if v not in ({}, None)}
    return out


def _dropped(doc: Document, what: str) -> list[Problem]:
    data = doc.data
    meta = data.get("metadata") or {}
    places: list[DataPath] = [("status",)] if "status" in data else []
    places += [("metadata", k) for k in SERVER_SET if k in meta]
    return [
        _problem(
            doc,
            path,
            f"{what}: {format_path(path)} is the cluster's, not the manifest's; not imported",
            "import-dropped",
            "the API server sets it again when the job is applied",
        )
        for path in places
    ]


def _render(
    spec: dict[str, Any], target: str, namespace: str | None
) -> dict[str, Any] | None:
    """The job's own object as `kgen build` renders the imported spec, before patches."""
    from kgen.kinds import kind_for
    from kgen.kinds.targets import TARGETS
    from kgen.kinds.trainer.sections import foreign_sections
    from kgen.render.base import Environment
    from kgen.render.job import render_job
    from kgen.spec.validate import validate_model

    if target not in TARGETS:
        return None
    merged, _ = foreign_sections(spec, target)
    model, _ = validate_model(kind_for(spec["framework"], target).model(), merged)
    if model is None:
        return None
    objects, _ = render_job(model, Environment("import", TARGETS[target], namespace))
    return objects[0].body


def _field(data: Any, path: DataPath) -> str:
    """`path` to read in a message: list items by their merge key where they have one
    (`containers[pytorch].stdin`), every key printable."""
    out, node = "", data
    for part in path:
        if isinstance(part, int):
            key = MERGE_KEYS.get(_last_key(out)) if out else None
            item = node[part] if isinstance(node, list) and part < len(node) else None
            name = item.get(key) if key and isinstance(item, dict) else None
            out += f"[{printable(str(name))}]" if _hashable(name) else f"[{part}]"
            node = item
            continue
        text = printable(str(part))
        text = json.dumps(text) if "." in text or "[" in text else text
        out += f".{text}" if out else text
        node = node.get(part) if isinstance(node, dict) else None
    return out


def _last_key(text: str) -> str:
    return text.rsplit(".", 1)[-1].split("[", 1)[0]


def _problem(
    doc: Document, path: DataPath, message: str, code: str, hint: str | None
) -> Problem:
    origin = doc.origin(path)
    return Problem(
        message,
        code,
        file=origin.file,
        line=origin.key_line,
        column=origin.key_column,
        hint=hint,
        severity="error" if code == "import-unsupported" else "warning",  # catalogue
    )
