"""Deterministic YAML text for manifests.

PyYAML's C emitter, with keys in the order the renderers built them (Kubernetes order:
apiVersion, kind, metadata, spec) and strings quoted whenever any YAML reader could take
them for something else. kubectl and Argo CD read YAML 1.1 through go-yaml, which also
takes `y`/`n` for booleans and `1e3` for a number; quoting those keeps a string a string.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
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
    """Serialise manifests as one multi-document YAML text with an optional header comment."""
    body = yaml.dump_all(
        documents,
        Dumper=_Dumper,
        sort_keys=False,
        default_flow_style=False,
        allow_unicode=True,
        explicit_start=True,
        width=1 << 30,
    )
    return header + body


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
