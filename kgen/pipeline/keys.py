"""The cache's keys of a job's renders (kgen.pipeline.cache)."""

from __future__ import annotations

from kgen.load.jobs import JobSource
from kgen.load.project import Project
from kgen.pipeline.code import digest_after, hashing


def render_key(project: Project, env: str, job: JobSource) -> str:
    """The cache's key of `job`'s render in environment `env` (kgen.pipeline.cache):
    the digest of the job and every input, then the environment's name. A job's
    renders share their first bits, and so their file in the cache, where they
    share their names too (a third less to unpickle than one file a render)."""
    return f"{job_key(project, job)}/{env}"


def job_key(project: Project, job: JobSource) -> str:
    # The inputs' hash is made once (1,000 job keys a build of 1,000 jobs).
    return digest_after(hashing(project.inputs).copy(), job.key)
