"""What `Kind.preload` builds before worker processes fork, beside the job models
themselves: the models of their default instances (kgen.kinds.base)."""

from __future__ import annotations

from pydantic import BaseModel


def build_defaults(model: type[BaseModel]) -> None:
    """Build the models of `model`'s default instances (`Resources()`): renders dump
    some on their own, which builds them at first use, in each worker otherwise."""
    for info in model.model_fields.values():
        if isinstance(info.default, BaseModel):
            build_defaults(type(info.default))
            type(info.default).model_rebuild()
