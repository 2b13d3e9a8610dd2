"""A merged spec validated from another of the same job: only its fields whose data
differs are validated again.

A job's environments merge its spec with different overlays, and most fields come out
the same: a CPU overlay changes `resources`, a GPU overlay `nodeSelector` and
`tolerations`. A job model's fields are validated each on its own (no validator of a
job model reads two fields; the models' own checks sit in the nested models a field
holds), so the spec validated from the earlier data, with the changed fields validated
again by pydantic-core's `validate_assignment` (the field's own validator, strict as in
`model_validate`), is the spec `model_validate` would give: the same values, in the
same order, with the same fields set.

Only where that holds: each changed key is a field, written in the new data (a key
it lacks is a default, or a missing-key error: validated whole; a key only it has is
validated and set, as `model_validate` sets it), and each changed field is valid. A
problem in one is reported by validating the spec whole, so every message is
`model_validate`'s (kgen.spec.validate).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)


def revalidated(
    model: type[M],
    data: Mapping[str, Any],
    bases: Iterable[tuple[BaseModel, frozenset[str]]],
) -> M | None:
    """`data` validated as `model` from the first of `bases` that allows: a spec of
    `model`, valid, and the keys whose data differs from `data`'s. None when none
    allows, or a changed field is invalid: then validate `data` whole."""
    if not _fields_alone(model):
        return None
    names = _field_names(model)
    validator = model.__pydantic_validator__
    for base, changed in bases:
        if type(base) is not model or not changed:
            continue
        if any(key not in data or key not in names for key in changed):
            continue
        spec = base.model_copy()
        try:
            for key in changed:
                validator.validate_assignment(spec, names[key], data[key])
        except ValidationError:
            return None
        return spec
    return None


@functools.cache
def _field_names(model: type[BaseModel]) -> dict[str, str]:
    return {info.alias or name: name for name, info in model.model_fields.items()}


@functools.cache
def _fields_alone(model: type[BaseModel]) -> bool:
    """Whether each field of `model` validates on its own: no validator of the model
    itself (one may read other fields) and nothing run after it is built."""
    found = model.__pydantic_decorators__
    return not (
        found.model_validators
        or found.field_validators
        or found.validators
        or found.root_validators
        or model.__pydantic_post_init__
    )
