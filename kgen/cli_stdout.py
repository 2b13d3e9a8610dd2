"""Standard output that says when it failed.

A standard output that cannot take what kgen prints (a full disk, /dev/full, an I/O
error) is the machine's trouble, not a bug in kgen: kgen.cli_guard reports it as such,
exit 1, as it reports a full disk under the output folder. To tell it from any other
OSError, the `kgen` command writes its standard output through a file whose own
failures carry their name (`StdoutError`), whoever writes to it (click, the reporters).
"""

from __future__ import annotations

import codecs
import io
import sys

# Not typing's: `kgen --version` runs through here, and typing costs it 8 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

    from _typeshed import ReadableBuffer


class StdoutError(OSError):
    """Writing to standard output failed."""


class _Stdout(io.FileIO):
    """Descriptor 1. Its first failure is raised as StdoutError; what is written after
    it is dropped, so that the end of the process does not fail on it once more (the
    failure is reported once, by whoever caught it). A closed pipe stays what it was
    (BrokenPipeError), for click's quiet exit."""

    failed = False

    def write(self, data: ReadableBuffer, /) -> int:
        if self.failed:
            return memoryview(data).nbytes
        try:
            return super().write(data)
        except (BlockingIOError, BrokenPipeError):
            raise
        except OSError as exc:
            self.failed = True
            raise StdoutError(exc.errno, exc.strerror) from None


def watch_stdout() -> None:
    """Have sys.stdout's failures raise StdoutError, with its encoding (UTF-8 if it is
    another: `_utf8`), error handler,
    buffering and descriptor as they are (nothing when it is not the process's own
    descriptor 1, as under a test runner)."""
    stream = sys.stdout
    if type(stream) is not io.TextIOWrapper:
        return
    try:
        if stream.fileno() != 1 or stream.closed:
            return
    except (OSError, ValueError):
        return
    stream.flush()
    raw = _Stdout(1, "w", closefd=False)
    raw.name = stream.name  # "<stdout>", as Python's messages name it
    watched = io.TextIOWrapper(
        io.BufferedWriter(raw),
        encoding=_utf8(stream.encoding),
        errors=stream.errors,
        line_buffering=stream.line_buffering,
        write_through=stream.write_through,
    )
    watched.mode = stream.mode  # type: ignore[misc]
    sys.stdout = watched


def _utf8(encoding: str) -> str:
    """What kgen prints on standard output is UTF-8 whatever the locale says: JSON and
    SARIF must be (RFC 8259, section 8.1), the JUnit XML says it is, and YAML's default
    is; under LC_ALL=C (without Python's coercion) or PYTHONIOENCODING=ascii a job name
    like `trän` in a report ended the run as an internal error."""
    try:
        same = codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        same = False
    return encoding if same else "utf-8"


def flush_stdout() -> None:
    """Write out what standard output holds; a closed pipe ends the process as click
    ends it (exit 1, quietly)."""
    if sys.stdout is None:
        return
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        closed_pipe()


def closed_pipe() -> NoReturn:
    """End as click does on a closed pipe: exit 1, quietly."""
    # click's own wrapper (click.core.Command.main, 8.x): later flushes stay quiet.
    from click.utils import _PacifyFlushWrapper

    sys.stdout = _PacifyFlushWrapper(sys.stdout)
    sys.stderr = _PacifyFlushWrapper(sys.stderr)
    sys.exit(1)
