"""Render a validated job spec for one environment into Kubernetes manifests.

One builder per job kind, picked by framework from RENDERERS, then the objects around the
job: claims it creates and its TensorBoard. Builders return manifests and any problem a
target cannot express, located by spec data path.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from kgen.errors import Problem
from kgen.render.base import MANAGED_BY, Environment, Manifest, object_meta

if TYPE_CHECKING:
    from kgen.spec.job import JobSpec

Renderer = Callable[["JobSpec", Environment], tuple[list[Manifest], list[Problem]]]


@functools.cache
def renderers() -> dict[str, Renderer]:
    """The builder per framework. Imported on first use, with the job models: this
    package's records (Environment, Manifest) are needed by runs that render nothing."""
    from kgen.render.pytorchjob import render_pytorchjob
    from kgen.render.tfjob import render_tfjob

    return {
        "pytorch": render_pytorchjob,  # type: ignore[dict-item]
        "tensorflow": render_tfjob,  # type: ignore[dict-item]
    }


def render_job(spec: JobSpec, env: Environment) -> tuple[list[Manifest], list[Problem]]:
    from kgen.render.tensorboard import render_tensorboard

    manifests, problems = renderers()[spec.framework](spec, env)
    manifests = [named_run(manifests[0], spec, env), *manifests[1:]]
    return [
        *manifests,
        *render_claims(spec, env),
        *render_tensorboard(spec, env),
    ], problems


HASH_LENGTH = 8
JOB_LABEL = "kgen.io/job"


def named_run(job: Manifest, spec: JobSpec, env: Environment) -> Manifest:
    """The job under its run name: `<name>-<runId>`, or with `content-hash` naming
    `<name>-<hash>` of everything rendered but the name, so any change is a new job."""
    if spec.run_id:
        suffix = spec.run_id
    elif env.job_names == "content-hash":
        digest = hashlib.sha256(
            json.dumps(job.body, sort_keys=True).encode()
        ).hexdigest()
        suffix = digest[:HASH_LENGTH]
    else:
        return job
    name = f"{spec.name}-{suffix}"
    body = copy.deepcopy(job.body)
    body["metadata"]["name"] = name
    body["metadata"]["labels"] = dict(
        sorted({**body["metadata"]["labels"], JOB_LABEL: spec.name}.items())
    )
    return replace(job, name=name, body=body)


def render_claims(spec: JobSpec, env: Environment) -> list[Manifest]:
    from kgen.render.volumes import claim_body

    claims = []
    for index, volume in enumerate(spec.volumes):
        if volume.create is not None and volume.claim is not None:
            meta = object_meta(volume.claim, env, labels={}, annotations={})
            body = claim_body(volume, meta)
            where = ("volumes", index, "create")
            claims.append(
                Manifest("PersistentVolumeClaim", volume.claim, body, spec_path=where)
            )
    return claims


__all__ = ["MANAGED_BY", "Environment", "Manifest", "render_job", "renderers"]
