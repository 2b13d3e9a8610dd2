"""A job's spec under one list of overlays: merged, validated, checked by the rules and
its problems located, once per run, however many environments apply that same list.

Nothing of it depends on the environment (the render does), yet it was redone for each:
1,000 environments applying the same 90 overlays of 100 env entries each merged those
9,000 entries 1,000 times (22 s), and a problem quoting a 240 KB value was built,
masked and located once per environment. Kept for a bounded number of lists.

Validation and the rules see only the merged spec, so lists of overlays that merge to
the same spec share them: an overlay that only sets `target`, or patches what another
already did, costs no second validation (locating problems stays per list: the lines
differ). A job's merged specs that differ take from each other what they can: only the
fields an overlay changed are validated again, and only the rules that read them run
again (kgen.rules.reuse).
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from kgen.errors import DataPath, Problem
from kgen.kinds import OWN_SECTIONS, foreign_sections, kind_for
from kgen.kinds.targets import DEFAULT_TARGET
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

# Distinct (job, overlay list) pairs kept.
MAX_KEPT = 256
# Jobs whose merged specs' checks are kept to take from (a worker renders a job in
# each of its environments in a row).
MAX_RULED = 16
K = TypeVar("K")
V = TypeVar("V")
_MISSING: Any = object()


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


# spec, problems, failed, what lint.ignore silenced
Checked = tuple["JobSpec | None", list[Problem], bool, list[Problem]]


class Stages:
    """Stages by (job, overlay names), for one run's context."""

    def __init__(self, context: RuleContext) -> None:
        self.context = context
        self._kept: dict[tuple[str, str, tuple[str, ...]], Stage] = {}
        # What validation and the rules made of a merged spec, by its digest.
        self._checked: dict[tuple[str, str, bytes | None], Checked] = {}
        self._by_patches: dict[tuple[str, str, tuple[str, ...]], Checked] = {}
        # A job's merged specs checked so far, by model: their rules' findings
        # (kgen.rules.reuse).
        self._rulings: dict[tuple[str, str], list[Any]] = {}
        # What each list of overlays (by their names) gives every job's stage.
        self._lists: dict[tuple[str, tuple[str, ...]], _Applied] = {}

    def of(self, job: JobSource, applied: Sequence[Overlay], target: str) -> Stage:
        """`job` merged with the overlays that apply to it, in an environment of
        `target`: the environment's, set by any of its overlays, whatever their
        `match` (one that left the job out still names its operator)."""
        names = tuple(o.name for o in applied)
        key = (job.file, target, names)
        found = self._kept.get(key)
        if found is None:
            lists = self._lists.get((target, names))
            if lists is None:  # a run has a few lists of overlays, each named alike
                lists = self._lists[(target, names)] = _Applied(applied, target)
            found = _kept(self._kept, key, self._stage(job, lists))
        return found

    def _stage(self, job: JobSource, applied: _Applied) -> Stage:
        layers, target = applied.layers, applied.target
        # The same patches (overlays that only set `target` apart) merge alike; the
        # target counts only where it picks another model, or names itself in the
        # error of a `trainJob:` it cannot take.
        variant = _variant(job, applied)
        patches = (job.file, variant, applied.patches)
        checked = self._by_patches.get(patches)
        if checked is None:
            checked = _kept(
                self._by_patches,
                patches,
                self._checked_merge(job, layers, target, variant),
            )
        spec, problems, failed, silenced = checked
        return Stage(job, layers, spec, problems, failed=failed, silenced=silenced)

    def _checked_merge(
        self,
        job: JobSource,
        layers: tuple[Layer, ...],
        target: str | None,
        variant: str,
    ) -> Checked:
        merged = merge_layers(job.data, list(layers))
        pickled = _pickled(merged, job.data)
        key = (job.file, variant, pickled)
        checked = self._checked.get(key) if pickled is not None else None
        if checked is None:
            job_key = (job.file, variant)
            earlier = self._rulings.get(job_key)
            if earlier is None:
                earlier = _kept(self._rulings, job_key, [], MAX_RULED)
            checked = _check(job, merged, target, self.context, earlier)
            if pickled is not None:
                _kept(self._checked, key, checked)
        return checked


def _kept(kept: dict[K, V], key: K, value: V, limit: int = MAX_KEPT) -> V:
    """`value`, kept under `key`; the oldest goes once `limit` are (a job rendered
    in every environment in a row keeps what its other environments share)."""
    if len(kept) >= limit:
        del kept[next(iter(kept))]
    kept[key] = value
    return value


def layers_of(applied: Sequence[Overlay]) -> tuple[Layer, ...]:
    """The overlays' patches as layers to merge, with their positions and integers as
    written."""
    return tuple(
        Layer(o.spec.patch, o.doc.positions, ("patch",), o.doc.written)
        for o in applied
        if o.spec.patch
    )


class _Applied:
    """What a list of overlays gives every job it applies to: its patches as layers,
    the environment's target (it picks the model: a pytorch job is a TrainJob on a
    trainer target), the names of the overlays that patch, and whether a patch holds a
    kind's own section. Made once per list: 1,000 jobs in 4 environments made 4,000."""

    __slots__ = ("layers", "own_sections", "patches", "target")

    def __init__(self, applied: Sequence[Overlay], target: str) -> None:
        self.layers = layers_of(applied)
        self.target: str | None = target
        self.patches = tuple(o.name for o in applied if o.spec.patch)
        self.own_sections = any(
            isinstance(o.spec.patch, dict) and OWN_SECTIONS & o.spec.patch.keys()
            for o in applied
            if o.spec.patch
        )


def _variant(job: JobSource, applied: _Applied) -> str:
    """What of the target the checks of a merged spec depend on: its model (the kind
    the job's framework is there) and, with a `trainJob:` section, the target itself."""
    data, target = job.data, applied.target
    if applied.own_sections or (isinstance(data, dict) and OWN_SECTIONS & data.keys()):
        return f"target:{target or DEFAULT_TARGET}"
    return f"kind:{kind_for(job.framework, target).kind}"


def _pickled(data: Any, base: Any) -> bytes | None:
    """A digest of the merged data pickled: equal for equal data (of equal types);
    unequal digests only cost a validation that could have been shared, and None (data
    pickle cannot hold) one that is not. A digest, not the bytes: a spec may be a MiB.

    The merge keeps the job's own value under every key no overlay touched (the same
    object, kgen.merge.layers), and such a key stands for it by itself: only what the
    overlays changed is pickled (the benchmark's overlays: resources, nodeSelector and
    tolerations of twenty-odd keys). Two merged specs of a job (its file, in a run) with
    the same digest hold the same keys in the same order, each the job's own value or
    values whose pickles are equal."""
    if isinstance(data, dict) and isinstance(base, dict):
        data = [
            (key,) if value is base.get(key, _MISSING) else (key, value)
            for key, value in data.items()
        ]
    try:
        return hashlib.sha256(pickle.dumps(data, protocol=5)).digest()
    except (pickle.PicklingError, RecursionError, TypeError, ValueError):
        return None


def _check(
    job: JobSource,
    merged: Any,
    target: str | None,
    context: RuleContext,
    earlier: list[Any],
) -> Checked:
    # Imported here: a run whose renders all come from the cache needs none of the
    # rules (the job models are a fifth of start-up).
    from kgen.rules.reuse import alike, ruled, validated

    merged, misplaced = foreign_sections(merged, target or DEFAULT_TARGET)
    model = kind_for(job.framework, target).model()
    usable = alike(model, merged, context, earlier)
    spec, problems = validated(model, merged, usable, validate_model)
    problems = misplaced + problems
    if spec is not None:
        problems += ruled(spec, merged, context, earlier, usable)
    failed = any(classified(p).severity == "error" for p in problems)
    silenced: list[Problem] = []
    if spec is not None:
        silenced = [p for p in problems if p.code in spec.lint.ignore]
        problems = [p for p in problems if p.code not in spec.lint.ignore]
    return spec, problems, failed, silenced
