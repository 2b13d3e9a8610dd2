"""The host-access rules over what the patches wrote: a patch must not slip a hostPath
volume, a host namespace or a privileged container past the rules that read the spec
(kgen.rules.pod). Each is reported at the patch's line, under the rule's own code, so
`lint.ignore` silences it the same way, with a reason."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kgen.errors import DataPath, Problem
from kgen.render.base import Manifest

_HOST_NAMESPACES = ("hostPID", "hostIPC", "hostNetwork")


def host_access(objects: list[Manifest]) -> list[Problem]:
    problems = []
    for manifest in objects:
        if manifest.patched is None:
            continue
        for path, code, message in _host_places(manifest.body):
            origin = manifest.patched.origin(path)
            if origin is None:
                continue  # the spec set it: the spec's rules report it
            problems.append(
                Problem(
                    f"the rendered {manifest.kind} '{manifest.name}': a patch {message}",
                    code,
                    file=origin.file,
                    line=origin.line,
                    column=origin.column,
                    hint="keep host access out of patches, or allow it with"
                    " lint.ignore and a reason",
                )
            )
    return problems


def _host_places(body: Any) -> Iterator[tuple[DataPath, str, str]]:
    for pod, base in _pod_specs(body):
        for index, volume in enumerate(_list(pod.get("volumes"))):
            if isinstance(volume, dict) and "hostPath" in volume:
                name = volume.get("name")
                yield (
                    (*base, "volumes", index, "hostPath"),
                    "host-path",
                    f"makes volume '{name}' a hostPath: the pod reads and writes the node's files",
                )
        for key in _HOST_NAMESPACES:
            if pod.get(key) is True:
                yield (
                    (*base, key),
                    "host-namespaces",
                    f"sets {key}: the pods share the node's namespace",
                )
        for key in ("initContainers", "containers"):
            for index, container in enumerate(_list(pod.get(key))):
                context = (
                    container.get("securityContext")
                    if isinstance(container, dict)
                    else None
                )
                if isinstance(context, dict) and context.get("privileged") is True:
                    yield (
                        (*base, key, index, "securityContext", "privileged"),
                        "privileged-container",
                        "makes a container privileged: it is root on the node",
                    )


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


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
