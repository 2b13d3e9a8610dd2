"""The host-access rules over what the patches wrote: a patch must not slip a hostPath
volume, a host namespace or a privileged container past the rules that read the spec
(kgen.rules.pod). Each is reported at the patch's line, under the rule's own code, so
`lint.ignore` silences it the same way, with a reason."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from kgen.errors import DataPath, Problem
from kgen.render.base import Manifest
from kgen.rules.pod_security import Words, pod_spec_problems

# The rules' own wording; a patched object's pods are all of its pods.
_WORDS = Words("every pod of the object", lambda code: "lint.ignore")


def host_access(objects: list[Manifest]) -> list[Problem]:
    """The pod-security rules (kgen.rules.pod_security, as over the spec) over what the
    patches wrote, each at the patch's line; what the spec set is the spec's rules'."""
    problems = []
    for manifest in objects:
        if manifest.patched is None:
            continue
        for pod, base in _pod_specs(manifest.body):
            for problem in pod_spec_problems(pod, base, _WORDS):
                origin = manifest.patched.origin(problem.path)
                if origin is None:
                    continue  # the spec set it: the spec's rules report it
                problems.append(
                    replace(
                        problem,
                        message=f"the rendered {manifest.kind} '{manifest.name}',"
                        f" as a patch left it: {problem.message}",
                        path=(),
                        at_key=False,
                        file=origin.file,
                        line=origin.line,
                        column=origin.column,
                    )
                )
    return problems


def _pod_specs(body: Any) -> Iterator[tuple[dict[str, Any], DataPath]]:
    """Every map with a `containers` list: the pod specs of the object's templates."""
    stack: list[tuple[Any, DataPath]] = [(body, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("containers"), list):
                yield node, path
                continue
            stack += [
                (v, (*path, k)) for k, v in node.items() if isinstance(v, dict | list)
            ]
        elif isinstance(node, list):
            stack += [
                (v, (*path, i))
                for i, v in enumerate(node)
                if isinstance(v, dict | list)
            ]
