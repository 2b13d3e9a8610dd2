"""The PersistentVolumeClaims a job creates (`volumes[].create`)."""

from __future__ import annotations

from kgen.render.base import Environment, Manifest, object_meta
from kgen.render.volumes import claim_body
from kgen.spec.job import JobSpec

# Flux prunes what leaves the source unless an object opts out; a claim holds data a
# later job needs (fluxcd kustomize-controller docs, "Prune": the label or annotation
# kustomize.toolkit.fluxcd.io/prune: disabled).
FLUX_PRUNE_DISABLED = {"kustomize.toolkit.fluxcd.io/prune": "disabled"}


def render_claims(spec: JobSpec, env: Environment) -> list[Manifest]:
    claims = []
    for index, volume in enumerate(spec.volumes):
        if volume.create is not None and volume.claim is not None:
            annotations = FLUX_PRUNE_DISABLED if env.flux else {}
            meta = object_meta(volume.claim, env, labels={}, annotations=annotations)
            body = claim_body(volume, meta)
            where = ("volumes", index, "create")
            claims.append(
                Manifest("PersistentVolumeClaim", volume.claim, body, spec_path=where)
            )
    return claims
