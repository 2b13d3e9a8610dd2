"""`kgen validate [PATHS]` and `kgen build [--check] [-C DIR]` with no other option,
answered without the command-line library.

A pre-commit hook or a pull request's check runs exactly these on every change, and
loading click and kgen's command table costs 30-40 ms of such a run (a quarter of a
replayed `build --check`). Anything else goes through kgen.cli as before: another
option, a path that starts with '-', shell completion (`_KGEN_COMPLETE`), a path click
would refuse (one that exists but cannot be read, or a file given as the project).
What the command prints and returns is the same either way (tests/test_cli_quick.py
runs both).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

from kgen.cli_stdout import closed_pipe

# click's variable for shell completion of a program named `kgen`.
COMPLETE = "_KGEN_COMPLETE"
PROJECT_FLAGS = ("-C", "--project")


def quick_command(args: list[str]) -> Callable[[], int] | None:
    """The run of `kgen ARGS` when it is a plain validate or build, else None
    (kgen.cli runs it)."""
    if not args or os.environ.get(COMPLETE):
        return None
    if args[0] == "validate":
        return _quick_validate(args[1:])
    if args[0] == "build":
        return _quick_build(args[1:])
    return None


def _quick_validate(paths: list[str]) -> Callable[[], int] | None:
    if not all(p and not p.startswith("-") for p in paths):
        return None
    # click.Path(readable=True), the default: a path (and `--project`'s default, the
    # current folder) that exists but cannot be read is a usage error click words.
    for path in [".", *paths]:
        if os.path.exists(path) and not os.access(path, os.R_OK):
            return None
    return lambda: _validate(tuple(Path(p) for p in paths))


def _quick_build(options: list[str]) -> Callable[[], int] | None:
    """`build`, `build --check`, each with `-C DIR` or `--project DIR` or not, in any
    order, each option once."""
    check = False
    project: str | None = None
    rest = list(options)
    while rest:
        option = rest.pop(0)
        if option == "--check" and not check:
            check = True
        elif option in PROJECT_FLAGS and project is None and rest:
            project = rest.pop(0)
            if not project or project.startswith("-"):
                return None
        else:
            return None
    root = "." if project is None else project
    if not _as_click_accepts(root):
        return None
    return lambda: _build(Path(root), check=check)


def _as_click_accepts(root: str) -> bool:
    """click.Path(file_okay=False) of `--project`: a folder that can be read, or a
    path that does not exist (the command says so). Anything else is click's."""
    try:
        status = os.stat(root)
    except OSError:
        return not os.path.lexists(root)
    return stat.S_ISDIR(status.st_mode) and os.access(root, os.R_OK)


def _build(root: Path, *, check: bool) -> int:
    from kgen.cli_build import run_build

    return _run(lambda: run_build(root, check=check))


def _validate(paths: tuple[Path, ...]) -> int:
    def command() -> int:
        from kgen.cli_settings import options_for
        from kgen.commands.validate import validate

        options = options_for(Path("."), "auto", ci_base=True)
        return validate(options, paths=paths)

    return _run(command)


def _run(command: Callable[[], int]) -> int:
    """What kgen.cli.main does around a command: the group's `--color auto`, kgen's
    exceptions as exit codes, click's handling of an interrupt and a closed pipe."""
    from kgen.cli_guard import guarded
    from kgen.cli_settings import CHOSEN
    from kgen.report.terminal import set_color

    CHOSEN.clear()
    set_color("auto")
    return guarded(lambda: _as_click_would(command))


def _as_click_would(command: Callable[[], int]) -> int:
    """What click's `main` does around a command besides parsing: an interrupt is
    "aborted" (130), a closed pipe exits 1 quietly."""
    try:
        return command()
    except (EOFError, KeyboardInterrupt):
        from kgen.cli_guard import aborted

        return aborted()
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        closed_pipe()
