"""`kgen import FILE... --out DIR`: existing job manifests become a kgen project."""

from __future__ import annotations

from pathlib import Path

from kgen.commands.outcome import EXIT_OK, EXIT_PROBLEMS, Options, Outcome, report
from kgen.importer.jobs import import_files
from kgen.importer.project import write_project
from kgen.kinds import ALL_KINDS
from kgen.output.import_folder import check_import_folder


def import_manifests(options: Options, paths: tuple[Path, ...], *, out: Path) -> int:
    """Turn existing job manifests and their claims into a kgen project."""
    check_import_folder(out)
    result = import_files(list(paths), cwd=Path.cwd())
    report(options, Outcome(None, None, result.problems), to_stderr=True)
    if not result.jobs:
        kinds = ", ".join(kind.kind for kind in ALL_KINDS)
        options.err.write(f"kgen: no job kgen imports ({kinds}) in the given files\n")
        return EXIT_PROBLEMS
    if any(p.severity == "error" for p in result.problems):
        # All or nothing, as every kgen write: a project without the jobs or fields
        # the errors name would build, and differ from the cluster's objects unseen.
        options.err.write(
            f"kgen: nothing written to {out}/: an import with errors writes no project\n"
        )
        return EXIT_PROBLEMS
    written = write_project(result, out)
    # Jobs written, not input objects: the inputs of one job in several folders (an
    # environment each) become one spec and an overlay per input.
    jobs = sum(path.startswith("jobs/") for path in written)
    objects = sum(path.startswith("resources/") for path in written)
    beside = (
        f" and {_count(objects, 'object')} beside them (resources/)" if objects else ""
    )
    kept = f"; {_kept(result.kept)}" if result.kept else ""
    options.err.write(
        f"kgen: imported {_count(jobs, 'job')}{beside} into {out}/ ({len(written)} files){kept}; run `kgen build -C {out}`\n"
    )
    return EXIT_OK


def _kept(count: int) -> str:
    return (
        "1 field kept as a patch" if count == 1 else f"{count:,} fields kept as patches"
    )


def _count(count: int, noun: str) -> str:
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {noun}s"
