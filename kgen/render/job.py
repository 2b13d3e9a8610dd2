"""Render a validated job spec for one environment into Kubernetes manifests.

The job's kind (kgen.kinds) renders the object's `spec` for the environment's target;
then come the job's name under the naming policy and the objects around the job: the
claims it creates and its TensorBoard. Problems a target cannot express are located by
spec data path.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

from kgen.errors import Problem
from kgen.kinds import kind_for
from kgen.render.base import Environment, Manifest, job_manifest
from kgen.render.claims import render_claims
from kgen.render.operator_env import operator_env_problems
from kgen.render.patched_pods import first_containers
from kgen.render.tensorboard import render_tensorboard
from kgen.spec.job import JobSpec

if TYPE_CHECKING:
    from kgen.kinds.base import Kind
    from kgen.patch.sources import Patcher


def render_job(
    spec: JobSpec, env: Environment, *, patch: Patcher | None = None
) -> tuple[list[Manifest], list[Problem]]:
    """The job's objects; `patch` (kgen.patch) changes them before the run name, so a
    content-hash name covers what the patches wrote."""
    kind = kind_for(spec.framework, env.target)
    body_spec, problems = kind.render(spec, env)
    flux = FLUX_APPLY_ONCE if env.flux and _autoscaled(kind, spec) else {}
    objects = [
        job_manifest(kind.kind, spec, env, body_spec, annotations=flux),
        *render_claims(spec, env),
        *render_tensorboard(spec, env),
    ]
    patch_problems: list[Problem] = []
    if patch is not None:
        objects, patch_problems = patch(objects)
    if env.target.name in kind.targets:
        # After the patches: the operator fills the pods as they leave them.
        patched = patch is not None and patch.applied
        first = first_containers(kind, objects[0]) if patched else None
        problems = [*problems, *operator_env_problems(kind, spec, env, first)]
    problems = [*problems, *patch_problems]
    return [named_run(objects[0], spec, env), *objects[1:]], problems


# Flux's kustomize-controller applies every object with server-side apply on each
# reconcile and takes back each field the manifest writes: the worker replicas the
# HPA of elasticPolicy.metrics sets through the scale subresource among them. The
# manifest cannot leave them out (the scale subresource would read 0, and the HPA does
# not scale a target at 0), and the `Merge` policy keeps only fields the manifest does
# not write; `IfNotPresent` creates the job and then leaves it alone (fluxcd
# kustomize-controller docs, "Controlling the apply behavior of resources"). A
# committed job changes nothing in the cluster anyway (docs/gitops.md).
FLUX_APPLY_ONCE = {"kustomize.toolkit.fluxcd.io/ssa": "IfNotPresent"}


def _autoscaled(kind: Kind, spec: JobSpec) -> bool:
    """An HPA scales the job's replicas (what Argo CD ignores, kgen.gitops.argocd)."""
    return any(pointer.endswith("/replicas") for pointer in kind.live_pointers(spec))


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
    # New maps down to the name only: the rest (replica specs) is shared, and a deep
    # copy of it cost more than the render.
    metadata = job.body["metadata"]
    labels = dict(sorted({**metadata["labels"], JOB_LABEL: spec.name}.items()))
    body = {**job.body, "metadata": {**metadata, "name": name, "labels": labels}}
    return job._replace(name=name, body=body)
