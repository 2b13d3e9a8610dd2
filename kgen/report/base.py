"""What every reporter is: it writes problems to an injected stream and never decides
exit codes; and the one-line summary the text formats end with."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Protocol, TextIO

from kgen.errors import Problem


class Reporter(Protocol):
    to_stdout: ClassVar[bool]

    def __init__(self, *, stream: TextIO) -> None: ...

    def report(
        self, problems: Sequence[Problem], *, checked: Sequence[str] = ()
    ) -> None: ...


class StreamReporter:
    """Writes to an injected stream; machine formats go to stdout."""

    to_stdout: ClassVar[bool] = True

    def __init__(self, *, stream: TextIO) -> None:
        self.stream = stream


def summary(problems: Sequence[Problem]) -> str:
    errors = sum(p.severity == "error" for p in problems)
    counts = ((errors, "error"), (len(problems) - errors, "warning"))
    parts = [_count(n, noun) for n, noun in counts if n]
    files = len({p.file for p in problems})
    return f"kgen: {' and '.join(parts)} in {_count(files, 'file')}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")
