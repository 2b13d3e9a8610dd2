"""`kgen import`, the objects beside the jobs (issue 18): a ConfigMap, Namespace or
ResourceQuota becomes a file of `resources/` (an environment's, or shared when every
environment has the same one), a Secret and a kustomization are reported, so nothing
vanishes from the import silently. An object of a kind a CRD defines (a Kubeflow
Tensorboard, a ClusterTrainingRuntime) goes to resources/ when that CRD is among the
inputs, the CRD then listed under kgen.yaml crds: (crd_files); else it is named and left
out: the build checks such a kind only against its CRD (kgen.resources.check), so in
resources/ it would fail the project's first build."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgen.errors import Problem, printable
from kgen.importer.controls import control_problems
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


def beside_object(
    doc: Document,
    problems: list[Problem],
    *,
    instead: str = "",
    defined: frozenset[tuple[str, str]] = frozenset(),
) -> Beside | None:
    """The object for resources/, or None with the problem that says why not (`instead`:
    what else the user may do with an object of a CRD's kind, first in the hint).
    `defined`: the (apiVersion, kind) the CRDs among the inputs define, whose objects
    go to resources/ too, their CRD listed under kgen.yaml crds: (crd_files)."""
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
    if kind in _REFUSED or not named or not _a_kind(kind) or not data.get("apiVersion"):
        where: tuple[str, ...] = ("kind",)
        if kind not in _REFUSED and _a_kind(kind):
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
    api = str(data["apiVersion"])
    if not _core_kind(api, kind) and (api, kind) not in defined:
        problems.append(_of_a_crd(doc, kind, name, instead))
        return None
    controls = control_problems(doc, data)  # refused in resources/ as in a job
    problems += controls
    return None if controls else Beside(doc.file, kind, name, data)


class Near:
    """The objects of an import by environment (kgen.importer.beside.env_name), kind and
    name, indexed once: what a job names and inherits from (a TrainJob's runtime) when
    it was imported with the job."""

    def __init__(self, documents: list[Document] | None = None) -> None:
        self._by: dict[tuple[str, str, str], list[tuple[str | None, Any]]] = {}
        for doc in documents or []:
            data = doc.data
            meta = data.get("metadata") if isinstance(data, dict) else None
            name = meta.get("name") if isinstance(meta, dict) else None
            if isinstance(name, str) and isinstance(data.get("kind"), str):
                key = (env_name(doc.file), data["kind"], name)
                self._by.setdefault(key, []).append((_namespace(data), data))

    def of(self, job: Document) -> Callable[[str, str], list[dict[str, Any]]]:
        """The objects of a kind and name beside `job`: in its environment and, where
        both say one, its namespace."""
        env, namespace = env_name(job.file), _namespace(job.data)

        def named(kind: str, name: str) -> list[dict[str, Any]]:
            found = self._by.get((env, kind, name)) or []
            return [data for ns, data in found if ns in (None, namespace)]

        return named


def _namespace(data: Any) -> str | None:
    meta = data.get("metadata") if isinstance(data, dict) else None
    namespace = meta.get("namespace") if isinstance(meta, dict) else None
    return namespace if isinstance(namespace, str) and namespace else None


def _core_kind(api: str, kind: str) -> bool:
    """A kind the build checks without a CRD, for the Kubernetes version an imported
    project's kgen.yaml leaves at its default."""
    from kgen.check.core import DEFAULT_KUBERNETES_VERSION
    from kgen.resources.check import core_kinds

    return (api, kind) in core_kinds(DEFAULT_KUBERNETES_VERSION)


def _of_a_crd(doc: Document, kind: str, name: str, instead: str) -> Problem:
    api = printable(str(doc.data["apiVersion"]))
    return doc.problem_at(
        ("kind",),
        f"{kind} {printable(name)}: kgen build checks a {kind} of {api} only against"
        " its CRD, which the imported project does not list; not imported",
        "import-unchecked",
        hint=f"{instead}import it with its CustomResourceDefinition: both go to"
        " resources/, the CRD listed under kgen.yaml crds:",
        severity="warning",
    )


def crd_kinds(documents: list[Document]) -> frozenset[tuple[str, str]]:
    """The (apiVersion, kind) the CustomResourceDefinitions among `documents` define."""
    crds = [d.data for d in documents if isinstance(d.data, dict) and _is_crd(d.data)]
    if not crds:  # kgen.check.crds brings the CEL checks: a tenth of a second
        return frozenset()
    from kgen.check.crds import defined_kinds

    return frozenset(key for crd in crds for key in defined_kinds(crd))


def _is_crd(data: dict[str, Any]) -> bool:
    return data.get("kind") == "CustomResourceDefinition"


def crd_files(objects: list[Beside], files: dict[str, Any]) -> list[str]:
    """The resources/ files (of `files`, by path) of the CRDs that define the kind of
    another object beside the jobs: kgen.yaml lists them under crds:, so the build
    checks those objects against them (kgen.resources.check), and ships both."""
    crds = [obj.body for obj in objects if _is_crd(obj.body)]
    if not crds:
        return []
    from kgen.check.crds import defined_kinds

    used = {(str(obj.body.get("apiVersion")), obj.kind) for obj in objects}
    wanted = [crd for crd in crds if defined_kinds(crd) & used]
    # A CRD has no namespace: its file holds its body as it is (resources_files).
    found = (next(p for p in sorted(files) if files[p] == body) for body in wanted)
    return list(dict.fromkeys(found))


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
    # ASCII only, as an environment's name is: str.isalnum() also takes 'ø' and 'Ⅻ'.
    cleaned = "".join(
        ch for ch in raw.lower().replace("_", "-") if ch in _NAME_CHARACTERS
    ).strip("-")
    return cleaned[:40].rstrip("-") or "imported"


_NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")


def _a_kind(kind: str) -> bool:
    """A word of ASCII letters and digits that starts with a letter, at most 63: a
    file's name part (kgen.resources.check refuses any other kind). str.isalnum()
    also takes 'Wídget' and '٣', which the output then refused."""
    return kind.isascii() and kind.isalnum() and kind[0].isalpha() and len(kind) <= 63
