"""The formats people read: `text` (to stderr, with hints and context) and `parsable`
(one line per problem, for editors and grep)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, TextIO

from kgen.errors import Problem
from kgen.report.base import StreamReporter, summary
from kgen.report.terminal import use_color


class TextReporter:
    """`file:line:col: error: message (code)` with the hint and context below it.

    Colour as `--color` says: by default only on a terminal, never with NO_COLOR set
    (https://no-color.org) or TERM=dumb (kgen.report.terminal).
    """

    to_stdout: ClassVar[bool] = False

    def __init__(self, *, stream: TextIO) -> None:
        self.stream = stream
        self.color = use_color(stream)

    def _paint(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.color else text

    def report(
        self, problems: Sequence[Problem], *, checked: Sequence[str] = ()
    ) -> None:
        for problem in problems:
            colour = "1;31" if problem.severity == "error" else "1;33"
            level = self._paint(problem.severity, colour)
            location = self._paint(problem.location, "1")
            self.stream.write(
                f"{location}: {level}: {problem.message} ({problem.code})\n"
            )
            if problem.hint:
                self.stream.write(f"    hint: {problem.hint}\n")
            if problem.context:
                self.stream.write(f"    in {problem.context}\n")
        if problems:
            self.stream.write(summary(problems) + "\n")


class ParsableReporter(StreamReporter):
    """One line per problem, `file:line:col: [severity] message (code)`, for editors and grep."""

    def report(
        self, problems: Sequence[Problem], *, checked: Sequence[str] = ()
    ) -> None:
        for p in problems:
            self.stream.write(f"{p.location}: [{p.severity}] {p.message} ({p.code})\n")
