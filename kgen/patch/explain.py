"""What `kgen explain` shows of the patches: each value they wrote in the rendered
objects, with the patch line as its source."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kgen.errors import DataPath, format_path, readable, shortened
from kgen.flow_style import flow_style
from kgen.load.document import Origin
from kgen.render.base import Manifest

_REMOVED = object()


def patched_rows(manifests: list[Manifest]) -> Iterator[tuple[str, str]]:
    """(`Kind name path: value`, `file:line:col`) for each place a patch wrote, in
    the order written; a place a patch removed shows as `(removed)`."""
    for manifest in manifests:
        if manifest.patched is None:
            continue
        marks = manifest.patched.marks
        above = {path[:cut] for path in marks for cut in range(len(path))}
        for path, origin in marks.items():
            if path in above:
                continue  # what it holds has rows of its own
            value = _at(manifest.body, path)
            shown = "(removed)" if value is _REMOVED else _text(value)
            yield _row(manifest, path, shown, origin)
        for path, origin in manifest.patched.removed:
            yield _row(manifest, path, "(removed)", origin)


def _row(
    manifest: Manifest, path: DataPath, shown: str, origin: Origin
) -> tuple[str, str]:
    return (
        f"{manifest.kind} {manifest.name} {readable(format_path(path))}: {shown}",
        f"{origin.file}:{origin.line}:{origin.column}",
    )


def _at(body: Any, path: DataPath) -> Any:
    for part in path:
        present = (isinstance(body, dict) and part in body) or (
            isinstance(body, list) and isinstance(part, int) and part < len(body)
        )
        if not present:
            return _REMOVED
        body = body[part]
    return body


def _text(value: Any) -> str:
    text = value if isinstance(value, str) else flow_style(value)
    return readable(shortened(text, 200))
