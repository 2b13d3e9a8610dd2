"""Duplicates in a list the schema says is a set or a map (`x-kubernetes-list-type`),
which the API server refuses ("Duplicate value") before it runs any rule
(k8s.io/apiextensions-apiserver pkg/apiserver/schema/listtype/validation.go, v1.31):
a set's elements must be unique, a map's elements by their `x-kubernetes-list-map-keys`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from kgen.errors import DataPath, shortened
from kgen.flow_style import flow_style


def duplicate_elements(
    value: list[Any], map_keys: tuple[str, ...], path: DataPath
) -> Iterator[tuple[DataPath, str]]:
    """Where each repeated element is, and the message the API server gives."""
    seen: set[str] = set()
    for index, item in enumerate(value):
        if map_keys:
            if not isinstance(item, dict):
                continue
            shown = {key: item.get(key) for key in map_keys}
        else:
            shown = item
        key = json.dumps(shown, sort_keys=True, default=str)
        if key in seen:
            # In flow style, as the list is written (`'2'`, `{name: SEED}`): the API
            # server's own message quotes it in Go's syntax.
            shown_text = shortened(flow_style(shown), 200)
            yield (*path, index), f"Duplicate value: {shown_text}"
        seen.add(key)
