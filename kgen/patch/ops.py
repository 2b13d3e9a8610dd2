"""RFC 6902 operations on one rendered object, through the `jsonpatch` library, one at
a time: each failure is reported at its own operation's line, in kgen's words (the
library's messages quote values, which may be secrets)."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch
import jsonpointer

from kgen.errors import DataPath, Problem
from kgen.patch.context import Patching, pointer_text, touches_identity
from kgen.spec.patches import PatchOp

_HINT = "see the object kgen renders without the patch (kgen build) and point at what it has"


def apply_ops(patching: Patching, ops: list[PatchOp]) -> Problem | None:
    """Apply `ops` in order; the first that fails stops the patch."""
    for index, op in enumerate(ops):
        problem = _apply(patching, op, ("ops", index))
        if problem is not None:
            return problem
    return None


def tokens(pointer: str) -> list[str]:
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]


def _apply(patching: Patching, op: PatchOp, at: DataPath) -> Problem | None:
    path = tokens(op.path)
    source = tokens(op.from_) if op.from_ is not None else None
    problem = _identity(patching, op, at, path, source) or _absent(
        patching, op, at, path, source
    )
    if problem is not None:
        return problem
    out = _resolved(patching.body, path)
    value = _get(patching.body, source) if source is not None else op.value
    if op.op in ("add", "replace", "copy") and not patching.budget.take(value):
        return patching.too_large((*at, "from" if op.op == "copy" else "value"))
    moved = _resolved(patching.body, source) if op.op == "move" and source else ()
    problem = _run(patching, op, at)
    if problem is None and op.op == "move":
        # Where the value is now: its source left first (`-` is the end without it).
        now = _resolved(patching.body, path, last=True)
        patching.marks.move(moved, now, patching.where((*patching.base, *at, "path")))
    elif problem is None:
        _mark(patching, op, at, out, value)
    return problem


def _identity(
    patching: Patching,
    op: PatchOp,
    at: DataPath,
    path: list[str],
    source: list[str] | None,
) -> Problem | None:
    """A write (a move's source too) to the object's identity or above it."""
    writes = [(path, "path")] if op.op != "test" else []
    writes += [(source, "from")] if op.op == "move" and source is not None else []
    for target, key in writes:
        field = touches_identity(tuple(target))
        if field is not None:
            return patching.problem(
                (*at, key),
                f"'{op.op}' {_where(op, key)} would change"
                f" {'.'.join(map(str, field))}, which names the object",
                "patch-identity",
                "kgen names the object, its file and its index entry; rename the job"
                " or the environment's namespace in the spec instead",
            )
    return None


def _absent(
    patching: Patching,
    op: PatchOp,
    at: DataPath,
    path: list[str],
    source: list[str] | None,
) -> Problem | None:
    missing = _missing(patching.body, op, path, source)
    if missing is None:
        return None
    pointer, key = missing
    if key == "scalar":
        key, found = (
            "path",
            f"a single value at {pointer_text(pointer)}, not a map or list",
        )
    elif pointer == (op.from_ if key == "from" else op.path):
        found = "nothing there"
    else:
        found = f"nothing at {pointer_text(pointer)}"
    return patching.problem(
        (*at, key),
        f"'{op.op}' {_where(op, key)}: {patching.what} has {found}",
        "patch-path-missing",
        _HINT,
    )


def _where(op: PatchOp, key: str) -> str:
    return (
        f"from {pointer_text(op.from_ or '')}"
        if key == "from"
        else f"at {pointer_text(op.path)}"
    )


def _run(patching: Patching, op: PatchOp, at: DataPath) -> Problem | None:
    """The operation through jsonpatch, on the object's own copy."""
    document: dict[str, Any] = {"op": op.op, "path": op.path}
    if op.op in ("add", "replace", "test"):
        # A copy: the value is the spec's, and later patches may change the object.
        document["value"] = copy.deepcopy(op.value)
    if op.from_ is not None:
        document["from"] = op.from_
    try:
        jsonpatch.JsonPatch([document]).apply(patching.body, in_place=True)
    except jsonpatch.JsonPatchTestFailed:
        return patching.problem(
            (*at, "value"),
            f"'test' at {pointer_text(op.path)} failed: {patching.what} has another value there",
            "patch-test-failed",
            "the patch was written for another render: look at the value kgen renders"
            " (kgen build) and update the patch, or drop it if it is no longer needed",
        )
    except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException):
        # What _missing does not foresee, such as a move into its own child.
        return patching.problem(
            (*at, "path"),
            f"'{op.op}' at {pointer_text(op.path)} cannot apply to {patching.what}",
            "patch-path-missing",
            "a value cannot move into itself; " + _HINT,
        )
    return None


def _mark(
    patching: Patching, op: PatchOp, at: DataPath, out: DataPath, value: Any
) -> None:
    """Record what the operation wrote; an insert into a list (add, copy) first moves
    the records of the items after it, as the list moved them."""
    marks = patching.marks
    line = patching.where((*patching.base, *at, "path"))
    if op.op == "test":
        return  # it compares, and writes nothing
    if op.op == "remove":
        marks.remove(out, line)
        return
    if op.op != "replace":
        marks.insert(out)
    if op.op == "copy":
        # One line wrote all of it: the place stands for what is below it.
        marks.one(out, line)
    else:
        marks.value(
            out,
            value,
            lambda rest: patching.where((*patching.base, *at, "value", *rest)),
        )


def _missing(
    body: Any, op: PatchOp, path: list[str], source: list[str] | None
) -> tuple[str, str] | None:
    """The first pointer the operation needs that leads nowhere, and its key."""
    if source is not None:
        found = _first_missing(body, source)
        if found is not None:
            return found, "from"
    if op.op in ("add", "move", "copy"):
        found = _first_missing(body, path[:-1])
        if found is None:
            parent = _get(body, path[:-1])
            if isinstance(parent, list) and not _insert_index(parent, path[-1]):
                return op.path, "path"
            if not isinstance(parent, dict | list):
                return _pointer(path[:-1]), "scalar"
        return (found, "path") if found is not None else None
    found = _first_missing(body, path)
    return (found, "path") if found is not None else None


def _first_missing(body: Any, path: list[str]) -> str | None:
    node = body
    for depth, token in enumerate(path):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and _index(token) is not None:
            index = _index(token)
            if index is None or index >= len(node):
                return _pointer(path[: depth + 1])
            node = node[index]
        else:
            return _pointer(path[: depth + 1])
    return None


def _index(token: str) -> int | None:
    if token.isdigit() and token.isascii() and (token == "0" or token[0] != "0"):
        return int(token)
    return None


def _insert_index(parent: list[Any], token: str) -> bool:
    index = _index(token)
    return token == "-" or (index is not None and index <= len(parent))


def _get(body: Any, path: list[str]) -> Any:
    node = body
    for token in path:
        node = node[_index(token) or 0] if isinstance(node, list) else node[token]
    return node


def _resolved(body: Any, path: list[str], *, last: bool = False) -> DataPath:
    """The out path before the operation: list indexes as ints, `-` as the end (as
    the last item, after the operation, with `last`)."""
    out: list[str | int] = []
    node = body
    for token in path:
        if isinstance(node, list):
            index = len(node) - last if token == "-" else _index(token)
            out.append(index if index is not None else token)
            node = node[index] if index is not None and index < len(node) else None
        else:
            out.append(token)
            node = node.get(token) if isinstance(node, dict) else None
    return tuple(out)


def _pointer(path: list[str]) -> str:
    return "/" + "/".join(t.replace("~", "~0").replace("/", "~1") for t in path)
