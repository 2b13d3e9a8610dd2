"""`kgen import`, the shapes the API gives what import reads (kgen.importer.shape
checks them): a job of each kind, its pods, and the objects beside it. Only what import
reads, as far as it reads it; a probe or an affinity, passed on whole, is the build's to
check."""

from __future__ import annotations

from kgen.importer.pods import GPU_RESOURCES
from kgen.importer.shape import Shape, by_name, listed, mapping, required

TEXT = Shape("string")
INTEGER = Shape("integer")
ANY_MAPPING = mapping()
ANY_LIST = Shape("list")
METADATA = mapping(
    "object metadata", labels=ANY_MAPPING, annotations=ANY_MAPPING, namespace=TEXT
)
GPU_COUNT = Shape("count", "a GPU count", null=False)
# A request, limit or claim size: text or a number, as the API's Quantity reads it (a
# list or mapping was imported as Python's text of it).
QUANTITY = Shape("quantity")
QUANTITIES = Shape("mapping", "resource quantities", each=QUANTITY)
RESOURCES = mapping(
    "resource requirements",
    limits=Shape(
        "mapping",
        "resource limits",
        dict.fromkeys(GPU_RESOURCES, GPU_COUNT),
        each=QUANTITY,
    ),
    requests=QUANTITIES,
)
_VALUE_FROM = mapping(
    "an environment variable's source",
    fieldRef=required(mapping("a field reference", needs=("fieldPath",))),
    secretKeyRef=required(ANY_MAPPING),
    configMapKeyRef=required(ANY_MAPPING),
)
ENV = listed(
    mapping(
        "an environment variable",
        needs=("name",),
        name=TEXT,
        value=TEXT,
        valueFrom=_VALUE_FROM,
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
        resources=mapping("volume resource requirements", requests=QUANTITIES),
        accessModes=ANY_LIST,
    ),
)
