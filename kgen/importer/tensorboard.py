"""`kgen import`, the TensorBoard kgen renders beside a job (kgen.render.tensorboard): a
Deployment and its Service, or Kubeflow's Tensorboard, named `<job>-tensorboard` and
labelled as part of the job. Those in an imported job's folder become the job's
`tensorboard:` section when the spec with it renders them back (patches allowed, as for
the job: kgen.importer.leftover); the build then renders them again. Any other stays an
object beside the jobs (resources/), and a Tensorboard there, which no build can check
without Kubeflow's CRD, is kept out of resources/ and reported."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Any

from kgen.errors import Problem
from kgen.importer.api_shapes import BOARDS
from kgen.importer.beside import Beside, beside_object, env_name
from kgen.importer.leftover import keeps, rendered_objects
from kgen.importer.refused import wrong_shape
from kgen.load.document import Document
from kgen.render.names import tensorboard_name
from kgen.render.tensorboard import PORT
from kgen.spec.addons import TENSORBOARD_IMAGE

# What kgen.render.tensorboard writes, by kind.
API_VERSIONS = {
    "Deployment": "apps/v1",
    "Service": "v1",
    "Tensorboard": "tensorboard.kubeflow.org/v1alpha1",
}
_LOGDIR = "--logdir="


@dataclass
class Boards:
    """The TensorBoard objects among the inputs, by the environment their file is of
    (kgen.importer.beside.env_name) and the job they name as theirs; those folded into
    a job's spec are marked."""

    by_job: dict[tuple[str, str], list[Document]] = field(default_factory=dict)
    folded: set[int] = field(default_factory=set)

    def holds(self, doc: Document) -> bool:
        return any(doc is d for docs in self.by_job.values() for d in docs)

    def of(self, job: Document, name: str) -> list[Document]:
        return self.by_job.get((env_name(job.file), name), [])


def find_boards(documents: list[Document], problems: list[Problem]) -> Boards:
    """The TensorBoard objects among `documents`; one whose shape is not the API's is
    reported at its field (kgen.importer.shape) instead."""
    boards = Boards()
    for doc in documents:
        job = _job_of(doc.data)
        wrong = wrong_shape(doc, BOARDS[doc.data["kind"]]) if job else None
        problems += [wrong] if wrong is not None else []
        if job is not None and wrong is None:
            key = (env_name(doc.file), job)
            boards.by_job.setdefault(key, []).append(doc)
    return boards


def _job_of(data: Any) -> str | None:
    """The job a TensorBoard kgen rendered belongs to, if `data` looks like one."""
    if not isinstance(data, dict) or not isinstance(data.get("kind"), str):
        return None
    if data["kind"] not in API_VERSIONS:
        return None
    meta = data.get("metadata")
    labels = meta.get("labels") if isinstance(meta, dict) else None
    if data.get("apiVersion") != API_VERSIONS[data["kind"]] or not isinstance(
        labels, dict
    ):
        return None
    job = labels.get("app.kubernetes.io/part-of")
    if (
        not isinstance(job, str)
        or labels.get("app.kubernetes.io/name") != "tensorboard"
    ):
        return None
    assert isinstance(meta, dict)
    return job if meta.get("name") == tensorboard_name(job) else None


def fold_board(
    spec: dict[str, Any], docs: list[Document], env: tuple[str, str | None]
) -> tuple[dict[str, Any], list[Document]]:
    """`spec` with the `tensorboard:` section `docs` say, and `docs`, if the spec with
    it renders each of them back, patches allowed; else `spec` and none."""
    try:
        return _folded(spec, docs, env)
    except (KeyError, IndexError, TypeError, AttributeError, ValueError):
        # The last resort: what find_boards' shape check does not cover is no
        # TensorBoard kgen rendered, and no reason to refuse the job; it stays
        # beside the jobs, where the build checks it against its schema.
        return spec, []


def _folded(
    spec: dict[str, Any], docs: list[Document], env: tuple[str, str | None]
) -> tuple[dict[str, Any], list[Document]]:
    section = _section(spec, docs) if docs else None
    if section is None:
        return spec, []
    folded = {**spec, "tensorboard": section}
    rendered = rendered_objects(folded, *env)
    if rendered is None:
        return spec, []
    bodies = {(b.get("kind"), b["metadata"]["name"]): b for b in rendered}
    for doc in docs:
        body = bodies.get((doc.data["kind"], doc.data["metadata"]["name"]))
        if body is None or not keeps(doc, body):
            return spec, []
    return folded, docs


def _section(spec: dict[str, Any], docs: list[Document]) -> dict[str, Any] | None:
    kinds = sorted(doc.data["kind"] for doc in docs)
    if kinds == ["Tensorboard"]:
        return _kubeflow(spec, docs[0].data.get("spec"))
    if kinds == ["Deployment", "Service"]:
        deployment, service = sorted(docs, key=lambda d: str(d.data["kind"]))
        return _deployment(deployment.data, service.data)
    return None  # a Deployment without its Service is none kgen renders


def _kubeflow(spec: dict[str, Any], board: Any) -> dict[str, Any] | None:
    """From `logspath: pvc://<claim>/<path>`, the log folder where the job mounts the
    claim (kgen.render.volumes.tensorboard_source, backwards)."""
    logspath = board.get("logspath") if isinstance(board, dict) else None
    if not isinstance(logspath, str) or not logspath.startswith("pvc://"):
        return None
    claim, _, path = logspath.removeprefix("pvc://").partition("/")
    for volume in spec.get("volumes") or []:
        if volume.get("claim") != claim or not volume.get("mountPath"):
            continue
        sub = str(volume.get("subPath") or "")
        if sub and path != sub and not path.startswith(sub + "/"):
            continue
        inside = path[len(sub) :].strip("/")
        log_dir = posixpath.normpath(posixpath.join(volume["mountPath"], inside))
        return {"logDir": log_dir, "kind": "kubeflow"}
    return None


def _deployment(deployment: Any, service: Any) -> dict[str, Any] | None:
    """From the container's `--logdir=`, image and resources, and the Service's type."""
    template = (deployment.get("spec") or {}).get("template") or {}
    containers = (template.get("spec") or {}).get("containers") or []
    container = containers[0] if containers else {}
    args = [a for a in container.get("args") or [] if isinstance(a, str)]
    log_dirs = [a.removeprefix(_LOGDIR) for a in args if a.startswith(_LOGDIR)]
    if len(log_dirs) != 1 or not posixpath.isabs(log_dirs[0]):
        return None
    section: dict[str, Any] = {"logDir": log_dirs[0]}
    image = container.get("image")
    if image != TENSORBOARD_IMAGE and isinstance(image, str):
        section["image"] = image
    kind = (service.get("spec") or {}).get("type", "ClusterIP")
    if kind != "ClusterIP":
        section["serviceType"] = kind
    resources = container.get("resources") or {}
    for key in ("requests", "limits"):
        if resources.get(key):
            section[key] = resources[key]
    ports = [p.get("containerPort") for p in container.get("ports") or []]
    return section if PORT in ports or not ports else None


def loose_boards(
    boards: Boards,
    problems: list[Problem],
    defined: frozenset[tuple[str, str]] = frozenset(),
) -> list[Beside]:
    """The TensorBoard objects no imported job renders back, as objects beside the
    jobs (a Tensorboard among them is named instead, as every object of a CRD's kind:
    kgen.importer.beside)."""
    out = []
    for docs in boards.by_job.values():
        for doc in docs:
            if id(doc) in boards.folded:
                continue
            instead = "import it with the job whose tensorboard: renders it, or "
            found = beside_object(doc, problems, instead=instead, defined=defined)
            out += [found] if found is not None else []
    return out
