"""`kgen validate [PATHS]` with no option, answered without the command-line library.

A pre-commit hook or a pull request's check runs exactly this on every change, and
loading click and kgen's command table costs about 10 ms of such a run (a twentieth).
Anything else goes through kgen.cli as before: an option or a path that starts with
'-', shell completion (`_KGEN_COMPLETE`), a path click would refuse (one that exists
but cannot be read). What the command prints and returns is the same either way
(tests/test_cli_quick.py runs both).
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable
from pathlib import Path

COMMAND = "validate"
# click's variable for shell completion of a program named `kgen`.
COMPLETE = "_KGEN_COMPLETE"


def quick_command(args: list[str]) -> Callable[[], int] | None:
    """The run of `kgen ARGS` when it is a plain validate, else None (kgen.cli runs it)."""
    if not args or args[0] != COMMAND or os.environ.get(COMPLETE):
        return None
    paths = args[1:]
    if not all(p and not p.startswith("-") for p in paths):
        return None
    # click.Path(readable=True), the default: a path (and `--project`'s default, the
    # current folder) that exists but cannot be read is a usage error click words.
    for path in [".", *paths]:
        if os.path.exists(path) and not os.access(path, os.R_OK):
            return None
    return lambda: _validate(tuple(Path(p) for p in paths))


def _validate(paths: tuple[Path, ...]) -> int:
    from kgen.cli_guard import guarded
    from kgen.cli_settings import CHOSEN, options_for
    from kgen.report.terminal import set_color

    CHOSEN.clear()
    set_color("auto")

    def command() -> int:
        from kgen.commands.validate import validate

        options = options_for(Path("."), "auto", ci_base=True)
        return validate(options, paths=paths)

    return guarded(lambda: _as_click_would(command))


def _as_click_would(command: Callable[[], int]) -> int:
    """What click's `main` does around a command besides parsing: an interrupt is
    "aborted" (130), a closed pipe exits 1 quietly."""
    try:
        return command()
    except (EOFError, KeyboardInterrupt):
        sys.stderr.write("\n")  # closes the terminal's ^C echo, as click does
        sys.stderr.write("kgen: aborted\n")
        return 130
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        # click's own wrapper (click.core.Command.main, 8.x): later flushes stay quiet.
        from click.utils import _PacifyFlushWrapper

        sys.stdout = _PacifyFlushWrapper(sys.stdout)
        sys.stderr = _PacifyFlushWrapper(sys.stderr)
        sys.exit(1)
