"""`kgen explain JOB --env E [FIELD]`: where each value came from, and the pods' env."""

from __future__ import annotations

from kgen.commands.outcome import EXIT_OK, EXIT_PROBLEMS, Options, load_and_run, report
from kgen.errors import UsageError
from kgen.report.explain import deleted_at, field_like
from kgen.report.explain import explain as write_explanation


def explain(options: Options, job: str, *, field: str | None = None) -> int:
    """Where each value of JOB in one environment came from, and the run-time env.
    Without --env: the one environment JOB renders in, or a usage error naming them."""
    if not options.envs:
        env = _only_environment(options, job)
        if env is None:
            return EXIT_PROBLEMS
        options = options._replace(envs=(env,))
    outcome = load_and_run(options, jobs=(job,), keep=True)
    # Lint warnings are validate's to report; here they only bury the answer.
    outcome.problems = [p for p in outcome.problems or [] if p.severity == "error"]
    report(options, outcome, to_stderr=True)
    if outcome.result is None or outcome.failed or not outcome.result.rendered:
        if outcome.result is not None and not outcome.failed:
            raise UsageError(
                f"environment {options.envs[0]} does not render {job} (see its jobs: selector)"
            )
        return EXIT_PROBLEMS
    rendered = outcome.result.rendered[0]
    if not write_explanation(rendered, options.out, field=field):
        assert field is not None
        where = deleted_at(rendered, field)
        if where is not None:
            raise UsageError(
                f"{job} has no field {field} in {options.envs[0]}: the overlay at {where} deletes it"
            )
        close = field_like(rendered, field)
        slip = f"; did you mean {close}?" if close else ""
        raise UsageError(f"{job} has no field {field} in {options.envs[0]}{slip}")
    return EXIT_OK


def _only_environment(options: Options, job: str) -> str | None:
    """The one environment `job` renders in; None once its problems are reported."""
    found = load_and_run(options, jobs=(job,))
    if found.failed or found.result is None:
        report(options, found, to_stderr=True)
        return None
    names = {r.env.name for r in found.result.renders}
    envs = [e.name for e in found.result.environments if e.name in names]
    if len(envs) != 1:
        listed = ", ".join(envs) if envs else "no environment"
        raise UsageError(
            f"{job} renders in {listed}: give the one to explain with --env"
        )
    return envs[0]
