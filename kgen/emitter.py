"""Deterministic YAML text for manifests.

PyYAML's C emitter, with keys in the order the renderers built them (Kubernetes order:
apiVersion, kind, metadata, spec) and strings quoted whenever any YAML reader could take
them for something else. kubectl and Argo CD read YAML 1.1 through go-yaml, which also
takes `y`/`n` for booleans and `1e3` for a number; quoting those keeps a string a string.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import yaml

_AMBIGUOUS = re.compile(
    r"""^(?:
        [yYnN~]
      | [-+]?(?:\.[0-9]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?
      | [-+]?0[xXoObB][0-9a-fA-F_]+
      | [-+]?\.(?:inf|Inf|INF) | \.(?:nan|NaN|NAN)
      | (?:true|True|TRUE|false|False|FALSE|null|Null|NULL)
    )$""",
    re.VERBOSE,
)


class _Dumper(yaml.CSafeDumper):
    # Renderers share sub-trees (one pod template for every role); a reviewer and
    # every tool downstream should see each written out, never `&id001`/`*id001`.
    def ignore_aliases(self, data: Any) -> bool:
        return True


def _represent_str(dumper: _Dumper, value: str) -> yaml.ScalarNode:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    if _AMBIGUOUS.match(value):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="'")
    return dumper.represent_str(value)


_Dumper.add_representer(str, _represent_str)


def dump_documents(documents: Iterable[Mapping[str, Any]], *, header: str = "") -> str:
    """Serialise manifests as one multi-document YAML text with an optional header comment.

    The common case goes through `_emit`, which writes PyYAML's exact block style
    without building PyYAML's node graph (about 5x faster); documents with multi-line
    strings or floats go through PyYAML itself.
    """
    documents = list(documents)
    try:
        return header + "".join(
            "---\n" + "".join(_emit_mapping(d, 0)) for d in documents
        )
    except _NotSimple:
        return header + _dump_with_pyyaml(documents)


def _dump_with_pyyaml(documents: list[Mapping[str, Any]]) -> str:
    body: str = yaml.dump_all(
        documents,
        Dumper=_Dumper,
        sort_keys=False,
        default_flow_style=False,
        allow_unicode=True,
        explicit_start=True,
        width=1 << 30,
    )
    return body


def dump_plain(data: Mapping[str, Any]) -> str:
    """One document without the `---` marker, for files people edit (kgen import)."""
    text: str = yaml.dump(
        data,
        Dumper=_Dumper,
        sort_keys=False,
        default_flow_style=False,
        allow_unicode=True,
        width=1 << 30,
    )
    return text


class _NotSimple(Exception):
    """Data the direct emitter leaves to PyYAML (multi-line strings, floats, ...)."""


# Strings PyYAML writes plain in block context: no spaces, no indicator at the start,
# no ': ' or ' #', not ending in ':', and nothing a YAML 1.1 reader takes for another type.
_PLAIN = re.compile(r"^-?[A-Za-z_/][A-Za-z0-9_./@+=~:-]*$")
_WORDS = {"yes", "no", "on", "off", "true", "false", "y", "n", "null"}
_SCALARS: dict[str, str] = {}


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        if (
            _PLAIN.fullmatch(value)
            and not value.endswith(":")
            and value.lower() not in _WORDS
        ):
            return value
        cached = _SCALARS.get(value)
        if cached is None:
            if "\n" in value or "\r" in value:
                raise _NotSimple
            cached = _SCALARS[value] = yaml.dump(
                {"k": value}, Dumper=_Dumper, width=1 << 30, allow_unicode=True
            )[3:-1]
        return cached
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    raise _NotSimple


def _emit_mapping(data: Mapping[str, Any], indent: int) -> Iterator[str]:
    pad = " " * indent
    for key, value in data.items():
        if not isinstance(key, str):
            raise _NotSimple
        head = f"{pad}{_scalar(key)}:"
        if isinstance(value, Mapping):
            if value:
                yield head + "\n"
                yield from _emit_mapping(value, indent + 2)
            else:
                yield head + " {}\n"
        elif isinstance(value, list):
            if value:
                yield head + "\n"
                yield from _emit_sequence(value, indent)
            else:
                yield head + " []\n"
        else:
            yield f"{head} {_scalar(value)}\n"


def _emit_sequence(items: list[Any], indent: int) -> Iterator[str]:
    # PyYAML writes a sequence inside a mapping at the mapping's own indentation.
    pad = " " * indent
    for item in items:
        if isinstance(item, Mapping) and item:
            lines = list(_emit_mapping(item, indent + 2))
            yield pad + "- " + lines[0][indent + 2 :]
            yield from lines[1:]
        elif isinstance(item, Mapping | list):
            raise _NotSimple
        else:
            yield f"{pad}- {_scalar(item)}\n"
