"""Jobs the cache does not know, parsed by the run that renders them.

A build of many new jobs (a fresh clone, a check without the cache) left their parsing
to load_jobs, which parsed them on every core and sent each back, pickled, to the
parent, which then forked a second pool to render them (and unpickled each again
there). Now such a job stays pending (kgen.load.jobs) and the worker that renders it
parses it: it finds the environments that select it and renders it in each, and only
its name, framework and labels come back beside the renders. One pool, and the parent
never holds a parsed spec it does not need.

What loading said of a job is said the same, only later: a spec that does not parse,
is not a mapping or names no known framework, and a name used twice (the later file
is left out, in file order, whichever job the cache already knew).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kgen.errors import Problem
from kgen.load.jobs import JobSource, duplicate_job, parse_job
from kgen.load.project import Project
from kgen.pipeline.cache import Identity

# A spec's top-level `framework:`, read without parsing: which kinds' models to import
# before the workers fork. Only a guess to save time: a kind it misses is imported
# by the worker that renders it, one it wrongly names costs an import.
_FRAMEWORK = re.compile(rb"^framework:[ \t]*[\"']?([A-Za-z0-9_-]+)", re.MULTILINE)


def frameworks_named(raw: bytes) -> set[str]:
    return {name.decode("ascii") for name in _FRAMEWORK.findall(raw)}


# A worker's batch of pending jobs, parsed before it renders any of them (by index in
# the project): parsed between renders, each job cost a tenth more CPU, parsing and
# rendering evicting each other from the processor's caches.
_ahead: dict[int, tuple[JobSource | None, list[Problem]]] = {}


def parse_ahead(jobs: list[JobSource], indexes: Iterable[int]) -> None:
    _ahead.clear()  # what a batch cut short left
    for index in indexes:
        _ahead[index] = parse_job(jobs[index].file, jobs[index].raw)


def parsed_job(
    jobs: list[JobSource], index: int
) -> tuple[JobSource | None, list[Problem]]:
    """Pending job `index`, parsed (ahead, or now)."""
    found = _ahead.pop(index, None)
    return found or parse_job(jobs[index].file, jobs[index].raw)


class Settling:
    """What a run learns of a project's jobs in file order: the first job of each
    name kept, a problem for each later one, and the problems of those that did not
    parse. `pending`: the project had jobs left to parse, and is settled at the end."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.pending = any(job.identity is None for job in project.jobs)
        self.kept: list[JobSource] = []
        self.problems: list[Problem] = []
        self._by_name: dict[str, JobSource] = {}

    def parsed(
        self, job: JobSource, identity: Identity | None, errors: Iterable[Problem]
    ) -> bool:
        """A pending job parsed elsewhere: known by `identity` from now on (and to the
        cache), or left out with its problems."""
        self.problems += errors
        if identity is None:
            return False
        job.identify(identity)
        self.project.cache.remember_identity(job.key, identity)
        return True

    def first(self, job: JobSource) -> bool:
        """Whether `job` is the first of its name (and kept)."""
        taken = self._by_name.get(job.name)
        if taken is not None:
            self.problems.append(duplicate_job(job, taken))
            return False
        self._by_name[job.name] = job
        self.kept.append(job)
        return True

    def settle(self) -> list[Problem]:
        """The project's jobs as loading would have left them; the problems found."""
        if not self.pending:
            return self.problems
        self.project.jobs = self.kept
        if any(p.severity == "error" for p in self.problems):
            self.project.jobs_incomplete = True
        return self.problems


def parse_all(project: Project, *, lean: bool) -> list[Problem]:
    """Every pending job parsed here, in order, before the renders (a run in this
    process: parsing each job between renders made both a tenth slower, each
    evicting what the other keeps in the processor's caches). `lean`: each keeps its
    data alone, as load_jobs does for many jobs (JobSource.forget_positions)."""
    settling = Settling(project)
    for job in project.jobs:
        if job.identity is None:
            parsed, errors = parse_job(job.file, job.raw)
            if parsed is None:
                settling.problems += errors
                continue
            assert parsed.identity is not None
            parsed.key = job.key
            project.cache.remember_identity(job.key, parsed.identity)
            if lean:
                parsed.forget_positions()
            job = parsed
        settling.first(job)
    return settling.settle()
