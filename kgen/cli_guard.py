"""The one place where kgen's exceptions become exit codes, for kgen.cli (which turns
click's own into theirs first) and for kgen.cli_quick alike.

Exit codes: 0 ok; 1 invalid input or drift, a standard output kgen cannot write to, or
too few file descriptors (kgen.descriptors); 2 usage; 3 internal error; 130 aborted
(Ctrl-C).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from kgen.cli_settings import fatal_format
from kgen.cli_stdout import flush_stdout
from kgen.descriptors import limit_hinted
from kgen.errors import KgenError, UsageError, usage_text
from kgen.stopping import interrupted, noting_interrupts

EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_ABORTED = 130


def guarded(command: Callable[[], object]) -> int:
    """`command`'s exit code (an int it returns, else 0), or the one its exception means."""
    try:
        code = noting_interrupts(command)
        flush_stdout()  # here, where a stdout that cannot take it is reported
    except UsageError as exc:
        # Job and environment names are user input, read before they are validated:
        # the same masking and escaping as every problem (attack14 F9).
        sys.stderr.write(f"kgen: error: {usage_text(str(exc))}\n")
        return EXIT_USAGE
    except KgenError as exc:
        # In the format the command asked for: a SARIF or JSON consumer gets a valid
        # file exactly when the run fails (attack14 F17).
        from kgen.report.formats import REPORTERS

        reporter = REPORTERS[fatal_format()]
        stream = sys.stdout if reporter.to_stdout else sys.stderr
        reporter(stream=stream).report(limit_hinted(exc.problems))
        return 1
    except Exception as exc:
        if interrupted():
            # Ctrl-C, wrapped by the code it interrupted (pydantic-core building a
            # validator turns it into a SchemaError): the command was aborted.
            return aborted()
        return ended_by(exc)
    return code if isinstance(code, int) else 0


def aborted() -> int:
    """Say the command was interrupted, as click does, and the exit code that says so."""
    sys.stderr.write("\n")  # closes the terminal's ^C echo
    sys.stderr.write("kgen: aborted\n")
    return EXIT_ABORTED


def ended_by(exc: Exception) -> int:
    """Say why `exc` ended kgen, and the exit code that says so: a standard output that
    cannot take what kgen prints (kgen.cli_stdout) or that the process started without
    is the machine's trouble, exit 1; anything else is a bug in kgen, exit 3."""
    from kgen.cli_stdout import StdoutError
    from kgen.descriptors import out_of_descriptors, too_few_message

    if out_of_descriptors(exc):
        # The machine's limit, not a bug: said as such, with the way out (exit 1).
        sys.stderr.write(too_few_message(getattr(exc, "strerror", None)) + "\n")
        return 1
    if isinstance(exc, StdoutError):
        reason = exc.strerror or str(exc)
    elif isinstance(exc, AttributeError) and sys.stdout is None and exc.obj is None:
        reason = "the process has none (descriptor 1 is closed)"
    else:
        return internal_error(exc)
    try:
        sys.stderr.write(f"kgen: error: cannot write to standard output: {reason}\n")
        sys.stderr.flush()
    except (AttributeError, OSError, ValueError):
        pass  # nowhere left to say it: the exit code does
    return 1


def internal_error(exc: Exception) -> int:
    """Say that `exc` ended kgen, and the exit code that says so."""
    sys.stderr.write(
        f"kgen: internal error: {type(exc).__name__}: {exc} (please report this as a bug)\n"
    )
    return EXIT_INTERNAL
