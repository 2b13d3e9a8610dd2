"""The output schemas a run's workers check against, built once, by a child forked
before them, instead of once in each worker.

Each worker of a cold build built the same schemas at its first renders (kgen.check.
output job_schema, kgen.check.core definition_schema: the core definitions read and
walked, 9 schemas of 7-57 KB made lean and stored, 60-90 ms) while the parent had been
starting alone, one core idle. A child (kgen.pipeline.forked) forked once the run knows
its frameworks and targets builds and stores them (kgen.check.stored) while the parent
prepares the render and forks the pool; a worker reads each stored schema (a tenth of
the cost) or, if the child has not stored it yet, builds it as before: the same code, so
the same schema either way. Built in the parent instead, they would only have moved
from both workers at once to the parent alone. Nothing is forked where the cache is off
or already holds them all.
"""

from __future__ import annotations

from kgen.check import stored
from kgen.pipeline import forked

_child: forked.Child | None = None


def start(jobs: list[tuple[str, str]], version: str) -> None:
    """Fork a child to store the schemas of `jobs` ((kind, API target) pairs, in the
    order they are needed) and of the core objects, for Kubernetes `version`."""
    global _child
    folder = stored.folder()
    if _child is not None or folder is None or not forked.can_fork():
        return
    # Imported here, before the fork, for the child and for the render that follows
    # (kgen.pipeline.prepare): once, not in both.
    from kgen.check.output import CORE_DEFINITIONS
    from kgen.kinds.targets import pod_schema_version

    core = list(CORE_DEFINITIONS.values())
    keys: list[tuple[str, ...]] = [
        ("job", k, t, pod_schema_version(t, version)) for k, t in jobs
    ]
    keys += [("core", definition, version) for definition in core]
    if all(stored.is_stored("schema", key) for key in keys):
        return
    _child = forked.fork(lambda: _build(jobs, core, version), folder)


def _build(jobs: list[tuple[str, str]], core: list[str], version: str) -> None:
    from kgen.check.core import definition_schema
    from kgen.check.output import job_schema
    from kgen.kinds.targets import pod_schema_version

    for kind, target in jobs:
        job_schema(kind, target, pod_schema_version(target, version))
    for definition in core:
        definition_schema(definition, version)


def finish() -> None:
    """Reap the child: done long before the run's pool, or stopped (what it had not
    stored is built where it is needed)."""
    global _child
    child, _child = _child, None
    if child is not None and child.ended():
        child.wait()
    elif child is not None:
        child.stop()
