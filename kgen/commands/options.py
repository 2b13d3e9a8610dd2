"""What a command was asked to do, and its exit codes: light enough to import before
anything heavy, so a run replayed from the cache (kgen.commands.up_to_date) never
loads the project models."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TextIO

if TYPE_CHECKING:
    from kgen.report.terminal import Progress

EXIT_OK = 0
EXIT_PROBLEMS = 1


class Options(NamedTuple):
    """A command's options. A NamedTuple: a frozen dataclass's methods were compiled
    from source at import, in every run (a replayed `build --check`: 2%)."""

    root: Path
    out: TextIO
    err: TextIO
    envs: tuple[str, ...] = ()
    report_format: str = "text"
    crds: tuple[str, ...] = ()
    cache: bool = True
    # --base REF, or the target branch of the pull request CI names (its merge base).
    base: str | None = None
    base_branch: str | None = None
    # The progress of a long build on a terminal (kgen.report.terminal.Progress).
    progress: Progress | None = None
