"""`kgen import`: existing job objects of every registered kind (any API shape) and
their claims become job specs; inputs that share a job name become one spec plus an
overlay each. What is the kind's own (its fields and their defaults) the kind reads
(kgen/kinds/<kind>/importer.py).

What no spec field says is kept in the spec's `patches:` (kgen.importer.leftover), and
what even a patch cannot give back is reported at the input's file:line:col: nothing is
dropped silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kgen.errors import Problem
from kgen.importer.api_shapes import CLAIM, TRAIN_JOB, replica_job
from kgen.importer.beside import (
    Beside,
    Near,
    beside_object,
    crd_kinds,
    env_name,
)
from kgen.importer.claims import beside, unclaimed
from kgen.importer.job_fields import common, role_overrides, run_name, run_policy
from kgen.importer.leftover import kept_as_patches
from kgen.importer.pods import PodReader, pod_settings, without_nulls
from kgen.importer.read import read_manifests
from kgen.importer.refused import located, name_of, refused, taken, wrong_shape
from kgen.importer.shape import Unreadable
from kgen.importer.target import kind_target
from kgen.importer.tensorboard import Boards, find_boards, fold_board, loose_boards
from kgen.kinds import kind_for, kind_named
from kgen.load.document import Document
from kgen.render.job import JOB_LABEL
from kgen.render.kueue import QUEUE_LABEL


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
    # The file each job came from, by environment and name (kgen.importer.refused.taken).
    named: dict[tuple[str, str], str] = field(default_factory=dict)
    # What the CRDs among the inputs define, by (apiVersion, kind) (beside_object).
    defined: frozenset[tuple[str, str]] = frozenset()
    near: Near = field(default_factory=Near)  # the objects by environment and name


def import_files(paths: list[Path], *, cwd: Path) -> ImportResult:
    result = ImportResult()
    documents, result.problems = read_manifests(paths, cwd=cwd)
    result.defined, result.near = crd_kinds(documents), Near(documents)
    # Claims may sit in files of their own, beside the jobs that mount them.
    claims: dict[str, dict[str, Any]] = {}
    claim_docs: dict[str, list[Document]] = {}  # what a claim has beyond its spec
    for doc in documents:
        data = doc.data
        name = name_of(data) if isinstance(data, dict) else None
        if name and data.get("kind") == "PersistentVolumeClaim":
            wrong = wrong_shape(doc, CLAIM)
            if wrong is not None:
                result.problems.append(wrong)
                continue
            claims[name] = data.get("spec") or {}
            claim_docs.setdefault(name, []).append(doc)
    # A job's TensorBoard objects sit beside it; the job's spec may render them.
    boards = find_boards(documents, result.problems)
    for doc in documents:
        try:
            _import_document(
                doc,
                result,
                claims=claims,
                claim_docs=claim_docs,
                boards=boards,
            )
        except Unreadable as exc:
            kind = doc.data.get("kind")
            result.problems.append(
                located(doc, exc.path, f"cannot import this {kind}: {exc.message}")
            )
        except (KeyError, IndexError, TypeError, AttributeError, ValueError):
            # The last resort: what the shape check (kgen.importer.shape) does not
            # cover is still the input's fault, never an internal error.
            kind = doc.data.get("kind")
            result.problems.append(
                located(
                    doc,
                    (),
                    f"cannot import this {kind}: one of its fields does not have the"
                    " shape the API gives it",
                )
            )
    specs = [job.spec for job in result.jobs]
    result.objects += unclaimed(claim_docs, specs, result.problems)
    result.objects += loose_boards(boards, result.problems, result.defined)
    # A claim two jobs create is compared, and reported, once for each.
    result.problems = list(dict.fromkeys(result.problems))
    return result


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
    kind = kind_named(named) if isinstance(named, str) else None
    if kind is None:
        if named != "PersistentVolumeClaim" and not boards.holds(doc):
            found = beside_object(doc, result.problems, defined=result.defined)
            result.objects += [found] if found is not None else []
        return
    shape = replica_job(kind.replica_key) if kind.replica_key else TRAIN_JOB
    why = refused(doc, data) or wrong_shape(doc, shape)
    if why is not None:
        result.problems.append(why)
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
    target = kind_target(kind, data["apiVersion"], source, queued=queued)
    meta = data.get("metadata") or {}
    out: dict[str, Any] = {**run_name(meta), "framework": kind.framework}
    if clash := taken(given, out["name"], result.named):
        result.problems.append(clash)
        return
    out["image"] = ""  # filled from the pods below; keeps the usual key order
    labels = {
        k: v
        for k, v in without_nulls(meta.get("labels")).items()
        if k not in ("app.kubernetes.io/managed-by", JOB_LABEL)
    }
    if labels:
        out["labels"] = labels
    if without_nulls(meta.get("annotations")):
        out["annotations"] = without_nulls(meta["annotations"])
    roles = spec_in.get(kind.replica_key) or {}
    settings = [
        pod_settings(reader, role, body, kind, claims) for role, body in roles.items()
    ]
    shared = common([s for s in settings if s is not None])
    out |= shared
    if not out["image"]:
        del out["image"]
    out["roles"] = {}
    for (role, body), pod in zip(roles.items(), settings, strict=True):
        entry: dict[str, Any] = {"replicas": body.get("replicas", 1)}
        if body.get("restartPolicy", kind.default_restart) != kind.default_restart:
            entry["restartPolicy"] = body["restartPolicy"]
        entry |= role_overrides(shared, pod or {})
        out["roles"][role.lower()] = entry
    out |= run_policy(reader, spec_in, target, kind, roles)
    notes: list[Problem] = []  # what the spec cannot keep, at paths of `given`
    out |= kind.read_fields(spec_in, target, out, notes)
    if own is not None:
        near = result.near.of(given)  # the runtime it names, if imported with it
        out |= own.read_fields(source, target, out, notes, beside=near)
    problems += [_placed(given, note) for note in notes]
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
    result.named.setdefault((env_name(doc.file), out["name"]), doc.file)
    boards.folded |= {id(d) for d in board}  # rendered by the job, not beside it


def _placed(doc: Document, note: Problem) -> Problem:
    origin = doc.origin(note.path)
    return replace(note, file=doc.file, line=origin.key_line, column=origin.key_column)
