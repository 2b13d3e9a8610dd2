"""The spec reference (docs/spec-reference.md), generated from the models (`make docs`).

Each field's description and example live on its pydantic Field, so the reference, the
JSON Schemas editors read and the validation itself cannot drift apart. A test fails when
the page's generated section is not what this module renders.
"""

from __future__ import annotations

import types
import typing
from typing import Any

import yaml
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from kgen.kinds import ALL_KINDS, KINDS, TARGET_KINDS
from kgen.spec import addons, job, pod, policy, storage
from kgen.spec import fields as f
from kgen.spec.base import Framework
from kgen.spec.env_policy import EnvironmentPolicy
from kgen.spec.gitops import ArgoCDSettings, FluxSettings, SourceRef
from kgen.spec.lint import LintSettings
from kgen.spec.patches import ObjectPatch, PatchOp, PatchTarget
from kgen.spec.project import (
    EnvironmentSpec,
    GpuPlacement,
    JobSelector,
    OverlaySpec,
    ProjectSpec,
)

BEGIN = "<!-- BEGIN SPEC REFERENCE: generated from the models by `make docs` -->"
END = "<!-- END SPEC REFERENCE -->"

TYPE_NAMES: dict[Any, str] = {
    Any: "any value",
    f.DnsName: "DNS-1035 name",
    f.DnsLabel: "DNS label",
    f.ObjectName: "object name",
    f.LabelKey: "label key",
    f.LabelValue: "label value",
    f.EnvName: "variable name",
    f.Image: "image",
    f.AbsolutePath: "absolute path",
    f.SubPath: "relative path",
    f.GpuResource: "resource name",
    f.Quantity: "quantity",
    **{t: name for kind in ALL_KINDS for t, name in kind.type_names().items()},
    f.Count: "integer ≥ 1",
    f.Int32: "integer ≥ 0",
    f.PositiveSeconds: "seconds",
}

Section = tuple[str, type[BaseModel], tuple[str, ...]]


def _sections() -> list[Section]:
    """(where the mapping sits, model, fields to leave out because another section
    has them): the keys every kind shares, then each kind's own and its roles, the
    shared parts of a spec, each kind's own parts, and overlays and kgen.yaml."""
    kinds = list(KINDS.values())
    first = kinds[0].model()
    shared = (*job.JobSpec.model_fields, "framework", "roles")
    own = tuple(name for name in first.model_fields if name not in shared)
    return [
        ("jobs/<name>.yaml", first, own),
        *((f"jobs/<name>.yaml ({k.framework} only)", k.model(), shared) for k in kinds),
        *(
            (
                f"jobs/<name>.yaml ({k.framework} as a {k.kind} only)",
                k.model(),
                _inherited(k.model(), KINDS[k.framework].model()),
            )
            for k in TARGET_KINDS
        ),
        *((f"roles ({k.framework})", k.roles_model(), ()) for k in kinds),
        ("roles.<role>", job.Role, ()),
        ("resources", pod.Resources, ()),
        ("resources.requests, resources.limits", pod.ResourceAmounts, ()),
        ("roles.<role>.resources", pod.ResourceOverrides, ()),
        ("env[]", pod.EnvVar, ()),
        ("env[].secretKeyRef, env[].configMapKeyRef", pod.KeyRef, ()),
        ("env[].fieldRef", pod.FieldRef, ()),
        ("envFrom[]", pod.EnvFrom, ()),
        ("volumes[]", storage.Volume, ()),
        ("volumes[].create", storage.ClaimSpec, ()),
        ("tolerations[]", pod.Toleration, ()),
        ("runPolicy", policy.RunPolicy, ()),
        ("runPolicy.schedulingPolicy", policy.SchedulingPolicy, ()),
        *((where, model, ()) for k in ALL_KINDS for where, model in k.reference()),
        ("tensorboard", addons.TensorBoard, ()),
        ("codeSync", addons.CodeSync, ()),
        ("lint (job spec, overlay patch or kgen.yaml)", LintSettings, ()),
        ("patches[] (job spec or overlay)", ObjectPatch, ()),
        ("patches[].target", PatchTarget, ()),
        ("patches[].ops[]", PatchOp, ()),
        ("overlays/<name>.yaml", OverlaySpec, ()),
        ("match (overlays), jobs (environments)", JobSelector, ()),
        ("kgen.yaml", ProjectSpec, ()),
        ("kgen.yaml environments.<name>", EnvironmentSpec, ()),
        ("kgen.yaml policy, environments.<name>.policy", EnvironmentPolicy, ()),
        ("kgen.yaml gpuPlacement", GpuPlacement, ()),
        ("kgen.yaml argocd", ArgoCDSettings, ()),
        ("kgen.yaml flux", FluxSettings, ()),
        ("kgen.yaml flux.sourceRef", SourceRef, ()),
    ]


def _inherited(model: type[BaseModel], base: type[BaseModel]) -> tuple[str, ...]:
    """The fields `model` takes from `base` as they are: those it declares again (a
    TrainJob's optional image) belong in its own section."""
    own = vars(model).get("__annotations__", {})
    return tuple(name for name in base.model_fields if name not in own)


SECTIONS: list[Section] = _sections()


INTRO = {
    "jobs/<name>.yaml": "Keys of both frameworks. Unknown keys are errors; values are strictly typed"
    ' (`replicas: "3"` is an error, and so is an unquoted number as an env value).',
}


def render_reference() -> str:
    parts = [BEGIN, ""]
    for where, model, skip in SECTIONS:
        parts.append(f"## `{where}`\n")
        doc = INTRO.get(where) or (model.__doc__ or "").strip()
        parts.append(" ".join(doc.split()) + "\n")
        parts.append("| key | type | default | meaning | example |")
        parts.append("|---|---|---|---|---|")
        for name, info in model.model_fields.items():
            if name not in skip:
                parts.append(_row(info.alias or name, info, loaded=where))
        parts.append("")
    parts.append(END)
    return "\n".join(parts)


# Keys the loader fills in before the model sees them: required by the model, never by
# the user (a job's name is its file name unless it says otherwise).
FILLED_IN = {("jobs/<name>.yaml", "name"): "the file name"}


def _row(key: str, info: FieldInfo, *, loaded: str = "") -> str:
    example = _flow(info.examples[0]) if info.examples else ""
    kind = _type_of(Framework) if key == "framework" else _type(info)
    filled = FILLED_IN.get((loaded, key))
    cells = [
        f"`{key}`",
        kind,
        filled or _default(info),
        info.description or "",
        f"`{key}: {example}`",
    ]
    return "| " + " | ".join(cell.replace("\n", " ") for cell in cells) + " |"


def _type(info: FieldInfo) -> str:
    for alias, label in TYPE_NAMES.items():
        if info.metadata and _constraints(alias) == info.metadata:
            return label
    return _type_of(info.annotation)


def _constraints(alias: Any) -> list[Any]:
    # Annotated[int, Field(ge=1)] reaches a model field as its FieldInfo's metadata.
    out: list[Any] = []
    for arg in typing.get_args(alias)[1:]:
        out.extend(arg.metadata if isinstance(arg, FieldInfo) else [arg])
    return out


def _type_of(annotation: Any) -> str:
    if annotation in TYPE_NAMES:
        return TYPE_NAMES[annotation]
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        return _type_of(next(a for a in args if a is not type(None)))
    if origin is typing.Literal:
        return " \\| ".join(f"`{a}`" for a in args)
    if origin is typing.Annotated:
        return _type_of(args[0])
    if origin is list:
        return f"list of {_type_of(args[0])}"
    if origin is dict or annotation is dict:
        return "map"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "mapping"
    return {str: "string", int: "integer", bool: "boolean"}.get(
        annotation, str(annotation)
    )


def _default(info: FieldInfo) -> str:
    if info.is_required():
        return "required"
    value = info.default_factory() if info.default_factory else info.default  # type: ignore[call-arg]
    if value is None or isinstance(value, BaseModel) or value in ([], {}):
        return ""
    return f"`{_flow(value)}`"


def _flow(value: Any) -> str:
    text = yaml.safe_dump(
        value, default_flow_style=True, width=1 << 20, sort_keys=False
    )
    return text.strip().removesuffix("...").strip().replace("|", "\\|")
