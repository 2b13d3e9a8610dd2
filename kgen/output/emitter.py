"""Deterministic YAML text for manifests.

PyYAML's C emitter, with keys in the order the renderers built them (Kubernetes order:
apiVersion, kind, metadata, spec) and strings quoted whenever any YAML reader could take
them for something else. kubectl and Argo CD read YAML 1.1 through go-yaml, which also
takes `y`/`n` for booleans and `1e3` for a number; quoting those keeps a string a string.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

# What YAML also takes for a line break (NEL, LINE and PARAGRAPH SEPARATOR).
_OTHER_BREAKS = re.compile("[\x85\u2028\u2029]")


@functools.cache
def pyyaml() -> tuple[Any, type[yaml.CSafeDumper]]:
    """PyYAML and kgen's dumper, imported on first use: a run that only compares an
    up-to-date tree never needs them (50 ms of start-up). Call it before forking
    workers that will emit, so they inherit it."""
    import yaml

    class Dumper(yaml.CSafeDumper):
        # Renderers share sub-trees (one pod template for every role); a reviewer and
        # every tool downstream should see each written out, never `&id001`/`*id001`.
        def ignore_aliases(self, data: Any) -> bool:
            return True

    def represent_str(dumper: Dumper, value: str) -> yaml.ScalarNode:
        if _OTHER_BREAKS.search(value):
            # Escaped (\N, \L, \P) on one line: written as they are, they fold a
            # quoted scalar over lines (a key written so is no YAML at all), and no
            # reader that keeps line numbers (kgen's own) takes them.
            return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
        if "\n" in value:
            return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
        if _AMBIGUOUS.match(value):
            return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="'")
        return dumper.represent_str(value)

    Dumper.add_representer(str, represent_str)
    return yaml, Dumper


def dump_documents(documents: Iterable[Mapping[str, Any]], *, header: str = "") -> str:
    """Serialise manifests as one multi-document YAML text with an optional header comment.

    The common case goes through `_emit`, which writes PyYAML's exact block style
    without building PyYAML's node graph (about 5x faster); documents with multi-line
    strings or floats go through PyYAML itself.
    """
    documents = list(documents)
    try:
        lines = [header]
        for document in documents:
            lines.append("---\n")
            _emit_mapping(document, 0, lines)
        return "".join(lines)
    except _NotSimple:
        return header + _dump_with_pyyaml(documents)


def _dump_with_pyyaml(documents: list[Mapping[str, Any]]) -> str:
    yaml, dumper = pyyaml()
    body: str = yaml.dump_all(
        documents,
        Dumper=dumper,
        sort_keys=False,
        default_flow_style=False,
        allow_unicode=True,
        explicit_start=True,
        width=1 << 30,
    )
    return body


def dump_plain(data: Mapping[str, Any]) -> str:
    """One document without the `---` marker, for files people edit (kgen import)."""
    yaml, dumper = pyyaml()
    text: str = yaml.dump(
        data,
        Dumper=dumper,
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
# A comma is only a flow indicator (Argo CD's "Prune=false,Delete=false" is plain).
_PLAIN = re.compile(r"^-{0,2}[A-Za-z_/][A-Za-z0-9_./@+=~:,-]*$")
_WORDS = {"yes", "no", "on", "off", "true", "false", "y", "n", "null"}
# Kubernetes quantities with a unit ("64Gi", "500m"): plain, and no reader's number.
_QUANTITY = re.compile(r"^[0-9]+(?:\.[0-9]+)?(?:[KMGTPE]i|[numkMGTPE])$")
# Each string's text as a scalar, worked out once: a build writes the same names,
# labels and images thousands of times. Bounded, so no input can grow it without end.
_TEXTS: dict[str, str] = {}
_MAX_TEXTS = 100_000
_CONSTANTS: dict[Any, str] = {True: "true", False: "false", None: "null"}


def _text(value: str) -> str:
    """`value` as PyYAML writes it: plain where it can, else quoted."""
    text = _TEXTS.get(value)
    if text is not None:
        return text
    if (
        _PLAIN.fullmatch(value)
        and not value.endswith(":")
        and value.lower() not in _WORDS
    ) or _QUANTITY.match(value):
        text = value
    elif "\n" in value or "\r" in value:
        raise _NotSimple
    elif _AMBIGUOUS.match(value):
        # What represent_str asks PyYAML for: single quotes (the pattern admits no
        # quote or unprintable character), without loading PyYAML for a "2" or "0.1".
        text = f"'{value}'"
    else:
        yaml, dumper = pyyaml()
        text = yaml.dump(
            {"k": value}, Dumper=dumper, width=1 << 30, allow_unicode=True
        )[3:-1]
    if len(_TEXTS) >= _MAX_TEXTS:
        _TEXTS.clear()
    _TEXTS[value] = text
    return text


def _scalar(value: Any) -> str:
    """Any scalar the direct emitter writes; the exact types are the fast path."""
    kind = type(value)
    if kind is str:
        return _TEXTS.get(value) or _text(value)
    if kind is int:
        return str(value)
    if kind is bool or value is None:
        return _CONSTANTS[value]
    if isinstance(value, str):
        return _text(str.__str__(value))
    if isinstance(value, int) and not isinstance(value, bool):
        return int.__repr__(value)
    raise _NotSimple


# Each key's line start ("  name:"), by indentation, worked out once.
_HEADS: dict[int, dict[str, str]] = {}


def _head(key: Any, indent: int, heads: dict[str, str]) -> str:
    if type(key) is not str:
        raise _NotSimple
    if len(heads) >= _MAX_TEXTS:
        heads.clear()
    head = heads[key] = " " * indent + _text(key) + ":"
    return head


# Maps the renderers share (kgen.render.pod: one pod template for roles alike, one set
# of replica specs for every environment that merges a job alike), by identity, with
# their text at each indentation: written once, then reused. Each map is held, so its id
# is not reused; the renderers never change a shared map.
_SHARED: dict[int, tuple[Mapping[str, Any], dict[int, str]]] = {}
_MAX_SHARED = 64


def shared(tree: dict[str, Any]) -> dict[str, Any]:
    """`tree`, marked as a map the renderers share and never change again."""
    if len(_SHARED) >= _MAX_SHARED:
        _SHARED.clear()
    _SHARED[id(tree)] = (tree, {})
    return tree


def _emit_shared(
    data: Mapping[str, Any], texts: dict[int, str], indent: int, lines: list[str]
) -> None:
    text = texts.get(indent)
    if text is None:
        own: list[str] = []
        _emit_mapping(data, indent, own)
        text = texts[indent] = "".join(own)
    lines.append(text)


def _emit_mapping(data: Mapping[str, Any], indent: int, lines: list[str]) -> None:
    """Append `data`'s lines in block style at `indent`: one function, one list, no
    generators, since it runs for every line kgen writes."""
    append = lines.append
    texts = _TEXTS
    heads = _HEADS.get(indent)
    if heads is None:
        heads = _HEADS[indent] = {}
    for key, value in data.items():
        head = heads.get(key) or _head(key, indent, heads)
        kind = type(value)
        if kind is str:
            append(f"{head} {texts.get(value) or _text(value)}\n")
        elif kind is dict or (kind is not list and isinstance(value, Mapping)):
            if value:
                append(head + "\n")
                known = _SHARED.get(id(value))
                if known is not None and known[0] is value:
                    _emit_shared(value, known[1], indent + 2, lines)
                else:
                    _emit_mapping(value, indent + 2, lines)
            else:
                append(head + " {}\n")
        elif kind is list:
            if value:
                append(head + "\n")
                _emit_sequence(value, indent, lines)
            else:
                append(head + " []\n")
        else:
            append(f"{head} {_scalar(value)}\n")


def _emit_sequence(items: list[Any], indent: int, lines: list[str]) -> None:
    # PyYAML writes a sequence inside a mapping at the mapping's own indentation.
    pad = " " * indent
    dash = pad + "- "
    inner = indent + 2
    for item in items:
        kind = type(item)
        if kind is str:
            lines.append(f"{dash}{_TEXTS.get(item) or _text(item)}\n")
        elif kind is dict or (kind is not list and isinstance(item, Mapping)):
            if not item:
                raise _NotSimple
            first = len(lines)
            _emit_mapping(item, inner, lines)
            lines[first] = dash + lines[first][inner:]
        elif kind is list:
            raise _NotSimple
        else:
            lines.append(f"{dash}{_scalar(item)}\n")
