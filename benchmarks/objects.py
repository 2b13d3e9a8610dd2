"""Object-by-object comparison of two sets of Kubernetes manifests: each multi-document
YAML stream is parsed, its objects keyed by (kind, namespace, name), and the two sets
compared as plain data, so formatting, key order and document order do not count, and
every field of every object does.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

Key = tuple[str, str, str]

try:  # libyaml's parser when PyYAML has it: 3,000 objects parse in a second
    Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    Loader = yaml.SafeLoader


def objects_of(streams: Iterable[str]) -> dict[Key, dict[str, Any]]:
    """Every object of the streams by (kind, namespace, name); a key seen twice fails."""
    found: dict[Key, dict[str, Any]] = {}
    for stream in streams:
        for document in yaml.load_all(stream, Loader=Loader):
            if document is None:
                continue
            metadata = document.get("metadata") or {}
            key = (
                str(document.get("kind", "")),
                str(metadata.get("namespace", "")),
                str(metadata.get("name", "")),
            )
            if key in found:
                raise ValueError(f"{'/'.join(key)} appears twice")
            found[key] = document
    return found


def tree_objects(folder: Path) -> dict[Key, dict[str, Any]]:
    """The objects of every manifest file in a kgen output folder (kustomization.yaml,
    which kustomize consumes rather than emits, left out)."""
    files = sorted(p for p in folder.glob("*.yaml") if p.name != "kustomization.yaml")
    return objects_of(path.read_text() for path in files)


def differences(
    expected: dict[Key, dict[str, Any]], actual: dict[Key, dict[str, Any]]
) -> list[str]:
    """What differs, one line per object (missing, extra, or its first differing path)."""
    lines = [f"missing: {'/'.join(k)}" for k in sorted(expected.keys() - actual.keys())]
    lines += [f"extra: {'/'.join(k)}" for k in sorted(actual.keys() - expected.keys())]
    for key in sorted(expected.keys() & actual.keys()):
        path = first_difference(expected[key], actual[key], "")
        if path is not None:
            lines.append(f"differs: {'/'.join(key)} at {path or '/'}")
    return lines


def first_difference(expected: Any, actual: Any, path: str) -> str | None:
    """The JSON pointer of the first place two values differ, or None when equal."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(expected.keys() | actual.keys(), key=str):
            if key not in expected or key not in actual:
                return f"{path}/{key}"
            found = first_difference(expected[key], actual[key], f"{path}/{key}")
            if found is not None:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return f"{path} (length {len(expected)} != {len(actual)})"
        for index, (left, right) in enumerate(zip(expected, actual, strict=True)):
            found = first_difference(left, right, f"{path}/{index}")
            if found is not None:
                return found
        return None
    if type(expected) is not type(actual) or expected != actual:
        return path
    return None
