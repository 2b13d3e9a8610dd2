"""Transition rules (`x-kubernetes-validations` that read `oldSelf`, such as
`self == oldSelf`) against the committed render: the API server refuses an update that
breaks one, so a job changed that way under the same name could never be synced by
Argo CD or Flux. Checked before merge, at the spec line of the new value, naming the
committed value's file and line.

The old object is the committed render of the same job (same environment and file,
hence kind, name and namespace) in the output tree, or with `--base` the base's render.
Only jobs whose spec differs from the committed one (the marks kgen.rules.in_place
compares) are read and rendered again, so an unchanged project costs nothing here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgen.check.cel_envelope import rules_for
from kgen.check.cel_rules import RuleTree, all_rules, violations
from kgen.check.cel_runtime import CelError, compile_rule
from kgen.check.trace import trace
from kgen.errors import DataPath, Problem, format_path
from kgen.load.document import Document
from kgen.load.files import read_input
from kgen.load.yaml import load_bytes
from kgen.output.index import read_fingerprints
from kgen.pipeline.locate import locate, merge_environments
from kgen.pipeline.records import Finding, Render, RenderedJob, RunResult
from kgen.render.base import Manifest

if TYPE_CHECKING:
    from kgen.base.snapshot import Snapshot
    from kgen.load.project import Project

_HINT = (
    "the API server refuses this update, so Argo CD or Flux could never sync it:"
    " rename the job per change (a new runId, or kgen.yaml jobNames: content-hash),"
    " or delete the object and let it be created again"
)
CODE = "immutable-field-changed"


def transition_problems(
    project: Project, result: RunResult, base: Snapshot | None = None
) -> list[Problem]:
    """Transition rules broken by each job changed in place, against the base's render
    or else the committed output tree."""
    changed = _changed(project, result, None if base is None else base.marks)
    base_files = None if base is None else base.files
    if not changed:
        return []
    findings = []
    for rendered in _rendered(project, {(r.env.name, r.job.file) for r in changed}):
        job = rendered.manifests[0]
        trees = [
            t
            for t in rules_for(job, target=rendered.env.target.name, crds=project.crds)
            if t is not None and _has_transitions(t)
        ]
        old = _committed(project, rendered, job, base_files) if trees else None
        if old is None:
            continue
        for problem in _broken(job, trees, old):
            located = locate(rendered.job, rendered.layers, [problem])
            findings += [
                Finding(p, rendered.job.file, rendered.env.name) for p in located
            ]
    return merge_environments(findings, {})


def _changed(
    project: Project, result: RunResult, base_marks: dict[str, str] | None
) -> list[Render]:
    """The renders whose job spec differs from the committed (or base) one."""
    output = project.spec.output
    marked = [
        (render, f"{output}/{render.env.name}/{mark[0]}", mark[1])
        for render in result.renders
        if (mark := render.facts.fingerprint) is not None
    ]
    if base_marks is None:
        only = [path for _, path, _ in marked]
        committed = read_fingerprints(project.root, output, only=only)
    else:
        committed = {f"{output}/{key}": mark for key, mark in base_marks.items()}
    return [
        render
        for render, path, mark in marked
        if committed.get(path) not in (None, mark)
    ]


def _rendered(project: Project, pairs: set[tuple[str, str]]) -> list[RenderedJob]:
    from kgen.pipeline.run import run

    again = run(project, select=lambda env, file: (env, file) in pairs, keep=True)
    return again.rendered


def _has_transitions(tree: RuleTree) -> bool:
    for rule in all_rules(tree):
        try:
            if compile_rule(rule.rule).transition:
                return True
        except CelError:
            continue
    return False


def _committed(
    project: Project,
    rendered: RenderedJob,
    job: Manifest,
    base_files: dict[str, str] | None,
) -> Document | None:
    """The committed render of this job, read as input (a regular file inside the
    project, bounded); None where there is none or it does not parse."""
    output = project.spec.output
    key = f"{rendered.env.name}/{job.filename}"
    if base_files is not None:
        text = base_files.get(key)
        raw = None if text is None else text.encode()
        display = f"{output}/{key} (base)"
    else:
        display = f"{output}/{key}"
        raw = read_input(project.root / display, display, root=project.root).raw
    if raw is None:
        return None
    doc, _ = load_bytes(raw, display)
    return doc if doc is not None and isinstance(doc.data, dict) else None


def _broken(job: Manifest, trees: list[RuleTree], old: Document) -> list[Problem]:
    problems = []
    for tree in trees:
        for found in violations(tree, job.body, old.data):
            if not found.transition:
                continue
            problems.append(_problem(job, found.path, found.message, old))
    return problems


def _problem(job: Manifest, path: DataPath, message: str, old: Document) -> Problem:
    where = format_path(path) or "the top level"
    origin = old.origin(path)
    return Problem(
        f"the {job.kind} '{job.name}' changes {where} in place, which its CRD forbids"
        f" ({message}); the committed value is at {old.file}:{origin.line}",
        CODE,
        path=trace(job, path),
        hint=_HINT,
    )
