"""The base every user-facing model shares.

The model modules of kgen/spec have no `from __future__ import annotations`: pydantic
reads each field's annotation as the class is made, and a string it compiled and
evaluated through typing.ForwardRef first (about 250 of them; 3% of importing the
models). A name imported only for type checking is quoted where it is used.
"""

from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, model_validator
from pydantic.alias_generators import to_camel

from kgen.kinds import FRAMEWORKS

# `framework:` as the registry lists the kinds (kgen.kinds), for selectors and schemas.
if TYPE_CHECKING:
    Framework = str
else:
    Framework = Literal[FRAMEWORKS]


def new_list() -> list[Any]:
    """An empty list: the default_factory of list fields. pydantic reads a factory's
    signature when it builds a model, and `list`'s is parsed from its text signature
    with tokenize, whose regular expressions then compile (3 ms of start-up)."""
    return []


class SpecModel(BaseModel):
    """Strict types, camelCase keys like Kubernetes, and no unknown keys."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        strict=True,
        alias_generator=to_camel,
        populate_by_name=False,
        # Validators are built at a model's first use, not at import: a run validates
        # a few of the models it imports (one kind's jobs), or none (renders from the cache).
        # So a field's default instance is made with `model_construct()`, equal to the
        # model called with no arguments (nothing to validate), which would build the
        # validator there and then (tests/test_startup.py).
        defer_build=True,
    )


class OneOf(SpecModel):
    """A model where exactly one of `_sources` must be set (an env value, a volume)."""

    # Class settings, not private attributes: pydantic would copy those into every
    # instance it builds (72,000 deep copies in a 1,000-job build).
    _sources: ClassVar[tuple[str, ...]] = ()
    _what: ClassVar[str] = "a value"

    @model_validator(mode="after")
    def _exactly_one(self) -> Any:
        # A model's fields are in its __dict__ (every env value and volume passes here).
        values = self.__dict__
        given = [name for name in self._sources if values[name] is not None]
        if len(given) != 1:
            names = [type(self).model_fields[n].alias or n for n in self._sources]
            chosen = ", ".join(type(self).model_fields[n].alias or n for n in given)
            detail = f"it has {chosen}" if given else "it has none"
            raise ValueError(
                f"{self._what} needs exactly one of {', '.join(names)}; {detail}"
            )
        return self
