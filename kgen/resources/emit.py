"""The team's objects in each environment's output: the environment's namespace where
a namespaced object sets none, kgen's header, one file per object named as kgen names
its own (`<name>.<kind>.yaml`), so a clash with a job's object is found by path."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgen.errors import Problem
from kgen.output.emitter import dump_documents
from kgen.resources.check import TeamObject, file_name


def object_files(
    objects: Sequence[TeamObject], env: str, namespace: str | None
) -> dict[str, tuple[str, str]]:
    """{file name: (source file, text)} of the objects `env` gets."""
    out: dict[str, tuple[str, str]] = {}
    for obj in objects:
        if obj.file.env not in (None, env):
            continue
        body = _namespaced(obj, namespace)
        header = (
            f"# Copied by kgen from {obj.file.display} (environment {env}).\n"
            f"# Do not edit: change {obj.file.display} and run `kgen build`.\n"
        )
        out[file_name(obj)] = (obj.file.display, dump_documents([body], header=header))
    return out


def namespace_in(obj: TeamObject, namespace: str | None) -> str | None:
    """The namespace `obj` is deployed into in an environment whose namespace is
    `namespace`: its own where it sets one, else the environment's; None where the
    object is cluster-scoped. What the output says and kgen.gitops.overlap compares."""
    if not obj.namespaced:
        return None
    metadata = obj.body.get("metadata")
    own = metadata.get("namespace") if isinstance(metadata, dict) else None
    return own if isinstance(own, str) and own else namespace


def _namespaced(obj: TeamObject, namespace: str | None) -> dict[str, Any]:
    metadata = obj.body.get("metadata")
    into = namespace_in(obj, namespace)
    if not into or not isinstance(metadata, dict) or metadata.get("namespace"):
        return obj.body
    return {**obj.body, "metadata": {**metadata, "namespace": into}}


def unowned_output(path: str) -> Problem:
    """A file in the output that kgen did not write, and where it belongs (attack F4)."""
    return Problem(
        "kgen did not write this file and lists it in no kustomization, so nothing applies it",
        "unowned-output",
        severity="warning",
        file=path,
        hint=f"move it to {belongs(path)}; kgen then checks it, copies it into the output and lists it",
    )


def belongs(path: str) -> str:
    parts = path.split("/")
    env = parts[-2] if len(parts) >= 3 else ""
    return (
        f"resources/{env}/ (or resources/ for every environment)"
        if env
        else "resources/"
    )
