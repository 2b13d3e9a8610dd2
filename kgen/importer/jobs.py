"""`kgen import`: existing job objects of every registered kind (any API shape) and
their claims become job specs; inputs that share a job name become one spec plus an
overlay each. What is the kind's own (its fields and their defaults) the kind reads
(kgen/kinds/<kind>/importer.py).

What no spec field says is kept in the spec's `patches:` (kgen.importer.leftover), and
what even a patch cannot give back is reported at the input's file:line:col: nothing is
dropped silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgen.errors import Problem
from kgen.importer.beside import Beside, beside_object
from kgen.importer.claims import beside, unclaimed
from kgen.importer.leftover import kept_as_patches
from kgen.importer.pods import PodReader, pod_settings
from kgen.importer.read import read_manifests
from kgen.importer.tensorboard import Boards, find_boards, fold_board, loose_boards
from kgen.kinds import kind_for, kind_named
from kgen.kinds.base import Kind
from kgen.kinds.targets import RUN_FIELDS, TARGETS, target_of_manifest
from kgen.load.document import Document
from kgen.render.kueue import QUEUE_LABEL

# The rule a job spec's `name` is held to (DNS-1035), so an imported job is one kgen
# reads back.
from kgen.spec.fields import _dns1035 as job_name_problem


@dataclass
class Imported:
    """One input job: its spec, where it came from, and its environment settings."""

    file: str
    spec: dict[str, Any]
    target: str
    namespace: str | None


@dataclass
class ImportResult:
    jobs: list[Imported] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # The objects beside the jobs, for resources/ (kgen.importer.beside).
    objects: list[Beside] = field(default_factory=list)
    # Fields of the inputs no spec field says, kept as patches (kgen.importer.leftover).
    kept: int = 0


def import_files(paths: list[Path], *, cwd: Path) -> ImportResult:
    result = ImportResult()
    documents, result.problems = read_manifests(paths, cwd=cwd)
    # Claims may sit in files of their own, beside the jobs that mount them.
    claims: dict[str, dict[str, Any]] = {}
    claim_docs: dict[str, list[Document]] = {}  # what a claim has beyond its spec
    for doc in documents:
        data = doc.data
        name = _name(data) if isinstance(data, dict) else None
        if name and data.get("kind") == "PersistentVolumeClaim":
            claims[name] = data.get("spec") or {}
            claim_docs.setdefault(name, []).append(doc)
    # A job's TensorBoard objects sit beside it; the job's spec may render them.
    boards = find_boards(documents)
    for doc in documents:
        try:
            _import_document(
                doc, result, claims=claims, claim_docs=claim_docs, boards=boards
            )
        except (KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:
            # Manifests from anywhere: a shape the API does not have is the input's fault.
            start = doc.origin(())
            message = f"cannot import this {doc.data.get('kind')}: it does not have the API's shape ({type(exc).__name__}: {exc})"
            result.problems.append(
                Problem(
                    message,
                    "import-unsupported",
                    file=doc.file,
                    line=start.line,
                    column=start.column,
                )
            )
    specs = [job.spec for job in result.jobs]
    result.objects += unclaimed(claim_docs, specs, result.problems)
    result.objects += loose_boards(boards, result.problems)
    # A claim two jobs create is compared, and reported, once for each.
    result.problems = list(dict.fromkeys(result.problems))
    return result


def _name(data: dict[str, Any]) -> str | None:
    meta = data.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) else None


def _import_document(
    doc: Document,
    result: ImportResult,
    *,
    claims: dict[str, dict[str, Any]],
    claim_docs: dict[str, list[Document]],
    boards: Boards,
) -> None:
    data = doc.data
    named = data.get("kind") if isinstance(data, dict) else None
    kind = kind_named(named) if named is not None else None
    if kind is None:
        if named != "PersistentVolumeClaim" and not boards.holds(doc):
            found = beside_object(doc, result.problems)
            result.objects += [found] if found is not None else []
        return
    refused = _unnamed(doc, data) or _bad_api_version(doc, data)
    if refused is not None:
        result.problems.append(refused)
        return
    own, source, given = None, data.get("spec") or {}, doc
    if not kind.replica_key:  # a TrainJob: read as the job it renders from
        own, kind = kind, kind_for(kind.framework)
        doc = own.replica_view(doc, kind)
        data = doc.data
    problems: list[Problem] = []
    reader = PodReader(doc, problems)
    spec_in = data.get("spec") or {}
    queued = QUEUE_LABEL in ((data.get("metadata") or {}).get("labels") or {})
    target = _kind_target(kind, data["apiVersion"], source, queued=queued)
    out: dict[str, Any] = {
        "name": data["metadata"]["name"],
        "framework": kind.framework,
    }
    out["image"] = ""  # filled from the pods below; keeps the usual key order
    meta = data.get("metadata") or {}
    labels = {
        k: v
        for k, v in (meta.get("labels") or {}).items()
        if k not in ("app.kubernetes.io/managed-by", "kgen.io/job")
    }
    if labels:
        out["labels"] = labels
    if meta.get("annotations"):
        out["annotations"] = meta["annotations"]
    roles = spec_in.get(kind.replica_key) or {}
    settings = [
        pod_settings(reader, role, body, kind, claims) for role, body in roles.items()
    ]
    shared = _common([s for s in settings if s is not None])
    out |= shared
    if not out["image"]:
        del out["image"]
    out["roles"] = {}
    for (role, body), pod in zip(roles.items(), settings, strict=True):
        entry: dict[str, Any] = {"replicas": body.get("replicas", 1)}
        if body.get("restartPolicy", kind.default_restart) != kind.default_restart:
            entry["restartPolicy"] = body["restartPolicy"]
        entry |= _role_overrides(shared, pod or {})
        out["roles"][role.lower()] = entry
    out |= _run_policy(reader, spec_in, target, kind, roles)
    out |= kind.read_fields(spec_in, target, out)
    if own is not None:
        out |= own.read_fields(source, target, out)
    env = (target, meta.get("namespace"))
    out, board = fold_board(out, boards.of(given, out["name"]), env)
    others = beside(claim_docs, doc) | {
        (d.data["kind"], d.data["metadata"]["name"]): d for d in board
    }
    kept, problems, count = kept_as_patches(given, out, env, problems, others)
    out |= {"patches": kept} if kept else {}
    result.problems += problems
    result.kept += count
    result.jobs.append(Imported(doc.file, out, target, meta.get("namespace")))
    boards.folded |= {id(d) for d in board}  # rendered by the job, not beside it


def _kind_target(
    kind: Kind, api_version: str, spec: dict[str, Any], *, queued: bool
) -> str:
    """The target by layout, unless the kind is not on it: MPIJob v1 keeps its own
    top-level cleanPodPolicy beside runPolicy, which is no legacy layout."""
    target = target_of_manifest(api_version, spec, queued=queued)
    if target in TARGETS and target not in kind.targets:
        same = [t for t in TARGETS if t in kind.targets]
        same = [t for t in same if TARGETS[t].api_version == api_version]
        return same[0] if same else target
    return target


def _unnamed(doc: Document, data: dict[str, Any]) -> Problem | None:
    """Why the job cannot be named by its metadata.name: none, or one a job spec may
    not have (it names the spec's file, so '' or '..' would be a file kgen never
    reads, and 300 characters one the filesystem refuses)."""
    name = _name(data)
    if name is None:
        message = f"cannot import a {data['kind']} without metadata.name"
        return _at(doc, (), message)
    problem = job_name_problem(name)
    if problem is None:
        return None
    return _at(
        doc,
        ("metadata", "name"),
        f"cannot import this {data['kind']}: {problem}",
        hint="a job's name is the name of its spec in jobs/; rename the object",
    )


def _bad_api_version(doc: Document, data: dict[str, Any]) -> Problem | None:
    """Why the job's apiVersion names no API target kgen renders, if it does not: the
    target becomes an overlay, named after it, that sets it."""
    version = data.get("apiVersion")
    known = sorted({target.api_version for target in TARGETS.values()})
    if version in known:
        return None
    if "apiVersion" not in data:
        why = "it has no apiVersion"
    elif isinstance(version, str):
        why = f"its apiVersion '{version}' is not one kgen renders"
    else:
        why = "its apiVersion is not a string"
    return _at(
        doc,
        ("apiVersion",) if "apiVersion" in data else (),
        f"cannot import this {data['kind']}: {why}",
        hint=f"kgen renders {', '.join(known)}",
    )


def _at(
    doc: Document, path: tuple[str, ...], message: str, hint: str | None = None
) -> Problem:
    start = doc.origin(path)
    return Problem(
        message,
        "import-unsupported",
        file=doc.file,
        line=start.line,
        column=start.column,
        hint=hint,
    )


def _common(pods: list[dict[str, Any]]) -> dict[str, Any]:
    """What every role's pod shares: it becomes job-wide."""
    if not pods:
        return {}
    return {k: v for k, v in pods[0].items() if all(p.get(k) == v for p in pods[1:])}


def _role_overrides(shared: dict[str, Any], pod: dict[str, Any]) -> dict[str, Any]:
    allowed = (
        "image",
        "command",
        "args",
        "env",
        "resources",
        "nodeSelector",
        "tolerations",
        "affinity",
        "podLabels",
        "podAnnotations",
        "securityContext",
        "podSecurityContext",
        "sharedMemory",
        "containers",
        "initContainers",
        "ports",
        "livenessProbe",
        "readinessProbe",
        "startupProbe",
    )
    return {k: v for k, v in pod.items() if k in allowed and shared.get(k) != v}


def _run_policy(
    reader: PodReader,
    spec: dict[str, Any],
    target: str,
    kind: Kind,
    roles: dict[str, Any],
) -> dict[str, Any]:
    layout = TARGETS[target].run_fields_at if target in TARGETS else "spec"
    source = spec.get("runPolicy", {}) if layout == "runPolicy" else spec
    policy = {k: source[k] for k in RUN_FIELDS if k in source}
    policy.setdefault("cleanPodPolicy", kind.operator_clean_pod_policy(target))
    present = [role.name for role in kind.roles if role.key in roles]
    if policy.get("cleanPodPolicy") == kind.default_clean_pod_policy(target, present):
        del policy["cleanPodPolicy"]
    if "ttlSecondsAfterFinished" in policy:
        policy["ttlAcknowledged"] = True
    if source.get("suspend"):
        reader.unsupported(
            ("spec", "runPolicy", "suspend"), "a suspended job (suspend: true)"
        )
    return {"runPolicy": policy} if policy else {}
