"""The goals of issue 21, each a figure set against a floor measured in the same run
(or, for memory and the one-spec rebuild, against a fixed bound), and the table
`make bench` prints: figure, floor, ratio, goal, pass or fail.
"""

from __future__ import annotations

from typing import NamedTuple

from timing import Figure

MEMORY_MB = 400.0


class Row(NamedTuple):
    """One line of the table; `passed` is None for a figure without a goal."""

    name: str
    figure: str
    floor: str
    ratio: float | None
    goal: str
    passed: bool | None

    def as_json(self) -> dict[str, object]:
        return self._asdict()


def seconds(figure: Figure) -> str:
    return f"{figure.median_s:.3f} s"


def against_floor(
    name: str, figure: Figure, floor_name: str, floor: Figure, *, at_most: float | None
) -> Row:
    """figure ÷ floor, both medians of the same run; the goal is at most `at_most`."""
    ratio = figure.median_s / floor.median_s
    return Row(
        name=name,
        figure=seconds(figure),
        floor=f"{floor_name} {floor.median_s:.3f} s",
        ratio=ratio,
        goal="—" if at_most is None else f"≤ {at_most:g}×",
        passed=None if at_most is None else ratio <= at_most,
    )


def within_seconds(
    name: str,
    figure: Figure,
    floor_name: str,
    floor: Figure,
    *,
    at_most: float,
    note: str,
) -> Row:
    """A goal in seconds (on one machine kind); the ratio to a floor is shown too."""
    return Row(
        name=name,
        figure=seconds(figure),
        floor=f"{floor_name} {floor.median_s:.3f} s",
        ratio=figure.median_s / floor.median_s,
        goal=f"≤ {at_most:g} s ({note})",
        passed=figure.median_s <= at_most,
    )


def memory(name: str, peaks_mb: dict[str, float]) -> Row:
    """The largest peak of every command named, against the fixed bound."""
    worst = max(peaks_mb, key=lambda key: peaks_mb[key])
    return Row(
        name=name,
        figure=f"{peaks_mb[worst]:.0f} MB ({worst})",
        floor="—",
        ratio=None,
        goal=f"≤ {MEMORY_MB:.0f} MB",
        passed=peaks_mb[worst] <= MEMORY_MB,
    )


def per_job(
    name: str, large: Figure, large_jobs: int, small: Figure, small_jobs: int
) -> Row:
    """Time per job at the large count ÷ at the small one: 1.0 is linear."""
    ratio = (large.median_s / large_jobs) / (small.median_s / small_jobs)
    return Row(
        name=name,
        figure=f"{1000 * large.median_s / large_jobs:.2f} ms/job at {large_jobs:,}",
        floor=f"{1000 * small.median_s / small_jobs:.2f} ms/job at {small_jobs:,}",
        ratio=ratio,
        goal="≤ 1.1×",
        passed=ratio <= 1.1,
    )


def not_slower(name: str, two: Figure, one: Figure) -> Row:
    ratio = two.median_s / one.median_s
    return Row(
        name=name,
        figure=f"2 workers {seconds(two)}",
        floor=f"1 worker {one.median_s:.3f} s",
        ratio=ratio,
        goal="≤ 1×",
        passed=ratio <= 1.0,
    )


def table(rows: list[Row]) -> str:
    """The rows as aligned text columns."""
    head = ("run", "figure", "floor (same run)", "ratio", "goal", "")
    cells = [head] + [
        (
            row.name,
            row.figure,
            row.floor,
            "—" if row.ratio is None else f"{row.ratio:.2f}×",
            row.goal,
            {None: "", True: "pass", False: "FAIL"}[row.passed],
        )
        for row in rows
    ]
    widths = [max(len(line[i]) for line in cells) for i in range(len(head))]
    return "\n".join(
        "  ".join(
            cell.ljust(width) for cell, width in zip(line, widths, strict=True)
        ).rstrip()
        for line in cells
    )
