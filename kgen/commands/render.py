"""`kgen render [JOB] --env E`: manifests to stdout, for kubectl or an Argo CD plugin."""

from __future__ import annotations

from kgen.commands.outcome import EXIT_OK, EXIT_PROBLEMS, Options, load_and_run, report
from kgen.errors import UsageError
from kgen.output.emitter import dump_documents


def render(options: Options, job: str | None) -> int:
    """Print one job's manifests, or every job's, for one environment as multi-document
    YAML; problems go to stderr, whatever the format, so stdout stays a manifest stream."""
    outcome = load_and_run(options, jobs=(job,) if job else (), keep=True)
    report(options, outcome, to_stderr=True)
    if outcome.result is None or outcome.failed:
        return EXIT_PROBLEMS
    if job and not outcome.result.rendered:
        # Nothing on stdout and exit 0 read as "this job renders to nothing".
        raise UsageError(
            f"environment {options.envs[0]} does not render {job} (see its jobs: selector)"
        )
    manifests = [
        m.body for rendered in outcome.result.rendered for m in rendered.manifests
    ]
    options.out.write(dump_documents(manifests))
    return EXIT_OK
