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

from typing import TYPE_CHECKING, Any

from kgen.check.cel_envelope import envelope_rules
from kgen.check.cel_rules import RuleTree, all_rules, violations
from kgen.check.cel_runtime import CelError, compile_rule
from kgen.check.trace import trace
from kgen.errors import DataPath, Problem, format_path
from kgen.kinds.targets import TARGETS
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
    changed = [
        (render, trees)
        for render in _changed(project, result, None if base is None else base.marks)
        if CODE not in render.facts.ignore  # a job's own lint.ignore
        and (trees := _transition_trees(project, render))
    ]
    if not changed:
        return []
    base_files = None if base is None else base.files
    emitted = {id(render): job for render, _ in changed if (job := _emitted(render))}
    missing = {(r.env.name, r.job.file) for r, _ in changed if id(r) not in emitted}
    again = {
        (r.env.name, r.job.file): r.manifests[0] for r in _rendered(project, missing)
    }
    findings = []
    for render, trees in changed:
        job = emitted.get(id(render)) or again.get((render.env.name, render.job.file))
        old = _committed(project, render, job, base_files) if job else None
        if isinstance(old, Problem):  # unreadable: said, never skipped in silence
            located = locate(render.job, render.layers, [old])
            findings += [Finding(p, render.job.file, render.env.name) for p in located]
        if job is None or not isinstance(old, Document):
            continue
        where = " of the base" if base is not None else ""
        for problem in _broken(job, trees, old, where):
            located = locate(render.job, render.layers, [problem])
            findings += [Finding(p, render.job.file, render.env.name) for p in located]
    return merge_environments(findings, result.job_environments())


def _transition_trees(project: Project, render: Render) -> list[RuleTree]:
    """The rule trees with transition rules that apply to this render's job."""
    kind, target = render.facts.load.kind, render.facts.load.target
    api_version = TARGETS[target].api_version if target in TARGETS else ""
    trees = [
        envelope_rules(kind, target),
        getattr(project.crds.get((api_version, kind)), "rules", None),
    ]
    return [tree for tree in trees if tree is not None and _has_transitions(tree)]


def _emitted(render: Render) -> Manifest | None:
    """The job object as the run emitted it (a build emits; validate does not)."""
    assert render.facts.fingerprint is not None
    filename = render.facts.fingerprint[0]
    for out in render.facts.files:
        if out.filename == filename:
            import yaml  # the emitter's, loaded already by a run that emits

            body = yaml.load(out.text, Loader=yaml.CSafeLoader)
            if isinstance(body, dict):
                return Manifest(out.kind, out.name, body, out.spec_path)
    return None


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
    if not pairs:
        return []
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
    project: Project, render: Render, job: Manifest, base_files: dict[str, str] | None
) -> Document | Problem | None:
    """The committed render of this job, read as input (a regular file inside the
    project, bounded); None where the base has none; a warning where it cannot be
    read or is no YAML mapping (a link, a pipe, a huge or hand-mangled file): the
    immutable fields go unchecked, and validate says so."""
    output = project.spec.output
    key = f"{render.env.name}/{job.filename}"
    display = f"{output}/{key}"
    if base_files is not None:
        text = base_files.get(key)
        raw = None if text is None else text.encode()
        if raw is None:
            return None
    else:
        reading = read_input(project.root / display, display, root=project.root)
        if reading.raw is None or reading.problem is not None:
            why = reading.problem.message if reading.problem else "it cannot be read"
            return _unchecked(display, why)
        raw = reading.raw
    doc, _ = load_bytes(raw, display)
    if doc is None or not isinstance(doc.data, dict):
        return _unchecked(display, "it is not a YAML mapping")
    return doc


def _unchecked(display: str, why: str) -> Problem:
    return Problem(
        f"the committed render {display} cannot be read ({why}): its immutable"
        " fields are not checked against this job",
        CODE,
        hint=f"restore it from git (`git checkout -- {display}`); or, to replace the"
        f" object anyway, add {CODE} to the job's lint.ignore with a reason",
    )


def _broken(
    job: Manifest, trees: list[RuleTree], old: Document, where: str
) -> list[Problem]:
    problems = []
    for tree in trees:
        for found in violations(tree, job.body, old.data):
            if not found.transition:
                continue
            problems.append(_problem(job, found.path, found.message, old, where))
    return problems


def _problem(
    job: Manifest, path: DataPath, message: str, old: Document, committed: str
) -> Problem:
    where = format_path(path) or "the top level"
    origin = old.origin(path)
    return Problem(
        f"the {job.kind} '{job.name}' changes {where} in place, which its CRD forbids"
        f" ({message}); the committed value is at {old.file}:{origin.line}{committed}",
        CODE,
        path=trace(job, _changed_at(job.body, old.data, path)),
        hint=_HINT,
    )


def _changed_at(new: Any, old: Any, path: DataPath) -> DataPath:
    """`path` down to the first key whose value changed (spec.trainer to
    spec.trainer.image), so the error points at the spec line that changed it."""
    for key in path:
        new = new.get(key) if isinstance(new, dict) else None
        old = old.get(key) if isinstance(old, dict) else None
    while isinstance(new, dict) and isinstance(old, dict):
        changed = next((k for k in new if new[k] != old.get(k)), None)
        if changed is None:
            break
        path, new, old = (*path, changed), new[changed], old.get(changed)
    return path
