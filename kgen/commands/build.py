"""`kgen build` (write the tree, or `--check` compare it) and `kgen diff`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from kgen.cli_exit import keep
from kgen.commands.outcome import (
    EXIT_OK,
    EXIT_PROBLEMS,
    Options,
    Outcome,
    changed_in_place_problems,
    checked_files,
    doubt_failure,
    load_and_run,
    report,
    run_scope,
    written_counts,
)
from kgen.commands.up_to_date import Attempt
from kgen.errors import Problem
from kgen.load.project import Project
from kgen.output import early_scan
from kgen.output.compare import TreeDiff
from kgen.output.digests import Digest, Expected
from kgen.output.index import with_index
from kgen.output.spool import Spool, digests
from kgen.output.tree import expected_tree
from kgen.output.writer import Drift, check_tree, write_tree
from kgen.pipeline.records import TextSink
from kgen.pipeline.texts import texts_for
from kgen.rules.in_place import fingerprints

if TYPE_CHECKING:
    from pathlib import Path

    from kgen.pipeline.fresh import Fresh


def build(
    options: Options,
    *,
    check: bool = False,
    show_diff: bool = False,
    attempt: Attempt | None = None,
) -> int:
    """Render every job for every environment; write the tree, or with `check` compare.
    `attempt`: attempt_for's look-up, whose replay did not hold."""
    # A build stages each text as its render arrives, a check keeps only digests: the
    # run holds no texts (kgen.output.spool).
    spool = None if check else Spool(options.root)
    try:
        return _build(
            options, check=check, show_diff=show_diff, spool=spool, attempt=attempt
        )
    finally:
        early_scan.discard()  # a scan the build never came to use
        if spool is not None:
            spool.close()


def _build(
    options: Options,
    *,
    check: bool,
    show_diff: bool,
    spool: Spool | None,
    attempt: Attempt | None,
) -> int:
    # Renders from the cache come as digests, unless there is a diff to show: a file
    # is compared by its digest, and a build asks for the texts of those it writes.
    outcome, expected = expected_tree_of(
        options,
        texts=show_diff,
        sink_for=spool.into if spool is not None else None if show_diff else digests,
        # A build's look at the tree, taken while it renders (kgen.output.early_scan).
        loaded=None if check or options.envs else _scan_early(options),
    )
    if expected is None or outcome.project is None or outcome.result is None:
        doubt_failure(outcome)
        report(options, outcome)
        return EXIT_PROBLEMS
    keep(outcome, expected)  # freed as the process ends (kgen.cli_exit)
    output = outcome.project.spec.output
    scope = _scope(options, output)
    fresh = _Fresh(options.root, outcome, output)
    if check:
        drift = check_tree(
            options.root, expected, output=output, scope=scope, show=show_diff
        )
        _vouch_for(fresh, drift, expected)
        outcome.problems = [*(outcome.problems or []), *drift.problems]
        report(options, outcome)
        if drift.problems:
            return EXIT_PROBLEMS
        code = _report_drift(options, outcome.project, len(expected), drift)
        if code == EXIT_OK and attempt is not None:
            line = _up_to_date(output, len(expected))
            attempt.remember(outcome, expected, checked_files(outcome.project), line)
        return code
    outcome.problems = [*(outcome.problems or []), *changed_in_place_problems(outcome)]
    if outcome.failed:  # an immutable field changed in place: nothing is written
        doubt_failure(outcome)
        report(options, outcome)
        return EXIT_PROBLEMS
    summary, write_problems = write_tree(
        options.root,
        expected,
        output=output,
        scope=scope,
        texts=texts_for(outcome.project, outcome.result, output, fresh.texts),
        spool=spool,
        vouch=fresh.vouch,
    )
    fresh.vouch_problems(write_problems, expected)
    outcome.problems += [*write_problems, *_unowned(summary.unowned)]
    report(options, outcome)
    if write_problems:
        return EXIT_PROBLEMS
    line = (
        f"kgen: {run_scope(outcome.result)}: "
        + written_counts(len(summary.written), len(summary.removed), summary.unchanged)
        + "\n"
    )
    options.err.write(line)
    if attempt is not None and not (summary.written or summary.removed):
        attempt.remember(outcome, expected, checked_files(outcome.project), line)
    return EXIT_OK


class _Fresh:
    """kgen.pipeline.fresh, loaded only for an answer that is not "up to date";
    `texts`, those of the files it rendered again."""

    def __init__(self, root: Path, outcome: Outcome, output: str) -> None:
        self.root, self.outcome, self.output = root, outcome, output
        self.texts: dict[str, str] = {}

    def vouch(self, diff: TreeDiff, expected: Mapping[str, str | Digest]) -> None:
        self._made().vouch(diff, expected)

    def vouch_problems(
        self, problems: list[Problem], expected: Mapping[str, str | Digest]
    ) -> None:
        if problems:
            self._made().vouch_problems(problems, expected)

    def _made(self) -> Fresh:
        from kgen.pipeline.fresh import Fresh

        project, result = self.outcome.project, self.outcome.result
        assert project is not None and result is not None
        return Fresh(self.root, project, result, self.output, self.texts)


def _vouch_for(
    fresh: _Fresh, drift: Drift, expected: Mapping[str, str | Digest]
) -> None:
    """Before drift or a problem with the tree is reported: what the cache served
    behind it holds (kgen.pipeline.fresh)."""
    if drift.problems:
        fresh.vouch_problems(drift.problems, expected)
    elif not drift.diff.clean:
        fresh.vouch(drift.diff, expected)


def _unowned(paths: list[str]) -> list[Problem]:
    """A warning for each file in the output kgen did not write (rare: imported
    only then, with the checks of resources/)."""
    if not paths:
        return []
    from kgen.resources.emit import unowned_output

    return [unowned_output(path) for path in paths]


def _scope(options: Options, output: str) -> tuple[str, ...]:
    """The folders a build with `--env` owns: the rest of the tree, and the other
    environments' index entries, are left as they are (and not compared)."""
    return tuple(f"{output}/{env}/" for env in options.envs)


def render_tree(options: Options) -> tuple[Outcome, dict[str, str] | None]:
    """Load, run and lay out the output tree (index included); no tree on errors."""
    outcome, expected = expected_tree_of(options, texts=True)
    return outcome, None if expected is None else texts_only(expected)


def _scan_early(options: Options) -> Callable[[Project], None]:
    return lambda project: early_scan.start(options.root, project.spec.output)


def expected_tree_of(
    options: Options,
    *,
    texts: bool,
    sink_for: Callable[[str], TextSink] | None = None,
    loaded: Callable[[Project], object] | None = None,
) -> tuple[Outcome, Expected | None]:
    """render_tree; without `texts`, the files of renders the cache has are digests
    (`sink_for`, `loaded`: see load_and_run)."""
    outcome = load_and_run(
        options, emit=True, texts=texts, output=True, sink_for=sink_for, loaded=loaded
    )
    if outcome.failed or outcome.project is None or outcome.result is None:
        return outcome, None
    output = outcome.project.spec.output
    files, tree_problems = expected_tree(
        outcome.result, output=output, objects=outcome.project.resources
    )
    outcome.problems = [*(outcome.problems or []), *tree_problems]
    if outcome.failed:
        return outcome, None
    return outcome, with_index(
        files, output, fingerprints=fingerprints(outcome.result, output)
    )


def _up_to_date(output: str, count: int) -> str:
    return f"kgen: {output}/ is up to date ({count} files)\n"


def texts_only(files: Expected) -> dict[str, str]:
    texts = {path: text for path, text in files.items() if isinstance(text, str)}
    if len(texts) != len(files):  # pragma: no cover - asked for texts
        raise RuntimeError("the run kept digests, not the texts to write")
    return texts


def _report_drift(options: Options, project: Project, count: int, drift: Drift) -> int:
    diff = drift.diff
    if diff.clean:
        options.err.write(_up_to_date(project.spec.output, count))
        return EXIT_OK
    options.err.write(diff.listing())
    options.out.write(drift.text)
    if diff.modified or diff.missing or diff.stale:
        options.err.write(
            "kgen: the committed output is out of date; run `kgen build` and commit the result\n"
        )
    if diff.unowned:
        options.err.write(
            "kgen: the output holds files kgen did not write; move them to resources/\n"
        )
    return EXIT_PROBLEMS


def diff(options: Options, *, exit_code: bool = False) -> int:
    """What `kgen build` would change (in the environments asked for), as a unified diff."""
    outcome, files = render_tree(options)
    if files is None or outcome.project is None or outcome.result is None:
        doubt_failure(outcome)
        report(options, outcome)
        return EXIT_PROBLEMS
    output = outcome.project.spec.output
    drift = check_tree(
        options.root, files, output=output, scope=_scope(options, output), show=True
    )
    _vouch_for(_Fresh(options.root, outcome, output), drift, files)
    outcome.problems = [*(outcome.problems or []), *drift.problems]
    report(options, outcome)
    if drift.problems:
        return EXIT_PROBLEMS
    changes = drift.diff
    options.out.write(drift.text)
    counts = (len(changes.modified), len(changes.missing), len(changes.stale))
    summary = (
        "a build would change nothing"
        if not any(counts)
        else "a build would modify {}, add {} and remove {} files".format(*counts)
    )
    if changes.unowned:
        options.err.write(TreeDiff(unowned=changes.unowned).listing())
        many = len(changes.unowned)
        summary += (
            f"; {many} {'file' if many == 1 else 'files'} kgen did not write would"
            " stay, listed in no kustomization (move them to resources/)"
        )
    options.err.write(f"kgen: {summary}\n")
    return EXIT_PROBLEMS if exit_code and not changes.clean else EXIT_OK
