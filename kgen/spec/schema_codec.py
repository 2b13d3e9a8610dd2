"""A spec model's core schema as plain JSON, and back (kgen.spec.prebuilt keeps it).

A core schema is maps, lists and scalars, and a few Python objects: the validator
functions, classes and defaults the models name, and bound methods and partials of
them. Each object is written as where to find it: a name in a module already imported,
or a path from a model class through its fields' annotations, metadata, defaults and
decorators. Reading one back follows the name or the path; nothing is imported or
called. A schema holding anything else cannot be written (NotKept).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import sys
import types
import typing
from typing import Any

_MARK = "\x00"
_MAX_DEPTH = 12
_DECORATOR_KINDS = (
    "validators",
    "field_validators",
    "root_validators",
    "field_serializers",
    "model_serializers",
    "model_validators",
    "computed_fields",
)
Path = list[Any]


class NotKept(Exception):
    """An object the schema holds that cannot be written as where to find it."""


def references(schema: Any, cls: type[Any]) -> dict[int, Path]:
    """Where to find each object reachable from the model classes `schema` names."""
    refs: dict[int, Path] = {}
    for model in _models(schema, cls):
        _register(model, refs)
    return refs


def _models(schema: Any, cls: type[Any]) -> list[type[Any]]:
    """The model classes `schema` names (`cls` first): where its objects are found."""
    found = [cls]
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            model = node.get("cls")
            if isinstance(model, type) and model not in found:
                found.append(model)
            stack.extend(node.values())
        elif isinstance(node, list | tuple):
            stack.extend(node)
    return found


def _register(model: type[Any], refs: dict[int, Path]) -> None:
    base: Path = [[model.__module__, model.__qualname__]]
    for name, info in getattr(model, "__pydantic_fields__", {}).items():
        at = [*base, ["field", name]]
        _walk(info.annotation, [*at, ["ann"]], refs, 0)
        for index, item in enumerate(info.metadata):
            _walk(item, [*at, ["meta", index]], refs, 0)
        _walk(info.default, [*at, ["default"]], refs, 0)
        _walk(info.default_factory, [*at, ["factory"]], refs, 0)
    decorators = getattr(model, "__pydantic_decorators__", None)
    for kind in _DECORATOR_KINDS:
        for name, decorator in getattr(decorators, kind, {}).items():
            _walk(decorator.func, [*base, ["deco", kind, name]], refs, 0)


def _walk(value: Any, path: Path, refs: dict[int, Path], depth: int) -> None:
    if depth > _MAX_DEPTH or value is None or type(value) in (str, int, float, bool):
        return
    if id(value) in refs:
        return
    refs[id(value)] = path
    for index, arg in enumerate(typing.get_args(value)):
        _walk(arg, [*path, ["arg", index]], refs, depth + 1)
    for index, item in enumerate(getattr(value, "__metadata__", ())):
        _walk(item, [*path, ["amd", index]], refs, depth + 1)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            _walk(
                getattr(value, field.name),
                [*path, ["attr", field.name]],
                refs,
                depth + 1,
            )


def encode(value: Any, refs: dict[int, Path]) -> Any:
    kind = type(value)
    if value is None or kind in (str, int, bool):
        return value
    if kind is float:
        if value != value or value in (float("inf"), float("-inf")):
            raise NotKept
        return value
    if kind is list:
        return [encode(item, refs) for item in value]
    if kind is dict:
        if not all(type(key) is str and not key.startswith(_MARK) for key in value):
            raise NotKept
        return {key: encode(item, refs) for key, item in value.items()}
    if kind is tuple:
        return {_MARK + "tuple": [encode(item, refs) for item in value]}
    named = _name_of(value)
    if named is not None:
        return {_MARK + "name": named}
    path = refs.get(id(value))
    if path is not None:
        return {_MARK + "at": path}
    if kind is types.MethodType:
        return {
            _MARK + "bound": [encode(value.__self__, refs), value.__func__.__name__]
        }
    if kind is functools.partial:
        parts = [value.func, list(value.args), dict(value.keywords)]
        return {_MARK + "partial": [encode(part, refs) for part in parts]}
    raise NotKept


def _name_of(value: Any) -> list[str] | None:
    """[module, qualified name] of a class or function its module holds by that name."""
    if not isinstance(value, type | types.FunctionType | types.BuiltinFunctionType):
        return None
    module, name = getattr(value, "__module__", None), value.__qualname__
    if not isinstance(module, str) or "<" in name:
        return None
    try:
        found = _lookup(module, name)
    except LookupError:
        return None
    return [module, name] if found is value else None


def _lookup(module: str, name: str) -> Any:
    """An attribute of a module already imported: nothing is imported or run."""
    found: Any = sys.modules.get(module)
    if found is None:
        raise LookupError(module)
    for part in name.split("."):
        if not part.isidentifier():
            raise LookupError(name)
        try:
            found = getattr(found, part)
        except AttributeError as exc:
            raise LookupError(name) from exc
    return found


def decode(value: Any) -> Any:
    """`value` as written by encode, read back (a run decodes while parsing: decoded)."""
    return json.loads(json.dumps(value), object_hook=decoded)


def decoded(value: dict[str, Any]) -> Any:
    """json's object_hook: each map as parsed, innermost first."""
    if len(value) == 1:
        ((key, item),) = value.items()
        if key.startswith(_MARK):
            return _decode_marked(key[1:], item)
    return value


def _decode_marked(kind: str, item: Any) -> Any:
    if kind == "tuple":
        return tuple(item)
    if kind == "name":
        module, name = item
        return _lookup(module, name)
    if kind == "at":
        return _follow(item)
    if kind == "bound":
        owner, name = item
        if not isinstance(name, str) or not name.isidentifier():
            raise LookupError(name)
        return getattr(owner, name)
    if kind == "partial":
        func, args, keywords = item
        return functools.partial(func, *args, **keywords)
    raise LookupError(kind)


def _follow(path: Path) -> Any:
    (module, name), *steps = path
    found = _lookup(module, name)
    for step, *args in steps:
        if step == "field":
            found = found.__pydantic_fields__[args[0]]
        elif step == "ann":
            found = found.annotation
        elif step == "meta":
            found = found.metadata[args[0]]
        elif step == "default":
            found = found.default
        elif step == "factory":
            found = found.default_factory
        elif step == "deco":
            found = getattr(found.__pydantic_decorators__, args[0])[args[1]].func
        elif step == "arg":
            found = typing.get_args(found)[args[0]]
        elif step == "amd":
            found = found.__metadata__[args[0]]
        elif step == "attr" and args[0].isidentifier():
            found = getattr(found, args[0])
        else:
            raise LookupError(step)
    return found
