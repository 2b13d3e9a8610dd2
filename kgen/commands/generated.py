"""`kgen schema` and `kgen argocd`: generated files, written or checked current."""

from __future__ import annotations

from pathlib import Path

from kgen.commands.outcome import (
    EXIT_OK,
    EXIT_PROBLEMS,
    Options,
    Outcome,
    load_and_run,
    report,
)
from kgen.errors import UsageError, printable
from kgen.output.generated import write_or_check
from kgen.output.root import argocd_problems


def schema(options: Options, *, out: Path, check: bool = False) -> int:
    """Write the JSON Schemas for editors and the job envelopes into `out`, or with
    `check` report which differ."""
    from kgen.reference.schemas import all_schemas, dump

    files = {out / name: dump(body) for name, body in all_schemas().items()}
    return write_or_check_files(options, files, check=check, fix="kgen schema")


def argocd(options: Options, *, check: bool = False) -> int:
    """Write Argo CD Applications (or an ApplicationSet) and the health checks."""
    from kgen.gitops.argocd import argocd_files

    outcome = load_and_run(options, keep=True)
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
    return write_or_check_files(options, files, check=check, fix="kgen argocd")


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
        options.err.write(f"{'stale' if check else 'wrote'}: {printable(str(path))}\n")
    if check and stale:
        options.err.write(f"kgen: generated files are out of date; run `{fix}`\n")
        return EXIT_PROBLEMS
    return EXIT_OK
