"""The labels and annotations of a team object, held to the rules a job's and a
patch's are (kgen.spec.fields, kgen.patch.metadata): the API server refuses an object
whose label key or value, or annotation key, is not one, or whose annotations are over
256 KiB in all (k8s.io/apimachinery pkg/api/validation/objectmeta.go), which no
OpenAPI schema says. The object's own metadata and each it embeds (a pod template's,
a CronJob's job template's, a StatefulSet's claim templates'); and the object's own
fields the cluster sets (lifecycle_problems)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kgen.errors import DataPath, Problem, shortened, unquoted
from kgen.spec.fields import (
    annotations_size_problem,
    label_key_problem,
    label_value_problem,
)
from kgen.spec.hidden import secret
from kgen.spec.validate import MAX_QUOTED

# The keys under which an ObjectMeta is embedded.
_EMBEDDED = ("template", "jobTemplate")


def metadata_problems(data: dict[str, Any]) -> list[Problem]:
    problems: list[Problem] = []
    for where, entries in _maps(data, ()):
        if where[-1] == "annotations":
            size = annotations_size_problem(entries)
            if size is not None:
                problems.append(Problem(size, "invalid-value", path=where))
        for key, value in entries.items():
            problems += entry_problems(data, (*where, key), value, at_key=True)
            if not isinstance(value, str):
                # A custom resource's schema may leave metadata untyped; the API
                # server still reads it as a map of strings.
                problems.append(_not_a_string(where, key, value))
    return problems


# What a value is, never what it says (it may be a secret's).
_KINDS = {
    bool: "a boolean",
    int: "a number",
    float: "a number",
    list: "a list",
    dict: "a mapping",
    type(None): "null",
}


def _not_a_string(where: DataPath, key: str, value: Any) -> Problem:
    what = "label" if where[-1] == "labels" else "annotation"
    got = _KINDS.get(type(value), "a value of another kind")
    return Problem(
        f"{what} '{_short(str(key), str(key))}' must be a string, got {got}",
        "wrong-type",
        path=(*where, key),
        hint="quote it",
    )


def entry_problems(
    data: Any, path: DataPath, value: Any, *, at_key: bool
) -> list[Problem]:
    """The problems of one label or annotation of `data` (what its path ends in): its
    key, and a label's value, quoted short and never under a secret's name (a patch's
    too: kgen.patch.metadata)."""
    problems: list[Problem] = []
    key = str(path[-1])
    message = label_key_problem(key)
    if message is not None:
        message = _short(message, key)
        problems.append(Problem(message, "invalid-value", path=path, at_key=at_key))
    labelled = path[-2] == "labels" and isinstance(value, str)
    message = label_value_problem(value) if labelled else None
    if message is not None:
        hidden = secret(data, path)
        message = unquoted(message, value) if hidden else _short(message, value)
        problems.append(Problem(message, "invalid-value", path=path))
    return problems


def _short(message: str, value: str) -> str:
    """`message` with `value` quoted at most MAX_QUOTED characters long, as the
    spec's messages quote it."""
    if len(value) <= MAX_QUOTED:
        return message
    return message.replace(value, shortened(value, MAX_QUOTED))


def _maps(node: Any, path: DataPath) -> Iterator[tuple[DataPath, dict[str, Any]]]:
    """Every labels or annotations map of an ObjectMeta in `node`, with its path."""
    if isinstance(node, list):
        for index, item in enumerate(node):
            yield from _maps(item, (*path, index))
        return
    if not isinstance(node, dict):
        return
    meta = node.get("metadata")
    embedded = (
        not path or path[-1] in _EMBEDDED or path[-2:-1] == ("volumeClaimTemplates",)
    )
    if embedded and isinstance(meta, dict):
        for name in ("labels", "annotations"):
            if isinstance(meta.get(name), dict):
                yield (*path, "metadata", name), meta[name]
    for key, value in node.items():
        if key != "metadata" and isinstance(value, dict | list):
            yield from _maps(value, (*path, key))


# The object's own fields a manifest may not set, as a patch may not set them on a
# rendered object (kgen.patch.metadata.LIFECYCLE), and why. Finalizers are the team's
# to declare: Argo CD's Applications declare theirs in git, as a team's controller may.
_LIFECYCLE = {
    "generateName": (
        "kubectl apply, Argo CD and Flux find an object by its name, and the API server"
        " makes a new name from generateName at each create",
        "remove it: metadata.name names the object",
    ),
    "ownerReferences": (
        "an owner is named by the uid the cluster gave it, and the garbage collector"
        " deletes an object whose owner is not there",
        "remove it: Argo CD or Flux owns the object, and prunes it when it leaves git",
    ),
}


def lifecycle_problems(data: dict[str, Any]) -> list[Problem]:
    """The fields of the object's own metadata the cluster sets, at their keys."""
    meta = data.get("metadata")
    if not isinstance(meta, dict):
        return []
    return [
        Problem(
            f"a team object may not set metadata.{field}: {why}",
            "resource-invalid",
            path=("metadata", field),
            at_key=True,
            hint=hint,
        )
        for field, (why, hint) in _LIFECYCLE.items()
        if field in meta
    ]
