"""Problems found by data path become problems at file:line:col, one per place."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from kgen.errors import Problem
from kgen.flow_style import flow_style
from kgen.load.document import Origin
from kgen.load.jobs import JobSource
from kgen.merge.layers import Layer
from kgen.merge.origins import Origins
from kgen.pipeline.records import Finding
from kgen.rules.catalog import classified


def locate(
    job: JobSource,
    layers: Iterable[Layer],
    problems: list[Problem],
    origins: Origins | None = None,
) -> list[Problem]:
    """Give each problem its file:line:col and catalogue severity.

    Only problems need origins: each one's is traced back through the overlays along
    its own path (kgen.merge.origins), never by recording where every value came from.
    """
    if not problems:
        return []
    layers = list(layers)
    if origins is None:
        origins = Origins(job.doc.data, job.doc.positions, layers)
    located = []
    for problem in problems:
        origin = origins.nearest(problem.path, job.file)
        line, column = (
            (origin.key_line, origin.key_column)
            if problem.at_key
            else (origin.line, origin.column)
        )
        written = _written(origin, job, layers)
        if written is not None:
            problem = _as_written(problem, written)
        located.append(classified(problem.at(origin.file, line, column)))
    return located


def _written(origin: Origin, job: JobSource, layers: list[Layer]) -> str | None:
    """How the integer at `origin` was written, if otherwise than Python prints it."""
    if origin.file == job.file:
        return job.doc.written.get(origin)
    found = (layer.written[origin] for layer in layers if origin in layer.written)
    return next(found, None)


def _as_written(problem: Problem, written: str) -> Problem:
    """The message quoting the number as the user wrote it (`0755`, not 755; `1e400`,
    not inf or .inf; `!!float 5`, not 5.0)."""
    message = problem.message
    for canonical in _as_printed(written):
        message = re.sub(
            rf"(?<![\w.]){re.escape(canonical)}(?![\w.])",
            lambda _: written,
            message,
        )
    return problem if message == problem.message else replace(problem, message=message)


def _as_printed(written: str) -> list[str]:
    """How a message may quote the number written as `written`: as Python prints it
    (`inf`, `5.0`) or, a float, as kgen.flow_style does (`.inf`)."""
    tag, text = written.split(" ", 1) if written.startswith("!") else ("", written)
    number = _number(text)
    if number is None:  # pragma: no cover - the loader read it as a number
        return []
    if tag.endswith("float"):
        number = float(number)
    forms = [str(number), flow_style(number)]
    return [form for form in dict.fromkeys(forms) if form != written]


def _number(written: str) -> int | float | None:
    """The number written as `written`, as the loader read it (an integer or a float)."""
    text = written.replace("_", "")
    if text.lower().lstrip("+-") in (".inf", ".nan"):
        return float(text.lower().replace(".", ""))
    body = text.lstrip("+-")
    base = {"0x": 16, "0o": 8, "0b": 2}.get(body[:2].lower(), 10)
    try:
        number = int(body[2:] if base != 10 else body, base)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return None
    return -number if text.startswith("-") else number


def merge_environments(
    findings: list[Finding], env_count: dict[str, int]
) -> list[Problem]:
    """One problem per place, naming its environments unless it is in all of them."""
    merged: dict[
        tuple[str | None, int | None, int | None, str, str],
        tuple[Problem, str | None, list[str]],
    ] = {}
    for found, job_file, env in findings:
        problem = classified(found)
        key = (
            problem.file,
            problem.line,
            problem.column,
            problem.code,
            problem.message,
        )
        entry = merged.setdefault(key, (problem, job_file, []))
        if env not in entry[2]:
            entry[2].append(env)
    problems = []
    for problem, job_file, envs in merged.values():
        everywhere = job_file is not None and len(envs) >= env_count.get(job_file, 0)
        if envs and envs != [""] and not everywhere:
            label = "environment" if len(envs) == 1 else "environments"
            problem = replace(problem, context=f"{label} {', '.join(envs)}")
        problems.append(problem)
    return sorted(problems, key=lambda p: p.sort_key)
