"""The patches that apply to one job in one environment, in order: the job's own, then
each overlay's in the environment's order (kgen.spec.patches), each with the way back
to its lines. Light to import: most jobs have none, and only those that do load the
code that applies them (kgen.patch.apply, with `jsonpatch`)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
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
    from kgen.spec.job import JobSpec

Patcher = Callable[[list[Manifest]], tuple[list[Manifest], list[Problem]]]


def patcher(
    job: JobSource,
    spec: JobSpec,
    layers: Sequence[Layer],
    overlays: Sequence[Overlay],
    context: RuleContext,
) -> Patcher | None:
    """What applies the job's and its overlays' patches; None when there are none."""
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
    # Imported here: only a job with patches needs jsonpatch and the rest.
    from kgen.patch.apply import apply_patches

    allowed = context.allowed_literals | spec.lint.allow_literals.keys()
    return functools.partial(
        apply_patches, sources=sources, allowed=allowed, job_file=job.file
    )


def _through(origins: Origins, file: str, path: DataPath) -> Origin:
    return origins.nearest(path, file)


def _nearest(positions: Positions, file: str, path: DataPath) -> Origin:
    return nearest_origin(positions, path, file)
