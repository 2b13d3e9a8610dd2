"""SIGTERM and SIGHUP stop a command that writes as Ctrl-C does: after its clean-up.

A CI runner cancelling a job sends SIGTERM, a closed terminal SIGHUP. Left to their
default they ended kgen at once, and a build left its staging folder
(`.<output>.kgen-new-<pid>`, kgen.output.atomic) beside the output folder, where the
job's next step (`git add -A`) could commit it. While a command that writes runs they
raise Stopped in the main thread instead: each `with` and `finally` on the way out
removes what it made, what kgen staged is swept once more (`at_stop`), and the process
then dies of the signal as before (the shell sees 128 + its number), printing nothing.

A signal whose handler is not the default (ignored, as under nohup, or a program's own)
is left as it is. The renames of a build that writes in place still finish first
(kgen.output.held_signals holds the signal and acts on it after them). A second signal
(or Ctrl-C) while the first is cleaned up is ignored: the process dies of the first.
So is SIGTERM or SIGHUP after Ctrl-C, whose clean-up runs then: the command ends as
aborted (130).

Ctrl-C is noted as it arrives in every command (`noting_interrupts`), as a stop is, and
raised as ever: what it interrupts may turn KeyboardInterrupt into another exception
(pydantic-core building a validator raises a SchemaError), and `interrupted` still
tells kgen.cli_guard that the command was aborted, not that kgen has a bug.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

STOPPING = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class Stopped(BaseException):
    """SIGTERM or SIGHUP arrived. Not an Exception: nothing that catches those (a
    problem turned into a message) may keep the command going."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


# The process whose handlers these are (a forked worker inherits them, not the
# command's clean-up), whether its command runs, and the first signal that arrived.
_owner = 0
_running = False
_received: int | None = None
_interrupted = False
# Run before the process dies of a signal, once the command has unwound.
_sweeps: list[Callable[[], None]] = []


def at_stop(sweep: Callable[[], None]) -> None:
    """Have `sweep` run if a signal stops the command (once it has unwound)."""
    if sweep not in _sweeps:
        _sweeps.append(sweep)


def noting_interrupts(command: Callable[[], T]) -> T:
    """Run `command` with Ctrl-C noted as it arrives, then raised as Python's own
    handler raises it (not where SIGINT is ignored or handled by another)."""
    global _owner, _interrupted
    _owner, _interrupted = os.getpid(), False
    try:
        noted = signal.getsignal(signal.SIGINT) is signal.default_int_handler
        if noted:
            signal.signal(signal.SIGINT, _interrupt)
    except ValueError:  # not the main thread: signals are not this run's to handle
        return command()
    try:
        return command()
    finally:
        if noted and signal.getsignal(signal.SIGINT) is _interrupt:
            signal.signal(signal.SIGINT, signal.default_int_handler)


def interrupted() -> bool:
    """Whether Ctrl-C arrived while the last command ran (however it unwound)."""
    return _interrupted and os.getpid() == _owner


def stoppable(command: Callable[[], int]) -> int:
    """Run `command` with SIGTERM and SIGHUP raising Stopped; if one arrived, clean
    up and die of it (even if something swallowed Stopped on the way)."""
    global _owner, _running, _received, _interrupted
    _owner, _running, _received, _interrupted = os.getpid(), True, None, False
    try:
        installed = [n for n in STOPPING if signal.getsignal(n) == signal.SIG_DFL]
        for number in installed:
            signal.signal(number, _stop)
        noted = signal.getsignal(signal.SIGINT) is signal.default_int_handler
        if noted:
            signal.signal(signal.SIGINT, _interrupt)
    except ValueError:  # not the main thread: signals are not this run's to handle
        _running = False
        return command()
    try:
        code = command()
    except Stopped:
        code = 0
    except BaseException:
        if _received is None:
            raise
        # The stop, wrapped by the code it interrupted (pydantic-core building a
        # validator turns it into a SchemaError): it unwound all the same.
        code = 0
    finally:
        _let_go(installed)
        if noted and signal.getsignal(signal.SIGINT) is _interrupt:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    if _received is not None:
        _die(_received)
    return code


def _let_go(installed: list[int]) -> None:
    """The default handlers back. Where kgen.pipeline.forked has its own in place, it
    puts ours back later, which then acts as the default would."""
    global _running
    _running = False
    for number in installed:
        try:
            if signal.getsignal(number) is _stop:
                signal.signal(number, signal.SIG_DFL)
        except Stopped:  # a signal that arrived just now ran first (and is kept)
            signal.signal(number, signal.SIG_DFL)


def _interrupt(signum: int, frame: object) -> None:
    """Ctrl-C, as Python's own handler, noted: a SIGTERM or SIGHUP while its clean-up
    runs must not cut that short, and an exception that wraps it is an interrupt."""
    global _interrupted
    if os.getpid() == _owner:
        _interrupted = True
    signal.default_int_handler(signum, frame)  # type: ignore[arg-type]


def _stop(signum: int, _frame: object) -> None:
    global _received
    if os.getpid() == _owner and (_received is not None or _interrupted):
        return  # stopping already (or aborting): the clean-up goes on
    if os.getpid() != _owner or not _running:
        # A forked worker, or the command is over: the default, as before.
        signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)
        return
    _received = signum
    # Ctrl-C now would cut the clean-up short (KeyboardInterrupt) and end the process
    # as aborted, a half-removed project or staging folder left: ignored as well.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise Stopped(signum)


def _die(signum: int) -> None:
    """Sweep what is left, then end of `signum` as its default would have."""
    for sweep in _sweeps:
        sweep()
    signal.signal(signum, signal.SIG_DFL)
    signal.raise_signal(signum)
    os._exit(128 + signum)  # pragma: no cover - the signal is blocked
