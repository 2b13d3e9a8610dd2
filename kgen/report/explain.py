"""`kgen explain`: where each final value of a job came from, and what the operator will
give each replica at run time."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TextIO

from kgen.errors import DataPath, format_path, readable
from kgen.flow_style import flow_style
from kgen.kinds import kind_for
from kgen.load.document import Origin, nearest_origin
from kgen.merge.layers import merge_layers
from kgen.merge.provenance import Provenance
from kgen.patch.explain import patched_rows
from kgen.pipeline.records import RenderedJob
from kgen.report.migration import write_migration
from kgen.spec.keys import spelled_like


def explain(rendered: RenderedJob, stream: TextIO, *, field: str | None = None) -> bool:
    """Write the explanation; False when `field` names nothing in this job."""
    job, env = rendered.job, rendered.env
    provenance = Provenance(dict(job.doc.positions))
    merged = merge_layers(job.doc.data, list(rendered.layers), provenance=provenance)
    rows = [
        (path, value)
        for path, value in _leaves(merged)
        if field is None or _under(format_path(path), field)
    ]
    if field is not None and not rows:
        return False
    overlays = ", ".join(rendered.overlays) or "none"
    stream.write(
        f"{job.name} in environment {env.name}: {env.target.api_version} ({env.target.description})\n"
    )
    stream.write(f"overlays applied: {overlays}\n\nvalues:\n")
    width = min(max(len(_value_text(p, v)) for p, v in rows), 56)
    for path, value in rows:
        origin = nearest_origin(provenance.origins, path, job.file)
        text = _value_text(path, value)
        stream.write(f"  {text.ljust(width)}  {_where(origin)}")
        earlier = provenance.overridden.get(path, [])
        if earlier:
            stream.write(
                " (overrides " + ", ".join(_where(o) for o in reversed(earlier)) + ")"
            )
        stream.write("\n")
    if field is None:
        _write_patched(rendered, stream)
        _write_contract(rendered, stream)
        write_migration(rendered, stream)
    return True


def _write_patched(rendered: RenderedJob, stream: TextIO) -> None:
    rows = list(patched_rows(rendered.manifests))
    if rows:
        width = min(max(len(text) for text, _ in rows), 56)
        stream.write("\npatched in the rendered objects (patches:):\n")
        stream.writelines(f"  {text.ljust(width)}  {where}\n" for text, where in rows)


# Pods shown per role, and hosts per role in a TF cluster spec: a TF_CONFIG lists every
# host, so showing every pod's in full was quadratic in replicas (10,000 workers and
# 10,000 PS printed gigabytes).
SHOWN = 8


def deleted_at(rendered: RenderedJob, field: str) -> str | None:
    """Where an overlay deleted `field` (file:line:col of its `null`), if one did: the
    merge records a deletion's origin at the deleted path."""
    job = rendered.job
    provenance = Provenance(dict(job.doc.positions))
    merged = merge_layers(job.doc.data, list(rendered.layers), provenance=provenance)
    present = {format_path(path) for path, _ in _leaves(merged)}
    for path, origin in provenance.origins.items():
        shown = format_path(path)
        if shown == field and not any(_under(p, field) for p in present):
            return _where(origin)
    return None


def field_like(rendered: RenderedJob, field: str) -> str | None:
    """The field of the job that `field`, which names none, is a slip of: a value's
    path or a mapping's (`resources.gpus` for resources.gpu)."""
    provenance = Provenance(dict(rendered.job.doc.positions))
    merged = merge_layers(
        rendered.job.doc.data, list(rendered.layers), provenance=provenance
    )
    fields = {
        format_path(path[:end])
        for path, _ in _leaves(merged)
        for end in range(1, len(path) + 1)
    }
    return spelled_like(field, sorted(fields))


def _write_contract(rendered: RenderedJob, stream: TextIO) -> None:
    kind = kind_for(rendered.spec.framework, rendered.env.target)
    name = next(m.name for m in rendered.manifests if m.kind == kind.kind)
    pods = kind.env_contract(rendered.spec, rendered.env, name=name, limit=SHOWN)
    where = f" ({pods[0].where})" if pods and pods[0].where else ""
    if pods and pods[0].note:
        stream.write(f"\n{pods[0].note}")
    stream.write(f"\nset by the operator in each pod{where}:\n")
    for replica in pods:
        if replica.skipped:
            stream.write(f"  ... {replica.skipped} more pods like these\n")
        stream.write(f"  {replica.pod}\n")
        if not replica.env:
            stream.write(f"    (nothing: {replica.why_empty})\n")
        for name, value in replica.env.items():
            stream.write(f"    {name}={value}\n")
        for path, lines in replica.files:
            stream.write(f"    file {path}:\n")
            stream.writelines(f"      {line}\n" for line in lines)


def _leaves(data: Any, path: DataPath = ()) -> Iterator[tuple[DataPath, Any]]:
    if isinstance(data, dict) and data:
        for key, value in data.items():
            yield from _leaves(value, (*path, key))
    elif (
        isinstance(data, list)
        and data
        and any(isinstance(item, dict | list) for item in data)
    ):
        for index, value in enumerate(data):
            yield from _leaves(value, (*path, index))
    else:
        yield path, data


def _value_text(path: DataPath, value: Any) -> str:
    # Read as a message is (masked, escaped): a value's newline or bidi override would
    # fake a row; in flow style, as the user writes it (`[--x, a]`, `null`).
    shown = value if isinstance(value, str) else flow_style(value)
    return readable(f"{format_path(path)}: {shown}")


def _under(path: str, field: str) -> bool:
    return path == field or path.startswith((f"{field}.", f"{field}["))


def _where(origin: Origin) -> str:
    return f"{origin.file}:{origin.line}:{origin.column}"
