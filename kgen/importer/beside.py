"""`kgen import`, the objects beside the jobs (issue 18): a ConfigMap, Namespace or
ResourceQuota becomes a file of `resources/` (an environment's, or shared when every
environment has the same one), a Secret and a kustomization are reported, so nothing
vanishes from the import silently."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgen.errors import Problem
from kgen.load.document import Document
from kgen.spec.fields import dns_subdomain_problem

# What import never copies into resources/, and why.
_REFUSED = {
    "Secret": "a Secret's values would go into git; create it in the cluster and refer to it by name",
    "Kustomization": "kgen writes each environment's kustomization; pass the files it lists to kgen import",
}


@dataclass(frozen=True)
class Beside:
    """An object of an input file that is no job and no claim."""

    file: str
    kind: str
    name: str
    body: dict[str, Any]


def beside_object(doc: Document, problems: list[Problem]) -> Beside | None:
    data = doc.data
    if not isinstance(data, dict):
        return None
    kind, meta = data.get("kind"), data.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    if not isinstance(kind, str):
        if kind is not None:  # `kind: [PyTorchJob]`: no object kgen can name
            problems.append(
                doc.problem_at(
                    ("kind",),
                    "cannot import this object: kind must be a string",
                    "import-unsupported",
                )
            )
        return None
    # The name and kind make a file name: only an object name and a kind's word.
    named = isinstance(name, str) and dns_subdomain_problem(name) is None
    if (
        kind in _REFUSED
        or not named
        or not kind.isalnum()
        or not data.get("apiVersion")
    ):
        where: tuple[str, ...] = ("kind",)
        if kind not in _REFUSED and kind.isalnum():
            where = ("metadata", "name") if isinstance(name, str) else ("metadata",)
        reason = _REFUSED.get(
            kind,
            "it has no apiVersion, kind or metadata.name kgen can name a file after",
        )
        if kind == "Kustomization":
            reason += _listed(data.get("resources"))
        problems.append(
            doc.problem_at(
                where if data.get("apiVersion") else (),
                f"cannot import this {kind}: {reason}",
                "import-unsupported",
            )
        )
        return None
    assert isinstance(name, str)
    return Beside(doc.file, kind, name, data)


def _listed(resources: Any) -> str:
    """The files a kustomization lists, so the user knows what to pass instead."""
    names = (
        [r for r in resources if isinstance(r, str)]
        if isinstance(resources, list)
        else []
    )
    return (
        f" ({', '.join(names[:10])}{', ...' if len(names) > 10 else ''})"
        if names
        else ""
    )


def resources_files(
    objects: list[Beside],
    env_of: dict[str, str],
    namespaces: dict[str, str | None],
) -> dict[str, dict[str, Any]]:
    """resources/ files by path: shared when every environment has the same object,
    else per environment; the environment's namespace is left for kgen to give."""
    per_env: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for obj in objects:
        env = env_of[obj.file]
        body = _without_namespace(obj.body, namespaces.get(env))
        per_env.setdefault((obj.kind, obj.name), {})[env] = body
    files: dict[str, dict[str, Any]] = {}
    everywhere = set(namespaces)
    for (kind, name), bodies in sorted(per_env.items()):
        file = f"{name}.{kind.lower()}.yaml"
        first = next(iter(bodies.values()))
        if set(bodies) == everywhere and all(b == first for b in bodies.values()):
            files[f"resources/{file}"] = first
            continue
        for env, body in sorted(bodies.items()):
            files[f"resources/{env}/{file}"] = body
    return files


def _without_namespace(body: dict[str, Any], namespace: str | None) -> dict[str, Any]:
    meta = body.get("metadata")
    if (
        not isinstance(meta, dict)
        or meta.get("namespace") != namespace
        or not namespace
    ):
        return body
    return {**body, "metadata": {k: v for k, v in meta.items() if k != "namespace"}}


def env_name(file: str) -> str:
    """The folder an input sits in names its environment (manifests/<env>/job.yaml);
    a file at the top level is an environment of its own."""
    path = Path(file)
    raw = (
        path.parent.name
        if path.parent.name not in ("", ".")
        else path.name.split(".")[0]
    )
    cleaned = "".join(
        ch for ch in raw.lower().replace("_", "-") if ch.isalnum() or ch == "-"
    ).strip("-")
    return cleaned[:40] or "imported"
