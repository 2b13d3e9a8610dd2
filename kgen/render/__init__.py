"""Render a validated job spec for one environment into Kubernetes manifests.

One builder per job kind, picked by framework from RENDERERS, then the objects around the
job: claims it creates and its TensorBoard. Builders return manifests and any problem a
target cannot express, located by spec data path.
"""

from __future__ import annotations

from collections.abc import Callable

from kgen.errors import Problem
from kgen.models import JobSpec
from kgen.render.base import MANAGED_BY, Environment, Manifest, object_meta
from kgen.render.pytorchjob import render_pytorchjob
from kgen.render.tensorboard import render_tensorboard
from kgen.render.tfjob import render_tfjob
from kgen.render.volumes import claim_body

Renderer = Callable[[JobSpec, Environment], tuple[list[Manifest], list[Problem]]]

RENDERERS: dict[str, Renderer] = {
    "pytorch": render_pytorchjob,  # type: ignore[dict-item]
    "tensorflow": render_tfjob,  # type: ignore[dict-item]
}


def render_job(spec: JobSpec, env: Environment) -> tuple[list[Manifest], list[Problem]]:
    manifests, problems = RENDERERS[spec.framework](spec, env)
    return [
        *manifests,
        *render_claims(spec, env),
        *render_tensorboard(spec, env),
    ], problems


def render_claims(spec: JobSpec, env: Environment) -> list[Manifest]:
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


__all__ = ["MANAGED_BY", "RENDERERS", "Environment", "Manifest", "render_job"]
