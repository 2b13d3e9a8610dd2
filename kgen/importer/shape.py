"""`kgen import`, the shape of what it reads, checked before it is read: manifests come
from anywhere, and a replica spec that is `null`, containers that are a string or a
spec that is a list is the input's fault, reported at its own line with the shape the
API gives it (`spec.pytorchReplicaSpecs.Master must be a mapping (a replica spec), not
null`), never as the exception reading it would raise.

Only what import reads is checked, as far as it reads it (a probe, affinity, passed on
whole, are the build's to check). A missing or null field is left out, as the API server
reads it, except where the API has none (a null replica spec, a null container).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from kgen.errors import DataPath
from kgen.importer.pods import GPU_RESOURCES


@dataclass(frozen=True)
class Shape:
    """What a value must be: its type (`mapping`, `list`, `string`, `integer`), what it
    is in the API's words, the shapes of its known fields (a mapping's) or of each of
    its items or values, the fields it must have (`a|b`: one of them), and whether it
    may be null. A `count` is a whole number, or text of one (a GPU limit)."""

    type: str
    what: str = ""
    fields: dict[str, Shape] = field(default_factory=dict)
    each: Shape | None = None
    needs: tuple[str, ...] = ()
    null: bool = True


def mapping(what: str = "", *, needs: tuple[str, ...] = (), **fields: Shape) -> Shape:
    return Shape("mapping", what, fields, needs=needs)


def listed(item: Shape, what: str = "") -> Shape:
    """A list of `item`s, none of them null."""
    return Shape("list", what, each=required(item))


def by_name(value: Shape, what: str) -> Shape:
    """A mapping of any string keys to `value`s (a role's replica specs by role)."""
    return Shape("mapping", what, each=value)


def required(shape: Shape) -> Shape:
    return Shape(
        shape.type, shape.what, shape.fields, shape.each, shape.needs, null=False
    )


TEXT = Shape("string")
INTEGER = Shape("integer")
ANY_MAPPING = mapping()
ANY_LIST = Shape("list")
METADATA = mapping(
    "object metadata", labels=ANY_MAPPING, annotations=ANY_MAPPING, namespace=TEXT
)
GPU_COUNT = Shape("count", "a GPU count", null=False)
RESOURCES = mapping(
    "resource requirements",
    limits=Shape("mapping", "resource limits", dict.fromkeys(GPU_RESOURCES, GPU_COUNT)),
    requests=ANY_MAPPING,
)
_VALUE_FROM = mapping(
    "an environment variable's source",
    fieldRef=required(mapping("a field reference", needs=("fieldPath",))),
    secretKeyRef=required(ANY_MAPPING),
    configMapKeyRef=required(ANY_MAPPING),
)
ENV = listed(
    mapping(
        "an environment variable", needs=("name",), name=TEXT, valueFrom=_VALUE_FROM
    ),
    "of environment variables",
)
_NAMED = mapping("a reference by name", needs=("name",), name=TEXT)
ENV_FROM = listed(
    mapping(
        "an environment source",
        needs=("configMapRef|secretRef",),
        configMapRef=required(_NAMED),
        secretRef=required(_NAMED),
    ),
    "of environment sources",
)
CONTAINER = mapping(
    "a container",
    name=TEXT,
    command=ANY_LIST,
    args=listed(TEXT, "of strings"),
    env=ENV,
    envFrom=ENV_FROM,
    resources=RESOURCES,
    ports=listed(ANY_MAPPING, "of ports"),
    volumeMounts=listed(
        mapping("a volume mount", needs=("name",), name=TEXT), "of volume mounts"
    ),
)
VOLUME = mapping(
    "a volume",
    needs=("name",),
    name=TEXT,
    emptyDir=ANY_MAPPING,
    persistentVolumeClaim=mapping(
        "a claim reference", needs=("claimName",), claimName=TEXT
    ),
    configMap=mapping("a ConfigMap reference", needs=("name",)),
    secret=mapping("a Secret reference", needs=("secretName",)),
)
POD = mapping(
    "a pod spec",
    containers=listed(CONTAINER, "of containers"),
    initContainers=listed(CONTAINER, "of containers"),
    volumes=listed(VOLUME, "of volumes"),
    imagePullSecrets=listed(_NAMED, "of references by name"),
    tolerations=ANY_LIST,
)
TEMPLATE = mapping("a pod template", metadata=METADATA, spec=POD)
REPLICA = required(mapping("a replica spec", template=TEMPLATE))


def replica_job(replica_key: str) -> Shape:
    """A job of a training-operator kind or MPIJob (v1 and v2beta1): its replica specs
    by role, and the run policy it reads the run fields from."""
    return mapping(
        metadata=METADATA,
        spec=Shape(
            "mapping",
            "a job spec",
            {
                replica_key: by_name(REPLICA, "replica specs by role"),
                "runPolicy": ANY_MAPPING,
            },
        ),
    )


_RUNTIME_PATCH = mapping(
    "a runtime patch",
    trainingRuntimeSpec=mapping(
        "a training runtime spec",
        template=mapping(
            "a JobSet template",
            spec=mapping(
                "a JobSet spec",
                replicatedJobs=listed(
                    mapping(
                        "a replicated job",
                        template=mapping(
                            "a Job template",
                            spec=mapping("a Job spec", template=TEMPLATE),
                        ),
                    ),
                    "of replicated jobs",
                ),
            ),
        ),
    ),
)
TRAIN_JOB = mapping(
    metadata=METADATA,
    spec=mapping(
        "a TrainJob spec",
        runtimeRef=ANY_MAPPING,
        trainer=mapping(
            "a trainer",
            command=ANY_LIST,
            args=ANY_LIST,
            env=ENV,
            resourcesPerNode=RESOURCES,
            numNodes=INTEGER,
        ),
        podTemplateOverrides=listed(
            mapping("a pod template override", metadata=METADATA, spec=POD),
            "of pod template overrides",
        ),
        runtimePatches=listed(_RUNTIME_PATCH, "of runtime patches"),
        initializer=ANY_MAPPING,
    ),
)
# The TensorBoard objects kgen renders beside a job (kgen.importer.tensorboard), by kind.
BOARDS = {
    "Deployment": mapping(
        metadata=METADATA, spec=mapping("a Deployment spec", template=TEMPLATE)
    ),
    "Service": mapping(metadata=METADATA, spec=mapping("a Service spec", type=TEXT)),
    "Tensorboard": mapping(
        metadata=METADATA, spec=mapping("a Tensorboard spec", logspath=TEXT)
    ),
}
CLAIM = mapping(
    metadata=METADATA,
    spec=mapping(
        "a claim spec",
        resources=mapping("volume resource requirements", requests=ANY_MAPPING),
        accessModes=ANY_LIST,
    ),
)


class Wrong(NamedTuple):
    """Where a value does not have its shape, the field the message names (`at`, or
    the mapping whose key is not text), and what the message says of it."""

    at: DataPath
    named: DataPath
    says: str


def first_wrong(value: Any, shape: Shape, path: DataPath = ()) -> Wrong | None:
    """The first place in `value` (depth first, in the input's order) that does not have
    `shape`, and what it should be; None when all of it has."""
    if value is None:
        return None if shape.null else Wrong(path, path, _expected(shape, value))
    if not _is(value, shape.type):
        return Wrong(path, path, _expected(shape, value))
    if isinstance(value, dict):
        return _first_in_mapping(value, shape, path)
    if isinstance(value, list) and shape.each is not None:
        for index, item in enumerate(value):
            wrong = first_wrong(item, shape.each, (*path, index))
            if wrong is not None:
                return wrong
    return None


def _first_in_mapping(
    value: dict[Any, Any], shape: Shape, path: DataPath
) -> Wrong | None:
    for key, item in value.items():
        if not isinstance(key, str):
            return Wrong((*path, key), path, f"must have text keys, not {_a(key)}")
        inner = shape.fields.get(key) or shape.each
        wrong = first_wrong(item, inner, (*path, key)) if inner is not None else None
        if wrong is not None:
            return wrong
    missing = [
        key
        for key in shape.needs
        if all(value.get(one) is None for one in key.split("|"))
    ]
    if missing:
        needed = missing[0].replace("|", " or ")
        return Wrong(path, path, f"must have {needed} ({shape.what})")
    return None


def _is(value: Any, type_: str) -> bool:
    if type_ == "mapping":
        return isinstance(value, dict)
    if type_ == "list":
        return isinstance(value, list)
    if type_ == "string":
        return isinstance(value, str)
    if type_ == "count" and isinstance(value, str):
        return value.isascii() and value.isdigit()
    return isinstance(value, int) and not isinstance(value, bool)


def _expected(shape: Shape, value: Any) -> str:
    what = f" ({shape.what})" if shape.what else ""
    if shape.type == "list" and shape.what:
        what = f" {shape.what}"  # a list of containers
    return f"must be {_ARTICLE[shape.type]}{what}, not {_a(value)}"


_ARTICLE = {
    "count": "a whole number",
    "mapping": "a mapping",
    "list": "a list",
    "string": "a string",
    "integer": "an integer",
}


def _a(value: Any) -> str:
    """What a YAML value is, never the value itself (messages name fields, not values)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "a mapping"


class Unreadable(Exception):
    """What import cannot read, at `path` of the document it reads: raised where the
    shape alone does not tell (kgen.kinds.trainer.view), reported at its line."""

    def __init__(self, path: DataPath, message: str) -> None:
        super().__init__(message)
        self.path, self.message = path, message
