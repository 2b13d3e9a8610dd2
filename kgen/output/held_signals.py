"""Signals held back while a build renames its few changed files into place.

Those renames (kgen.output.journal) are the one stretch of a build in which the output
root is neither the old tree nor the new one. Ctrl-C, a CI runner's SIGTERM or a closed
terminal's SIGHUP arriving there would stop a build with the tree mixed until the next
build finished it; held back, they take effect a few microseconds later, once the last
file is in place. Only SIGKILL (or a power cut) can still stop the renames, and the next
build finishes them from the journal.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

HELD = tuple(
    getattr(signal, name)
    for name in ("SIGINT", "SIGTERM", "SIGHUP")
    if hasattr(signal, name)
)


@contextlib.contextmanager
def held() -> Iterator[None]:
    """Run the block with HELD signals noted, not acted on; then act on them, in order."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers; kgen writes from it
        return
    caught: list[int] = []

    def note(signum: int, _frame: FrameType | None) -> None:
        caught.append(signum)

    previous = {number: signal.signal(number, note) for number in HELD}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)
        for number in caught:
            signal.raise_signal(number)
