"""The PersistentVolumeClaims a job creates (`volumes[].create`)."""

from __future__ import annotations

from kgen.render.base import Environment, Manifest, object_meta
from kgen.render.volumes import claim_body
from kgen.spec.job import JobSpec


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
