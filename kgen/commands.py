"""One function per command: load, run the pipeline, write or compare, report once;
return the exit code. No click here, so each command is testable as a plain function."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from kgen.discover import Project, load_project
from kgen.emitter import dump_documents
from kgen.errors import Problem, UsageError
from kgen.output import build_tree
from kgen.pipeline import RunResult, run
from kgen.reporters import REPORTERS, pick_format
from kgen.rerun import changed_in_place, fingerprints
from kgen.scope import scope_for
from kgen.writer import TreeDiff, compare, unified_diff, with_index, write_tree

EXIT_OK = 0
EXIT_PROBLEMS = 1


@dataclass(frozen=True)
class Options:
    root: Path
    out: TextIO
    err: TextIO
    envs: tuple[str, ...] = ()
    report_format: str = "text"
    crds: tuple[str, ...] = ()
    cache: bool = True


@dataclass
class Outcome:
    """What a command found, reported once at its end."""

    project: Project | None = None
    result: RunResult | None = None
    problems: list[Problem] | None = None

    @property
    def failed(self) -> bool:
        return any(p.severity == "error" for p in self.problems or [])


def _report(options: Options, outcome: Outcome, *, to_stderr: bool = False) -> None:
    reporter = REPORTERS[pick_format(options.report_format)]
    stream = options.out if reporter.to_stdout and not to_stderr else options.err
    problems = sorted(outcome.problems or [], key=lambda p: p.sort_key)
    reporter(stream=stream).report(problems, checked=_checked(outcome.project))


def _checked(project: Project | None) -> list[str]:
    if project is None:
        return []
    return [
        project.doc.file,
        *(o.doc.file for o in project.overlays.values()),
        *(j.file for j in project.jobs),
    ]


def _load_and_run(
    options: Options,
    *,
    jobs: tuple[str, ...] = (),
    paths: tuple[Path, ...] = (),
    keep: bool = False,
    emit: bool = False,
) -> Outcome:
    """Load the project and run the pipeline; `keep` keeps full renders, `emit` their
    YAML (see pipeline.run)."""
    project, problems = load_project(
        options.root, extra_crds=options.crds, use_cache=options.cache
    )
    if project is None:
        return Outcome(None, None, problems)
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
        _report(options, outcome)
        return EXIT_PROBLEMS
    output = outcome.project.spec.output
    if check:
        diff = compare(options.root, files, output=output)
        _report(options, outcome)
        return _report_drift(options, outcome.project, files, diff, show_diff=show_diff)
    outcome.problems = [*(outcome.problems or []), *_changed_in_place(outcome)]
    summary, write_problems = write_tree(options.root, files, output=output)
    outcome.problems += write_problems
    _report(options, outcome)
    if write_problems:
        return EXIT_PROBLEMS
    options.err.write(
        f"kgen: {_scope(outcome.result)}: {len(summary.written)} files written,"
        f" {len(summary.removed)} removed, {summary.unchanged} unchanged\n"
    )
    return EXIT_OK


def _render_tree(options: Options) -> tuple[Outcome, dict[str, str] | None]:
    """Load, run and lay out the output tree (index included); no tree on errors."""
    outcome = _load_and_run(options, emit=True)
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


def _scope(result: RunResult) -> str:
    jobs = len({render.job.file for render in result.renders})
    envs = len({render.env.name for render in result.renders} or result.environments)
    renders = len(result.renders)
    return (
        f"{_count(jobs, 'job')} in {_count(envs, 'environment')}"
        f" ({_count(renders, 'render')})"
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _report_drift(
    options: Options,
    project: Project,
    files: dict[str, str],
    diff: TreeDiff,
    *,
    show_diff: bool,
) -> int:
    if diff.clean:
        options.err.write(
            f"kgen: {project.spec.output}/ is up to date ({len(files)} files)\n"
        )
        return EXIT_OK
    for label, paths in (
        ("modified", diff.modified),
        ("missing", diff.missing),
        ("stale", diff.stale),
    ):
        for path in paths:
            options.err.write(f"{label}: {path}\n")
    if show_diff:
        options.out.write(unified_diff(options.root, files, diff))
    options.err.write(
        "kgen: the committed output is out of date; run `kgen build` and commit the result\n"
    )
    return EXIT_PROBLEMS


def validate(
    options: Options, *, strict: bool = False, paths: tuple[Path, ...] = ()
) -> int:
    """Load, validate and render everything in memory (or what `paths` touch); write
    nothing. Warnings alone exit 0, unless `strict`."""
    outcome = _load_and_run(options, paths=paths)
    outcome.problems = [*(outcome.problems or []), *_changed_in_place(outcome)]
    _report(options, outcome)
    failing = [p for p in outcome.problems or [] if strict or p.severity == "error"]
    if outcome.result is not None and not failing:
        options.err.write(f"kgen: {_scope(outcome.result)}: valid\n")
    elif outcome.result is None and paths and not failing:
        options.err.write(
            "kgen: none of the given paths is a job spec, overlay or kgen.yaml\n"
        )
    return EXIT_PROBLEMS if failing else EXIT_OK


def render(options: Options, job: str | None) -> int:
    """Print one job's manifests, or every job's, for one environment as multi-document
    YAML; problems go to stderr, whatever the format, so stdout stays a manifest stream."""
    outcome = _load_and_run(options, jobs=(job,) if job else (), keep=True)
    _report(options, outcome, to_stderr=True)
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
    from kgen.schema_export import all_schemas, dump

    files = {out / name: dump(body) for name, body in all_schemas().items()}
    return _write_or_check(options, files, check=check, fix="kgen schema")


def argocd(options: Options, *, check: bool = False) -> int:
    """Write Argo CD Applications (or an ApplicationSet) and the health checks."""
    from kgen.argocd import argocd_files

    outcome = _load_and_run(options, keep=True)
    if outcome.failed or outcome.project is None or outcome.result is None:
        _report(options, outcome)
        return EXIT_PROBLEMS
    if outcome.project.spec.argocd is None:
        raise UsageError("kgen.yaml has no argocd: section (repoURL at least)")
    generated = argocd_files(outcome.project, outcome.result)
    files = {options.root / name: text for name, text in generated.items()}
    return _write_or_check(options, files, check=check, fix="kgen argocd")


def _write_or_check(
    options: Options, files: dict[Path, str], *, check: bool, fix: str
) -> int:
    """Write generated files that differ, or with `check` list them and exit 1."""
    stale = []
    for path, text in files.items():
        linked = _link_on_the_way(path, options.root)
        if linked is not None:
            options.err.write(
                f"{linked}: error: is a symbolic link; kgen does not write through links (io)\n"
            )
            return EXIT_PROBLEMS
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if current == text:
            continue
        stale.append(path)
        if not check:
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_name(f".{path.name}.kgen-new")
            partial.write_text(text, encoding="utf-8")
            os.replace(partial, path)
    for path in stale:
        options.err.write(f"{'stale' if check else 'wrote'}: {path}\n")
    if check and stale:
        options.err.write(f"kgen: generated files are out of date; run `{fix}`\n")
        return EXIT_PROBLEMS
    return EXIT_OK


def _link_on_the_way(path: Path, root: Path) -> Path | None:
    """The file itself if it is a symbolic link, or a linked folder above it inside
    the project (outside the project, the folders are the user's own choice)."""
    if path.is_symlink():
        return path
    for parent in path.parents:
        if parent == root or root not in parent.parents:
            break
        if parent.is_symlink():
            return parent
    return None


def explain(options: Options, job: str, *, field: str | None = None) -> int:
    """Where each value of JOB in one environment came from, and the run-time env."""
    from kgen.explain import explain as write_explanation

    outcome = _load_and_run(options, jobs=(job,), keep=True)
    _report(options, outcome, to_stderr=True)
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
    outcome, files = _render_tree(options)
    _report(options, outcome)
    if files is None or outcome.project is None:
        return EXIT_PROBLEMS
    output = outcome.project.spec.output
    changes = compare(options.root, files, output=output)
    if options.envs:
        prefixes = tuple(f"{output}/{env}/" for env in options.envs)
        for paths in (changes.modified, changes.missing, changes.stale):
            paths[:] = [p for p in paths if p.startswith(prefixes)]
    options.out.write(unified_diff(options.root, files, changes))
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
    from kgen.plan import table

    outcome = _load_and_run(options)
    _report(options, outcome, to_stderr=True)
    if outcome.result is None:
        return EXIT_PROBLEMS
    options.out.write(table(outcome.result))
    return EXIT_PROBLEMS if outcome.failed else EXIT_OK


def import_manifests(options: Options, paths: tuple[Path, ...], *, out: Path) -> int:
    """Turn existing PyTorchJob/TFJob manifests and their claims into a kgen project."""
    from kgen.import_project import write_project
    from kgen.importer import import_files

    if out.exists() and any(out.iterdir()):
        raise UsageError(f"{out} is not empty; import writes a new project folder")
    result = import_files(list(paths), cwd=Path.cwd())
    _report(options, Outcome(None, None, result.problems), to_stderr=True)
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
