"""JSON Schemas for editors (`kgen schema`): job specs, overlays and kgen.yaml.

yaml-language-server understands draft-07 and older, while pydantic writes 2020-12; the
two differ here only in where definitions live (`definitions` vs `$defs`) and in
pydantic's OpenAPI `discriminator`, which draft-07 does not know. Files name the schema in
a first-line comment: `# yaml-language-server: $schema=../schemas/kgen-job.schema.json`.
"""

from __future__ import annotations

import copy
import json
from typing import Annotated, Any, Union

from pydantic import Field, TypeAdapter

from kgen.check.envelope import all_envelopes
from kgen.kinds import KINDS, TARGET_KINDS
from kgen.spec.project import OverlaySpec, ProjectSpec

DRAFT7 = "http://json-schema.org/draft-07/schema#"
REF = "#/definitions/{model}"
# Named lists whose items an overlay may delete with `$patch: delete`.
_PATCHABLE = ("EnvVar", "Volume", "Toleration")


def _job_models() -> list[type[Any]]:
    """Each framework's widest model: a kind some targets render instead of the
    framework's own (TrainJob) extends its model, and editors cannot know the target."""
    wider = {kind.framework: kind for kind in TARGET_KINDS}
    return [wider.get(name, kind).model() for name, kind in KINDS.items()]


def job_schema() -> dict[str, Any]:
    # Every kind's model, told apart by `framework:`.
    models = tuple(_job_models())
    job = Annotated[Union[models], Field(discriminator="framework")]  # type: ignore[valid-type]  # noqa: UP007
    schema = _draft7(
        TypeAdapter(job).json_schema(by_alias=True, ref_template=REF), "kgen job spec"
    )
    for name in (model.__name__ for model in models):
        # `name` defaults to the file name.
        schema["definitions"][name]["required"].remove("name")
    return schema


def overlay_schema() -> dict[str, Any]:
    schema = _draft7(
        OverlaySpec.model_json_schema(by_alias=True, ref_template=REF), "kgen overlay"
    )
    partial = _partial(job_schema()["definitions"])
    schema["definitions"] |= {f"Patch{name}": body for name, body in partial.items()}
    schema["properties"]["patch"] = {
        "description": schema["properties"]["patch"].get("description", ""),
        "anyOf": [
            *({"$ref": f"#/definitions/Patch{m.__name__}"} for m in _job_models()),
            {"type": "null"},
        ],
    }
    return schema


def project_schema() -> dict[str, Any]:
    schema = _draft7(
        ProjectSpec.model_json_schema(by_alias=True, ref_template=REF),
        "kgen project (kgen.yaml)",
    )
    # `dev-cpu: [cpu, v1]` is short for `dev-cpu: {overlays: [cpu, v1]}`.
    environments = schema["properties"]["environments"]
    shorthand = {"type": "array", "items": {"type": "string"}}
    long_form = environments["additionalProperties"]
    environments["additionalProperties"] = {"anyOf": [long_form, shorthand]}
    return schema


def editor_schemas() -> dict[str, dict[str, Any]]:
    """File name under schemas/ to schema: what editors check kgen's own files with."""
    return {
        "kgen-job.schema.json": job_schema(),
        "kgen-overlay.schema.json": overlay_schema(),
        "kgen-project.schema.json": project_schema(),
    }


def all_schemas() -> dict[str, dict[str, Any]]:
    """File name under schemas/ to schema: editor schemas and the job envelopes."""
    return {
        **editor_schemas(),
        **{
            name: _self_contained(body, target)
            for name, (body, target) in all_envelopes().items()
        },
    }


def _self_contained(envelope: dict[str, Any], target: str) -> dict[str, Any]:
    """An envelope (2020-12) with the core Kubernetes definitions it references, at the
    default kubernetesVersion or the older one the target's CRD embeds, so
    check-jsonschema and editors use the file as it is: no `#/$defs/...` pointer leads
    outside it. Their descriptions are left out (the files would be three times
    larger)."""
    from kgen.check.core import DEFAULT_KUBERNETES_VERSION, with_definitions
    from kgen.kinds.targets import pod_schema_version

    version = pod_schema_version(target, DEFAULT_KUBERNETES_VERSION)
    body = with_definitions(envelope, version)
    body["$comment"] = (
        f"Core definitions of Kubernetes {version} (kubernetes-validate, strict),"
        " included."
    )
    body["$defs"] = _without_descriptions(body["$defs"])
    return body


def _without_descriptions(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: _without_descriptions(v)
            for k, v in node.items()
            if not (k == "description" and isinstance(v, str))
        }
    if isinstance(node, list):
        return [_without_descriptions(item) for item in node]
    return node


def dump(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def _draft7(schema: dict[str, Any], title: str) -> dict[str, Any]:
    out: dict[str, Any] = {"$schema": DRAFT7, "title": title}
    body = _strip(schema)
    definitions = body.pop("$defs", {})
    out |= body
    out["title"] = title
    out["definitions"] = definitions
    return out


def _strip(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip(v) for k, v in node.items() if k != "discriminator"}
    if isinstance(node, list):
        return [_strip(item) for item in node]
    return node


def _partial(definitions: dict[str, Any]) -> dict[str, Any]:
    """Definitions as an overlay patch uses them: nothing required, null deletes, refs
    to the partial copies, and `$patch: delete` on named-list items."""
    out = {}
    for name, body in definitions.items():
        body = _repoint(copy.deepcopy(body))
        body.pop("required", None)
        properties = body.get("properties", {})
        for key, value in properties.items():
            properties[key] = {"anyOf": [value, {"type": "null"}]}
        if name in _PATCHABLE:
            properties["$patch"] = {
                "const": "delete",
                "description": "Remove this item (matched by its name or key).",
            }
        out[name] = body
    return out


def _repoint(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: (
                v.replace("#/definitions/", "#/definitions/Patch")
                if k == "$ref"
                else _repoint(v)
            )
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_repoint(item) for item in node]
    return node
