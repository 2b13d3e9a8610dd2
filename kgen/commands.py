"""One function per command: load, run the pipeline, write or compare, report once;
return the exit code. No click here, so each command is testable as a plain function."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from kgen.errors import Problem, UsageError, printable
from kgen.load.project import Project, load_project
from kgen.outcome import EXIT_OK, EXIT_PROBLEMS, Options, Outcome, report, run_scope
from kgen.output.emitter import dump_documents
from kgen.output.index import with_index
from kgen.output.root import argocd_problems, output_problems
from kgen.output.tree import build_tree
from kgen.pipeline.run import run
from kgen.rules.in_place import changed_in_place, fingerprints
from kgen.scope import scope_for

# kgen.output.writer (and kgen.output.atomic, kgen.output.compare) load only for the commands that write or
# compare the tree: a one-spec validate does neither.
if TYPE_CHECKING:
    from kgen.output.writer import Drift

__all__ = ["Options"]  # for kgen.cli


def _load_and_run(
    options: Options,
    *,
    jobs: tuple[str, ...] = (),
    paths: tuple[Path, ...] = (),
    keep: bool = False,
    emit: bool = False,
    output: bool = False,
) -> Outcome:
    """Load the project and run the pipeline; `keep` keeps full renders, `emit` their
    YAML (see pipeline.run); `output` checks where the output root is too."""
    project, problems = load_project(
        options.root, extra_crds=options.crds, use_cache=options.cache
    )
    if project is None:
        return Outcome(None, None, problems)
    if output:
        problems = [
            *problems,
            *output_problems(project, extra_crds=options.crds),
            *argocd_problems(project, extra_crds=options.crds),
        ]
    for env in options.envs:
        if env not in project.spec.environments:
            known = ", ".join(project.spec.environments)
            raise UsageError(f"unknown environment '{env}' (environments: {known})")
    names = [j.name for j in project.jobs]
    for job in jobs:
        if job not in names and not problems:
            raise UsageError(f"unknown job '{job}' (jobs: {', '.join(names)})")
    if not paths:
        result = run(
            project,
            envs=options.envs or None,
            jobs=jobs or None,
            keep=keep,
            emit=emit,
        )
        return Outcome(project, result, problems + result.problems)
    scope = scope_for(project, list(paths), cwd=Path.cwd())
    if scope.empty:
        return Outcome(project, None, [p for p in problems if scope.reports(p)])
    result = run(project, envs=options.envs or None, select=scope.selects, keep=keep)
    return Outcome(
        project, result, [p for p in problems + result.problems if scope.reports(p)]
    )


def build(options: Options, *, check: bool = False, show_diff: bool = False) -> int:
    """Render every job for every environment; write the tree, or with `check` compare."""
    outcome, files = _render_tree(options)
    if files is None or outcome.project is None or outcome.result is None:
        report(options, outcome)
        return EXIT_PROBLEMS
    output = outcome.project.spec.output
    if check:
        from kgen.output.writer import check_tree

        drift = check_tree(options.root, files, output=output, show=show_diff)
        outcome.problems = [*(outcome.problems or []), *drift.problems]
        report(options, outcome)
        if drift.problems:
            return EXIT_PROBLEMS
        return _report_drift(options, outcome.project, files, drift)
    from kgen.output.writer import write_tree

    outcome.problems = [*(outcome.problems or []), *_changed_in_place(outcome)]
    summary, write_problems = write_tree(options.root, files, output=output)
    outcome.problems += write_problems
    report(options, outcome)
    if write_problems:
        return EXIT_PROBLEMS
    options.err.write(
        f"kgen: {run_scope(outcome.result)}: {len(summary.written)} files written,"
        f" {len(summary.removed)} removed, {summary.unchanged} unchanged\n"
    )
    return EXIT_OK


def _render_tree(options: Options) -> tuple[Outcome, dict[str, str] | None]:
    """Load, run and lay out the output tree (index included); no tree on errors."""
    outcome = _load_and_run(options, emit=True, output=True)
    if outcome.failed or outcome.project is None or outcome.result is None:
        return outcome, None
    output = outcome.project.spec.output
    files, tree_problems = build_tree(outcome.result, output=output)
    outcome.problems = [*(outcome.problems or []), *tree_problems]
    if outcome.failed:
        return outcome, None
    return outcome, with_index(
        files, output, fingerprints=fingerprints(outcome.result, output)
    )


def _changed_in_place(outcome: Outcome) -> list[Problem]:
    if outcome.project is None or outcome.result is None or outcome.failed:
        return []
    ignored = outcome.project.spec.lint.ignore
    return [
        p
        for p in changed_in_place(outcome.project, outcome.result)
        if p.code not in ignored
    ]


def _report_drift(
    options: Options, project: Project, files: dict[str, str], drift: Drift
) -> int:
    diff = drift.diff
    if diff.clean:
        options.err.write(
            f"kgen: {project.spec.output}/ is up to date ({len(files)} files)\n"
        )
        return EXIT_OK
    options.err.write(diff.listing())
    options.out.write(drift.text)
    options.err.write(
        "kgen: the committed output is out of date; run `kgen build` and commit the result\n"
    )
    return EXIT_PROBLEMS


def validate(
    options: Options, *, strict: bool = False, paths: tuple[Path, ...] = ()
) -> int:
    """Load, validate and render everything in memory (or what `paths` touch); write
    nothing. Warnings alone exit 0, unless `strict`."""
    outcome = _load_and_run(options, paths=paths, output=True)
    outcome.problems = [*(outcome.problems or []), *_changed_in_place(outcome)]
    report(options, outcome)
    failing = [p for p in outcome.problems or [] if strict or p.severity == "error"]
    if outcome.result is not None and not failing:
        options.err.write(f"kgen: {run_scope(outcome.result)}: valid\n")
    elif outcome.result is None and paths and not failing:
        options.err.write(
            "kgen: none of the given paths is a job spec, overlay or kgen.yaml\n"
        )
    return EXIT_PROBLEMS if failing else EXIT_OK


def render(options: Options, job: str | None) -> int:
    """Print one job's manifests, or every job's, for one environment as multi-document
    YAML; problems go to stderr, whatever the format, so stdout stays a manifest stream."""
    outcome = _load_and_run(options, jobs=(job,) if job else (), keep=True)
    report(options, outcome, to_stderr=True)
    if outcome.result is None or outcome.failed:
        return EXIT_PROBLEMS
    manifests = [
        m.body for rendered in outcome.result.rendered for m in rendered.manifests
    ]
    options.out.write(dump_documents(manifests))
    return EXIT_OK


def schema(options: Options, *, out: Path, check: bool = False) -> int:
    """Write the JSON Schemas for editors and the job envelopes into `out`, or with
    `check` report which differ."""
    from kgen.reference.schemas import all_schemas, dump

    files = {out / name: dump(body) for name, body in all_schemas().items()}
    return _write_or_check(options, files, check=check, fix="kgen schema")


def argocd(options: Options, *, check: bool = False) -> int:
    """Write Argo CD Applications (or an ApplicationSet) and the health checks."""
    from kgen.gitops.argocd import argocd_files

    outcome = _load_and_run(options, keep=True)
    if outcome.failed or outcome.project is None or outcome.result is None:
        report(options, outcome)
        return EXIT_PROBLEMS
    if outcome.project.spec.argocd is None:
        raise UsageError("kgen.yaml has no argocd: section (repoURL at least)")
    clashes = argocd_problems(outcome.project, extra_crds=options.crds)
    if clashes:
        report(options, Outcome(outcome.project, None, clashes))
        return EXIT_PROBLEMS
    generated = argocd_files(outcome.project, outcome.result)
    files = {options.root / name: text for name, text in generated.items()}
    return _write_or_check(options, files, check=check, fix="kgen argocd")


def _write_or_check(
    options: Options, files: dict[Path, str], *, check: bool, fix: str
) -> int:
    """Write generated files that differ, or with `check` list them and exit 1; write
    nothing if any of them is a link, below one or not a regular file."""
    from kgen.output.generated import write_or_check

    problems, stale = write_or_check(files, root=options.root, check=check)
    if problems:
        report(options, Outcome(None, None, problems))
        return EXIT_PROBLEMS
    for path in stale:
        options.err.write(f"{'stale' if check else 'wrote'}: {printable(str(path))}\n")
    if check and stale:
        options.err.write(f"kgen: generated files are out of date; run `{fix}`\n")
        return EXIT_PROBLEMS
    return EXIT_OK


def explain(options: Options, job: str, *, field: str | None = None) -> int:
    """Where each value of JOB in one environment came from, and the run-time env."""
    from kgen.report.explain import explain as write_explanation

    outcome = _load_and_run(options, jobs=(job,), keep=True)
    report(options, outcome, to_stderr=True)
    if outcome.result is None or outcome.failed or not outcome.result.rendered:
        if outcome.result is not None and not outcome.failed:
            raise UsageError(
                f"environment {options.envs[0]} does not render {job} (see its jobs: selector)"
            )
        return EXIT_PROBLEMS
    if not write_explanation(outcome.result.rendered[0], options.out, field=field):
        raise UsageError(f"{job} has no field {field} in {options.envs[0]}")
    return EXIT_OK


def diff(options: Options, *, exit_code: bool = False) -> int:
    """What `kgen build` would change (in the environments asked for), as a unified diff."""
    from kgen.output.writer import check_tree

    outcome, files = _render_tree(options)
    if files is None or outcome.project is None:
        report(options, outcome)
        return EXIT_PROBLEMS
    output = outcome.project.spec.output
    within = tuple(f"{output}/{env}/" for env in options.envs)
    drift = check_tree(options.root, files, output=output, within=within, show=True)
    outcome.problems = [*(outcome.problems or []), *drift.problems]
    report(options, outcome)
    if drift.problems:
        return EXIT_PROBLEMS
    changes = drift.diff
    options.out.write(drift.text)
    counts = (len(changes.modified), len(changes.missing), len(changes.stale))
    summary = (
        "a build would change nothing"
        if changes.clean
        else "a build would modify {}, add {} and remove {} files".format(*counts)
    )
    options.err.write(f"kgen: {summary}\n")
    return EXIT_PROBLEMS if exit_code and not changes.clean else EXIT_OK


def plan(options: Options) -> int:
    """Jobs x environments with pods, GPUs, CPU and memory, and totals per environment."""
    from kgen.report.plan import table

    outcome = _load_and_run(options)
    report(options, outcome, to_stderr=True)
    if outcome.result is None:
        return EXIT_PROBLEMS
    options.out.write(table(outcome.result))
    return EXIT_PROBLEMS if outcome.failed else EXIT_OK


def import_manifests(options: Options, paths: tuple[Path, ...], *, out: Path) -> int:
    """Turn existing PyTorchJob/TFJob manifests and their claims into a kgen project."""
    from kgen.importer.jobs import import_files
    from kgen.importer.project import write_project
    from kgen.output.generated import check_import_folder

    check_import_folder(out)
    result = import_files(list(paths), cwd=Path.cwd())
    report(options, Outcome(None, None, result.problems), to_stderr=True)
    if not result.jobs:
        options.err.write("kgen: no PyTorchJob or TFJob in the given files\n")
        return EXIT_PROBLEMS
    written = write_project(result, out)
    options.err.write(
        f"kgen: imported {len(result.jobs)} jobs into {out}/ ({len(written)} files); run `kgen build -C {out}`\n"
    )
    return (
        EXIT_PROBLEMS
        if any(p.severity == "error" for p in result.problems)
        else EXIT_OK
    )
