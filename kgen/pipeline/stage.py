"""A job's spec under one list of overlays: merged, validated, checked by the rules and
its problems located, once per run, however many environments apply that same list.

Nothing of it depends on the environment (the render does), yet it was redone for each:
1,000 environments applying the same 90 overlays of 100 env entries each merged those
9,000 entries 1,000 times (22 s), and a problem quoting a 240 KB value was built,
masked and located once per environment. Kept for a bounded number of lists.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kgen.errors import DataPath, Problem
from kgen.kinds import kind_for
from kgen.kinds.targets import DEFAULT_TARGET
from kgen.kinds.trainer.sections import foreign_sections
from kgen.load.document import Origin
from kgen.load.jobs import JobSource
from kgen.load.project import Overlay
from kgen.merge.layers import Layer, merge_layers
from kgen.merge.origins import Origins
from kgen.pipeline.locate import locate
from kgen.rules.catalog import classified
from kgen.rules.context import RuleContext
from kgen.spec.validate import validate_model

if TYPE_CHECKING:
    from kgen.spec.job import JobSpec

# Distinct (job, overlay list) pairs kept: a run renders jobs environment by
# environment, so a job comes back after every other job of its environment.
MAX_KEPT = 256


class Stage:
    """What the environment does not change: the layers, the validated spec (None
    when invalid), its problems located, and whether one of them is an error (before
    `lint.ignore`: the output check is only for a spec that passed every check)."""

    def __init__(
        self,
        job: JobSource,
        layers: tuple[Layer, ...],
        spec: JobSpec | None,
        problems: list[Problem],
        *,
        failed: bool,
        silenced: list[Problem] | None = None,
    ) -> None:
        self.job, self.layers, self.spec, self.failed = job, layers, spec, failed
        self._origins: Origins | None = None
        self.located = self.locate(problems)
        # What lint.ignore silenced, unlocated: a policy may forbid it (kgen.rules.forbidden).
        self.silenced = silenced or []

    def locate(self, problems: list[Problem]) -> list[Problem]:
        """`problems` at file:line:col; the origins are traced once, when first needed."""
        if not problems:
            return []
        return locate(self.job, self.layers, problems, self.origins())

    def origins(self) -> Origins:
        if self._origins is None:
            job = self.job
            self._origins = Origins(job.doc.data, job.doc.positions, self.layers)
        return self._origins

    def origin(self, path: DataPath) -> Origin | None:
        """Where the job or an overlay writes `path` itself, if one does."""
        return self.origins().of(path)


class Stages:
    """Stages by (job, overlay names), for one run's context."""

    def __init__(self, context: RuleContext) -> None:
        self.context = context
        self._kept: dict[tuple[str, tuple[str, ...]], Stage] = {}

    def of(self, job: JobSource, applied: Sequence[Overlay]) -> Stage:
        key = (job.file, tuple(o.name for o in applied))
        found = self._kept.get(key)
        if found is None:
            if len(self._kept) >= MAX_KEPT:
                self._kept.clear()
            found = self._kept[key] = _stage(job, applied, self.context)
        return found


def layers_of(applied: Sequence[Overlay]) -> tuple[Layer, ...]:
    """The overlays' patches as layers to merge, with their positions and integers as
    written."""
    return tuple(
        Layer(o.spec.patch, o.doc.positions, ("patch",), o.doc.written)
        for o in applied
        if o.spec.patch
    )


def _stage(job: JobSource, applied: Sequence[Overlay], context: RuleContext) -> Stage:
    layers = layers_of(applied)
    merged = merge_layers(job.data, list(layers))
    target = next((o.spec.target for o in reversed(applied) if o.spec.target), None)
    merged, misplaced = foreign_sections(merged, target or DEFAULT_TARGET)
    spec, problems = validate_model(kind_for(job.framework, target).model(), merged)
    problems = misplaced + problems
    if spec is not None:
        # Imported here: a run whose renders all come from the cache needs none of
        # the rules (the job models are a fifth of start-up).
        from kgen.rules.spec import check_spec

        problems += check_spec(spec, context)
    failed = any(classified(p).severity == "error" for p in problems)
    silenced: list[Problem] = []
    if spec is not None:
        silenced = [p for p in problems if p.code in spec.lint.ignore]
        problems = [p for p in problems if p.code not in spec.lint.ignore]
    return Stage(job, layers, spec, problems, failed=failed, silenced=silenced)
