"""Spec models completed from the core schema an earlier run kept.

pydantic completes a model in two steps: it generates a core schema from the class's
fields in Python (6 ms for a job kind's model; 13 ms for the models a one-spec
`validate` uses), then pydantic-core compiles it (0.1 ms). The first step's result is
kept in the cache folder (kgen.check.stored: salted by kgen's code and the versions of
pydantic, never in the project, and off with the cache) as JSON (kgen.spec.schema_codec:
the schema's few Python objects written as where to find them; reading it back imports
and calls nothing); a schema that holds anything else is not kept. The model then gets what pydantic's own completion gives it
(`complete_model_class`), from the same schema: the same validator, messages included.
Anything unexpected (another pydantic, a file that does not decode) means the usual
build.
"""

from __future__ import annotations

import functools
from typing import Any

from kgen.check.stored import read_json, write_json
from kgen.spec.schema_codec import NotKept, decode, decoded, encode, references


def complete(cls: type[Any]) -> bool:
    """Complete `cls` from its kept core schema; False where there is none."""
    try:
        schema = read_json(*_names(cls), object_hook=decoded)
        if not isinstance(schema, dict):
            return False
        _install(cls, schema)
    except Exception:  # another pydantic's internals, a schema that does not fit
        return False
    return True


def keep(cls: type[Any]) -> None:
    """Keep the core schema pydantic just completed `cls` with, where it can be."""
    schema = cls.__dict__.get("__pydantic_core_schema__")
    if not isinstance(schema, dict):
        return
    try:
        refs = references(schema, cls)
        encoded = encode(schema, refs)
        # What is read back must be what pydantic made (a partial has no equality of
        # its own: compared by what it is written as).
        if encode(decode(encoded), refs) != encoded:
            return
    except (NotKept, LookupError, RecursionError):
        return
    write_json(*_names(cls), encoded)


def _names(cls: type[Any]) -> tuple[str, tuple[str, ...]]:
    return "model", (cls.__module__, cls.__qualname__)


def _install(cls: type[Any], schema: dict[str, Any]) -> None:
    """What pydantic's complete_model_class does once it has the schema (pydantic
    2.14's _model_construction; other versions fail here and build as usual)."""
    from pydantic._internal._config import ConfigWrapper
    from pydantic._internal._model_construction import set_deprecated_descriptors
    from pydantic._internal._signature import generate_pydantic_signature
    from pydantic._internal._utils import LazyClassAttribute
    from pydantic.plugin._schema_validator import create_schema_validator
    from pydantic_core import SchemaSerializer

    config = ConfigWrapper(cls.model_config, check=False)
    core_config = config.core_config(title=cls.__name__)
    validator = create_schema_validator(
        schema,
        cls,
        cls.__module__,
        cls.__qualname__,
        "BaseModel",
        core_config,
        config.plugin_settings,
    )
    serializer = SchemaSerializer(schema, core_config)
    computed = cls.__pydantic_decorators__.computed_fields
    cls.__pydantic_computed_fields__ = {k: v.info for k, v in computed.items()}
    set_deprecated_descriptors(cls)
    cls.__pydantic_core_schema__ = schema
    cls.__pydantic_validator__ = validator
    cls.__pydantic_serializer__ = serializer
    cls.__signature__ = LazyClassAttribute(
        "__signature__",
        functools.partial(
            generate_pydantic_signature,
            init=cls.__init__,
            fields=cls.__pydantic_fields__,
            validate_by_alias=config.validate_by_alias,
            extra=config.extra,
        ),
    )
    cls.__pydantic_complete__ = True
    cls.__pydantic_on_complete__()
