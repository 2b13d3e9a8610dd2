"""Print problems. Reporters write to an injected stream and never decide exit codes."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Protocol, TextIO

from kgen.errors import Problem


class Reporter(Protocol):
    def __init__(self, *, stream: TextIO) -> None: ...

    def report(self, problems: Sequence[Problem]) -> None: ...


class TextReporter:
    """`file:line:col: error: message (code)` with the hint and context below it.

    Colour only on a terminal and never with NO_COLOR set (https://no-color.org).
    """

    def __init__(self, *, stream: TextIO) -> None:
        self.stream = stream
        self.color = stream.isatty() and not os.environ.get("NO_COLOR")

    def _paint(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.color else text

    def report(self, problems: Sequence[Problem]) -> None:
        for problem in problems:
            level = self._paint(
                problem.severity, "1;31" if problem.severity == "error" else "1;33"
            )
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


class ParsableReporter:
    """One line per problem, `file:line:col: [severity] message (code)`, for editors and grep."""

    def __init__(self, *, stream: TextIO) -> None:
        self.stream = stream

    def report(self, problems: Sequence[Problem]) -> None:
        for problem in problems:
            self.stream.write(
                f"{problem.location}: [{problem.severity}] {problem.message} ({problem.code})\n"
            )


def summary(problems: Sequence[Problem]) -> str:
    errors = sum(p.severity == "error" for p in problems)
    counts = ((errors, "error"), (len(problems) - errors, "warning"))
    parts = [_count(n, noun) for n, noun in counts if n]
    files = len({p.file for p in problems})
    return f"kgen: {' and '.join(parts)} in {_count(files, 'file')}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


REPORTERS: dict[str, type[Reporter]] = {
    "text": TextReporter,
    "parsable": ParsableReporter,
}
