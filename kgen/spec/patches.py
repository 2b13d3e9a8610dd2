"""`patches:` on a job spec or an overlay: changes to the rendered objects, applied after
the render and checked like everything kgen renders (kgen.patch, docs/patches.md).

A last resort for what the spec does not model. Each entry picks objects (`target:`,
by default the job's own object) and either lists RFC 6902 operations (`ops:`) or gives
a strategic-merge patch (`merge:`), as kustomize's `patches:` does.
"""

import re
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, model_validator

from kgen.spec.base import OneOf, SpecModel
from kgen.spec.fields import AtMost, at_most, checked

# Patches are hostile input like the rest: a job or overlay may carry at most this
# many, each at most this many operations (a kustomization rarely has ten).
MAX_PATCHES = 100
MAX_OPS = 1_000
# A pointer longer than any path in a Kubernetes object is a mistake or an attack.
MAX_POINTER_CHARS = 1_024
MAX_POINTER_TOKENS = 64

_ESCAPE = re.compile(r"~(?![01])")


def _pointer(value: str) -> str | None:
    """An RFC 6901 pointer to a place inside the object (never the whole object)."""
    if len(value) > MAX_POINTER_CHARS:
        return f"a pointer of {len(value):,} characters is too long: kgen takes at most {MAX_POINTER_CHARS:,}"
    if not value.startswith("/"):
        return f"'{value}' is not a JSON pointer, which starts with '/' (RFC 6901): /spec/runPolicy"
    if value.count("/") > MAX_POINTER_TOKENS:
        return f"a pointer of {value.count('/')} parts is too deep: kgen takes at most {MAX_POINTER_TOKENS}"
    if _ESCAPE.search(value):
        return f"'{value}' has a '~' that is not '~0' (~) or '~1' (/) (RFC 6901)"
    if not value.isprintable():
        return "the pointer has a control character"
    return None


Pointer = Annotated[str, checked(_pointer)]
_NEEDS_VALUE = ("add", "replace", "test")
_NEEDS_FROM = ("move", "copy")


class PatchOp(SpecModel):
    """One RFC 6902 operation on the selected object. `path` and `from` are JSON
    pointers (RFC 6901: `/spec/runPolicy/backoffLimit`, `~1` for a `/` in a key, `-` for
    the end of a list)."""

    op: Literal["add", "remove", "replace", "move", "copy", "test"] = Field(
        description="`add`, `remove`, `replace`, `move`, `copy` or `test`.",
        examples=["add"],
    )
    path: Pointer = Field(
        description="Where the operation applies.",
        examples=["/spec/pytorchReplicaSpecs/Worker/template/spec/schedulerName"],
    )
    from_: Pointer | None = Field(
        None,
        alias="from",
        description="Where `move` and `copy` take the value from.",
        examples=["/metadata/labels/team"],
    )
    value: Any = Field(
        None,
        description="The value `add` and `replace` write and `test` expects.",
        examples=["volcano"],
    )

    @model_validator(mode="after")
    def _operands(self) -> Any:
        if self.op in _NEEDS_VALUE and "value" not in self.model_fields_set:
            raise ValueError(f"a '{self.op}' operation needs a value")
        if self.op in _NEEDS_FROM and self.from_ is None:
            raise ValueError(f"a '{self.op}' operation needs 'from'")
        if self.op not in _NEEDS_VALUE and "value" in self.model_fields_set:
            raise ValueError(f"a '{self.op}' operation takes no value")
        if self.op not in _NEEDS_FROM and self.from_ is not None:
            raise ValueError(f"a '{self.op}' operation takes no 'from'")
        return self


class PatchTarget(SpecModel):
    """Which rendered objects a patch changes: every criterion given must match. Names
    are the objects' names before a `runId` or content-hash suffix."""

    kind: str | None = Field(
        None, description="The object's kind.", examples=["PyTorchJob"]
    )
    name: str | None = Field(
        None, description="The object's name.", examples=["mnist-ddp-tensorboard"]
    )
    group: str | None = Field(
        None,
        description='The API group of its apiVersion (`""` for core objects).',
        examples=["kubeflow.org"],
    )
    version: str | None = Field(
        None, description="The version of its apiVersion.", examples=["v1"]
    )
    labels: Annotated[dict[str, str], AtMost] | None = Field(
        None,
        description="Labels the object must carry, all with these values.",
        examples=[{"app.kubernetes.io/component": "tensorboard"}],
    )


class ObjectPatch(OneOf):
    """A change to rendered objects: `ops` (RFC 6902) or `merge` (strategic merge:
    maps merge, `null` deletes a key, `$patch: delete` deletes a map or a list item,
    `$patch: replace` replaces a map; containers, initContainers, volumes, env,
    imagePullSecrets and other pod lists merge by their Kubernetes merge key, other
    lists are replaced). Applied after the render, the job's own patches first, then
    each overlay's in the environment's order; the result is checked against the
    object's schema and the host-access rules."""

    _sources: ClassVar[tuple[str, ...]] = ("ops", "merge")
    _what: ClassVar[str] = "a patch"

    target: PatchTarget | None = Field(
        None,
        description="The objects to change (default: the job's own object).",
        examples=[{"kind": "Deployment"}],
    )
    ops: (
        Annotated[
            list[PatchOp], at_most(MAX_OPS, "and a patch that long belongs in the spec")
        ]
        | None
    ) = Field(
        None,
        description="RFC 6902 operations, applied in order.",
        examples=[[{"op": "add", "path": "/spec/runPolicy/suspend", "value": True}]],
    )
    merge: dict[str, Any] | None = Field(
        None,
        description="A partial object merged into each selected object (strategic merge).",
        examples=[{"metadata": {"annotations": {"team": "vision"}}}],
    )


Patches = Annotated[
    list[ObjectPatch],
    at_most(MAX_PATCHES, "and that many patches belong in the spec or a generator"),
]
