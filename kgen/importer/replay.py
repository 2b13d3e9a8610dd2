"""The patches import keeps (kgen.importer.leftover), applied to the render as `kgen
build` applies them before they are written: what they still do not give back, more
than a patch may add, or deeper than a spec may nest, is not kept."""

from __future__ import annotations

from typing import Any

from kgen.errors import DataPath
from kgen.importer.difference import Leftover, field_name
from kgen.load.limits import MAX_DEPTH

# A merge sits this deep in a job spec (`patches:`, its item, `merge:`), and the spec
# is read back under the loader's depth limit.
PATCH_DEPTH = 3


def patches_of(
    renames: list[tuple[DataPath, Any]], merge: dict[str, Any]
) -> list[dict[str, Any]]:
    ops = [
        {"op": "replace", "path": _pointer(at), "value": name} for at, name in renames
    ]
    return ([{"ops": ops}] if ops else []) + ([{"merge": merge}] if merge else [])


def _pointer(path: DataPath) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def not_kept(
    patches: list[dict[str, Any]], rendered: dict[str, Any], given: dict[str, Any]
) -> tuple[str, DataPath] | None:
    """Why the patches do not give `given` back from `rendered`, if they do not: they
    are applied as `kgen build` applies them, and what is still left over is
    compared."""
    from kgen.load.document import Origin
    from kgen.patch.apply import own_copy
    from kgen.patch.context import Patching
    from kgen.patch.marks import Budget, PatchMarks
    from kgen.patch.ops import apply_ops
    from kgen.patch.strategic import merge_into
    from kgen.spec.patches import PatchOp

    if max(_depth(p) for p in patches) + PATCH_DEPTH > MAX_DEPTH:
        return f"it is nested deeper than a job spec may be ({MAX_DEPTH} levels)", ()
    nowhere = Origin("", 1, 1, 1, 1)
    # A copy that shares nothing, as `kgen build` patches: roles alike share one pod
    # template in the render.
    body = own_copy(rendered)
    kind, name = str(body.get("kind")), str(body["metadata"]["name"])
    patching = Patching(body, kind, name, (), lambda _: nowhere, PatchMarks(), Budget())
    for patch in patches:
        try:
            ops = [PatchOp.model_validate(op) for op in patch.get("ops") or []]
        except ValueError:  # a pointer the spec would refuse (a control character)
            return "a container it renames is at a path no JSON pointer may name", ()
        problem = (
            apply_ops(patching, ops)
            if "ops" in patch
            else merge_into(patching, patch["merge"])
        )
        if problem is not None:
            return problem.message, ()
    check = Leftover(whole=True)
    check.extra(given, patching.body, ())
    if check.places:
        at = check.places[0]
        return f"the patched render still differs at {field_name(given, at)}", at
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
