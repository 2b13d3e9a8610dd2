"""The patches that apply to one job in one environment, in order: the job's own, then
each overlay's in the environment's order (kgen.spec.patches), each with the way back
to its lines. Light to import: most jobs have none, and only those that do load the
code that applies them (kgen.patch.apply, with `jsonpatch`)."""

from __future__ import annotations

import functools
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from kgen.errors import DataPath, Problem
from kgen.load.document import Origin, Positions, nearest_origin
from kgen.load.jobs import JobSource
from kgen.load.project import Overlay
from kgen.merge.layers import Layer
from kgen.merge.origins import Origins
from kgen.patch.context import PatchSource
from kgen.render.base import Manifest
from kgen.rules.context import RuleContext

if TYPE_CHECKING:
    from kgen.render.base import Environment
    from kgen.spec.job import JobSpec


class Patcher:
    """Applies one render's patches (call it with the rendered objects), then runs the
    rules that must read what they wrote (`rules`, after the output check, so a render
    reports both)."""

    def __init__(
        self,
        sources: list[PatchSource],
        *,
        allowed: Collection[str],
        job_file: str,
        context: RuleContext,
        target: str,
        spec_failed: bool,
    ) -> None:
        self.sources, self.allowed, self.job_file = sources, allowed, job_file
        self.context, self.target, self.spec_failed = context, target, spec_failed
        self.applied = False

    def __call__(self, objects: list[Manifest]) -> tuple[list[Manifest], list[Problem]]:
        # Imported here: only a job with patches needs jsonpatch and the rest.
        from kgen.patch.apply import apply_patches
        from kgen.patch.integers import whole_numbers

        patched, problems = apply_patches(objects, sources=self.sources)
        self.applied = not problems
        if self.applied:
            # Before the run name, so a content hash covers what is written.
            patched = whole_numbers(
                patched,
                [source.patch for source in self.sources],
                spec_failed=self.spec_failed,
                target=self.target,
                version=self.context.kubernetes_version,
                crds=self.context.crds,
            )
        return patched, problems

    def rules(
        self, objects: list[Manifest], spec: JobSpec, env: Environment, *, version: str
    ) -> list[Problem]:
        """The rules over the spec cannot see what the patches wrote: these read it
        (the objects' schemas for `env`'s API target and Kubernetes `version` say which
        keys are fields), and the job kind's rules over its pods read its pod
        templates. Nothing when a patch did not apply (half patched)."""
        if not self.applied:
            return []
        from kgen.patch.apply import patched_rules
        from kgen.render.patched_pods import patched_pod_problems

        return patched_rules(
            objects,
            self.allowed,
            job_file=self.job_file,
            target=env.target.name,
            version=version,
        ) + patched_pod_problems(objects[0], spec, env)


def patcher(
    job: JobSource,
    spec: JobSpec,
    layers: Sequence[Layer],
    overlays: Sequence[Overlay],
    context: RuleContext,
    *,
    target: str,
    spec_failed: bool,
) -> Patcher | None:
    """What applies the job's and its overlays' patches for the API `target` (to the
    render of a spec that failed its checks, when `spec_failed`); None when there are
    none."""
    sources: list[PatchSource] = []
    if spec.patches:
        origins = Origins(job.doc.data, job.doc.positions, layers)
        where = functools.partial(_through, origins, job.file)
        sources += [
            PatchSource(patch, ("patches", i), where)
            for i, patch in enumerate(spec.patches)
        ]
    for overlay in overlays:
        doc = overlay.doc
        where = functools.partial(_nearest, doc.positions, doc.file)
        sources += [
            PatchSource(patch, ("patches", i), where)
            for i, patch in enumerate(overlay.spec.patches)
        ]
    if not sources:
        return None
    allowed = context.allowed_literals | spec.lint.allow_literals.keys()
    return Patcher(
        sources,
        allowed=allowed,
        job_file=job.file,
        context=context,
        target=target,
        spec_failed=spec_failed,
    )


def _through(origins: Origins, file: str, path: DataPath) -> Origin:
    return origins.nearest(path, file)


def _nearest(positions: Positions, file: str, path: DataPath) -> Origin:
    return nearest_origin(positions, path, file)
