"""`kgen schema` and `kgen argocd`: generated files, written or checked current."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from kgen.commands.outcome import (
    EXIT_OK,
    EXIT_PROBLEMS,
    Options,
    Outcome,
    load_and_run,
    report,
    written_counts,
)
from kgen.errors import Problem, printable
from kgen.output.generated import write_or_check
from kgen.output.index import with_index
from kgen.output.root import argocd_problems, flux_problems
from kgen.output.writer import check_tree, write_tree

if TYPE_CHECKING:
    from kgen.load.project import Project
    from kgen.pipeline.records import RunResult


def schema(options: Options, *, out: Path, check: bool = False) -> int:
    """Write the JSON Schemas for editors and the job envelopes into `out`, or with
    `check` report which differ."""
    from kgen.output.generated import stale_files
    from kgen.reference.schemas import all_schemas, dump

    # A folder kgen cannot write into is refused before the schemas are built (most
    # of this command's time).
    _, problems = stale_files({out / "kgen-job.schema.json": ""}, root=options.root)
    if problems:
        report(options, Outcome(None, None, problems))
        return EXIT_PROBLEMS
    files = {out / name: dump(body) for name, body in all_schemas().items()}
    code = write_or_check_files(options, files, check=check, fix="kgen schema")
    if code != EXIT_OK:
        return code
    return _leftovers(options, out, set(files), check=check)


def _leftovers(options: Options, out: Path, files: set[Path], *, check: bool) -> int:
    """Schema files a kgen release wrote that this one no longer does (a target or
    release line that went away): named like the generated ones, `<prefix>-*.schema.json`
    with a prefix of theirs, they are removed, or with `check` reported. Other files in
    the folder are not kgen's and are left alone."""
    from kgen.output.generated import leftover_files

    leftovers = leftover_files(out, files)
    for path in leftovers:
        if not check:
            path.unlink()
        verb = "stale" if check else "removed"
        options.err.write(f"{verb}: {printable(str(path))} (no longer generated)\n")
    if check and leftovers:
        options.err.write("kgen: generated files are out of date; run `kgen schema`\n")
        return EXIT_PROBLEMS
    return EXIT_OK


def argocd(
    options: Options, *, check: bool = False, if_configured: bool = False
) -> int:
    """Write Argo CD Applications (or an ApplicationSet) and the health checks into
    argocd.output, which kgen owns like the output folder: orphans are removed. With
    `if_configured`, a project without `argocd:` is left alone (exit 0)."""
    from kgen.gitops.argocd import argocd_files

    try:
        outcome = load_and_run(
            options, keep=True, loaded=_configured("argocd") if if_configured else None
        )
    except _Unconfigured:
        return _skipped(options, "argocd")
    if outcome.failed or outcome.project is None or outcome.result is None:
        report(options, outcome)
        return EXIT_PROBLEMS
    project = outcome.project
    settings = project.spec.argocd
    if settings is None:
        hint = "add `argocd: {repoURL: <this repository's URL>}` (docs/gitops.md)"
        report(options, Outcome(project, None, [_no_section(project, "argocd", hint)]))
        return EXIT_PROBLEMS
    clusters = ("argocd", "destinationServers", settings.destination_servers)
    chosen, problems = _destinations(
        project,
        ("argocd", "destinationNamespaces", settings.destination_namespaces),
        ("argocd", "namePrefix", settings.name_prefix),
        "Application",
        clusters,
    )
    problems += argocd_problems(project, extra_crds=options.crds)
    if not problems:
        problems = _overlaps(project, outcome.result, chosen, clusters, "Applications")
    if problems:
        report(options, Outcome(project, None, problems))
        return EXIT_PROBLEMS
    files = argocd_files(project, outcome.result, chosen)
    return write_owned(options, files, settings.output, check=check, fix="kgen argocd")


def flux(options: Options, *, check: bool = False, if_configured: bool = False) -> int:
    """Write a Flux Kustomization per environment into flux.output (owned with an
    index like argocd/). With `if_configured`, a project without `flux:` is left
    alone (exit 0)."""
    from kgen.gitops.flux import flux_files

    # The renders kept: which objects each environment deploys (kgen.gitops.overlap).
    try:
        outcome = load_and_run(
            options, keep=True, loaded=_configured("flux") if if_configured else None
        )
    except _Unconfigured:
        return _skipped(options, "flux")
    if outcome.failed or outcome.project is None:
        report(options, outcome)
        return EXIT_PROBLEMS
    project = outcome.project
    settings = project.spec.flux
    if settings is None:
        hint = "add `flux: {sourceRef: {name: <the GitRepository of this repository>}}` (docs/gitops.md)"
        report(options, Outcome(project, None, [_no_section(project, "flux", hint)]))
        return EXIT_PROBLEMS
    clusters = ("flux", "kubeConfigs", settings.kube_configs)
    chosen, problems = _destinations(
        project,
        ("flux", "targetNamespaces", settings.target_namespaces),
        ("flux", "namePrefix", settings.name_prefix),
        "Kustomization",
        clusters,
    )
    problems += flux_problems(project, extra_crds=options.crds)
    if not problems and outcome.result is not None:
        problems = _overlaps(
            project, outcome.result, chosen, clusters, "Kustomizations"
        )
    if problems:
        report(options, Outcome(project, None, problems))
        return EXIT_PROBLEMS
    files = flux_files(project, chosen)
    return write_owned(options, files, settings.output, check=check, fix="kgen flux")


class _Unconfigured(Exception):
    """kgen.yaml has no section for the command, which was asked to run only if so."""


def _configured(section: str) -> Callable[[Project], None]:
    """What hears of the loaded project: a project without `section` stops the command
    there, before it renders a job (`--if-configured`)."""

    def loaded(project: Project) -> None:
        if getattr(project.spec, section) is None:
            raise _Unconfigured(section)

    return loaded


def _skipped(options: Options, section: str) -> int:
    options.err.write(
        f"kgen: kgen.yaml has no {section}: section; nothing to do (--if-configured)\n"
    )
    return EXIT_OK


def _no_section(project: Project, section: str, hint: str) -> Problem:
    """kgen.yaml lacks what the command reads: invalid project input, located at its
    top-level mapping, not a usage error."""
    from kgen.load.jobs import located

    problem = Problem(
        f"kgen.yaml has no {section}: section, which kgen {section} reads",
        "missing-key",
        path=(),
        at_key=True,
        hint=hint,
    )
    return located(problem, project.doc)


def _destinations(
    project: Project,
    namespaces_at: tuple[str, str, dict[str, str]],
    prefix_at: tuple[str, str, str],
    object_kind: str,
    clusters_at: tuple[str, str, dict[str, str]],
) -> tuple[dict[str, str], list[Problem]]:
    """Each environment's namespace and the problems with it, with the object names
    (prefix + environment) and with the clusters named: the same for Argo CD
    Applications and Flux Kustomizations. `namespaces_at`, `prefix_at` and
    `clusters_at` are (section, key, value) in kgen.yaml."""
    from kgen.gitops.destinations import name_problems, namespaces, not_environments

    section, key, chosen_by_env = namespaces_at
    chosen, problems = namespaces(project, chosen_by_env, (section, key))
    section, key, prefix = prefix_at
    problems += name_problems(project, prefix, object_kind, (section, key))
    section, key, clusters = clusters_at
    problems += not_environments(project, clusters, (section, key))
    return chosen, problems


def _overlaps(
    project: Project,
    result: RunResult,
    namespaces: dict[str, str],
    clusters_at: tuple[str, str, dict[str, str]],
    owners: str,
) -> list[Problem]:
    """Environments that would deploy one object twice (kgen.gitops.overlap)."""
    from kgen.gitops.overlap import overlap_problems

    section, key, clusters = clusters_at
    return overlap_problems(
        project, result, namespaces, clusters, (section, key), owners
    )


def write_owned(
    options: Options, files: dict[str, str], output: str, *, check: bool, fix: str
) -> int:
    """Make folder `output` exactly `files` plus an index of them, as `kgen build` does
    with the output folder (atomically; files it wrote earlier and no longer writes are
    removed), or with `check` say what differs."""
    files = with_index(files, output)
    if check:
        drift = check_tree(options.root, files, output=output)
        if drift.problems:
            report(options, Outcome(None, None, drift.problems))
            return EXIT_PROBLEMS
        if not drift.diff.clean:
            options.err.write(drift.diff.listing())
            options.err.write(f"kgen: {output}/ is out of date; run `{fix}`\n")
            return EXIT_PROBLEMS
        options.err.write(f"kgen: {output}/ is up to date ({len(files)} files)\n")
        return EXIT_OK
    summary, problems = write_tree(options.root, files, output=output)
    if problems:
        report(options, Outcome(None, None, problems))
        return EXIT_PROBLEMS
    options.err.write(
        f"kgen: {output}/: "
        + written_counts(len(summary.written), len(summary.removed), summary.unchanged)
        + "\n"
    )
    return EXIT_OK


def write_or_check_files(
    options: Options, files: dict[Path, str], *, check: bool, fix: str
) -> int:
    """Write generated files that differ, or with `check` list them and exit 1; write
    nothing if any of them is a link, below one or not a regular file."""
    problems, stale = write_or_check(files, root=options.root, check=check)
    if problems:
        report(options, Outcome(None, None, problems))
        return EXIT_PROBLEMS
    for path in stale:
        options.err.write(f"{_change(path, check=check)}: {printable(str(path))}\n")
    if check and stale:
        options.err.write(f"kgen: generated files are out of date; run `{fix}`\n")
        return EXIT_PROBLEMS
    return EXIT_OK


def _change(path: Path, *, check: bool) -> str:
    """What `--check` found at a generated file, in the words `kgen build --check`
    uses: absent is `missing`, different is `modified`."""
    if not check:
        return "wrote"
    return "modified" if path.exists() else "missing"
