"""The image rule over what the patches wrote (kgen.rules.policy reads the spec's
images): an image a patch gives a container, without a tag or tagged latest, runs
different code over time. Reported at the patch line under `image-latest`, silenced
the same way."""

from __future__ import annotations

from typing import Any

from kgen.errors import DataPath, Problem, format_path
from kgen.render.base import Manifest

_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")


def floating_images(objects: list[Manifest]) -> list[Problem]:
    problems = []
    for manifest in objects:
        if manifest.patched is None:
            continue
        for path, origin in manifest.patched.marks.items():
            in_container = len(path) >= 3 and path[-3] in _CONTAINER_LISTS
            if not in_container or path[-1] != "image":
                continue
            image = _image_at(manifest.body, path)
            if image is None or "@" in image:
                continue
            tag = image.rsplit("/", 1)[-1].partition(":")[2]
            if tag in ("", "latest"):
                what = "tagged latest" if tag else "without a tag"
                problems.append(
                    Problem(
                        f"the rendered {manifest.kind} '{manifest.name}': a patch gives"
                        f" {format_path(path)} an image {what}, so what runs changes"
                        " over time",
                        "image-latest",
                        file=origin.file,
                        line=origin.line,
                        column=origin.column,
                        hint="pin a version tag or a digest",
                    )
                )
    return problems


def _image_at(body: Any, path: DataPath) -> str | None:
    node = body
    for part in path:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return None
    return node if isinstance(node, str) else None
