"""What kgen shows on a terminal and nowhere else: colour (`--color auto|always|never`,
NO_COLOR, TERM=dumb) and the progress of a long build (stderr, a terminal, not CI)."""

from __future__ import annotations

import os
import time
from typing import TextIO

# Set once by the command line (`kgen --color`); reporters ask `use_color`.
_mode = "auto"


def set_color(mode: str) -> None:
    global _mode
    _mode = mode


def use_color(stream: TextIO) -> bool:
    """`always` and `never` as said; `auto`: a terminal, unless NO_COLOR is set
    (https://no-color.org: a command-line flag overrides it) or TERM is dumb."""
    if _mode != "auto":
        return _mode == "always"
    return interactive(stream) and not os.environ.get("NO_COLOR")


def interactive(stream: TextIO) -> bool:
    """A terminal a person watches: not a pipe or file, not TERM=dumb."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


class Progress:
    """`kgen: rendering 1200/4000` on one line of a terminal, rewritten at most ten
    times a second, shown only once a build has taken half a second; cleared at the
    end. Never in CI logs (CI set) or when stderr is not a terminal."""

    DELAY = 0.5
    EVERY = 0.1

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.start = time.monotonic()
        self.shown = 0.0
        self.drawn = False

    @staticmethod
    def wanted(stream: TextIO) -> bool:
        return interactive(stream) and not os.environ.get("CI")

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.start < self.DELAY or (
            now - self.shown < self.EVERY and done < total
        ):
            return
        self.shown = now
        self.drawn = True
        self.stream.write(f"\r\033[Kkgen: rendering {done}/{total}")
        self.stream.flush()

    def finish(self) -> None:
        if self.drawn:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.drawn = False
