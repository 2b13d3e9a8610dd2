"""Kubeflow API targets: what each apiVersion, layout and operator release can express.

kubeflow-api.md §1-§3: `kubeflow.org/v1` has two incompatible shapes (run fields under
`spec.runPolicy` from training-operator 1.3, directly under `spec` before), the beta
versions each know fewer fields, and within the runPolicy shape each training-operator
minor release added fields to its CRDs. A structural CRD prunes a field it lacks without
a word, and Argo CD then shows the job OutOfSync for good; so a spec field a target
cannot express is an error naming the target (and the release it arrived in), never a
silent drop.

A target is a release line: `training-operator-1.3` ... `training-operator-1.9` each
mean exactly that minor release; `v1` is the 1.7-and-later line (what kgen wrote for
`v1` all along, kept so existing projects render byte-identically); `v1-legacy`,
`v1beta2` and `v1beta1` are the layouts of the operators before training-operator.
What a release has comes from one table (ARRIVED) of "arrived in release X" facts.
Each kind says on which targets it exists and which of its own fields each has
(kgen.kinds.base.Kind), so `kgen.kinds.kinds_on` answers which kinds a target serves.
A release line of another operator (Trainer v2, mpi-operator) is another target here.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from kgen.kinds.pod_schemas import (
    MPI_OPERATOR_POD_SCHEMA,
    POD_SCHEMA,
    TRAINER_POD_SCHEMA,
)

Release = tuple[int, int]

# The training-operator release each field (by its YAML path under spec), behaviour or
# kind arrived in, read from manifests/base/crds/kubeflow.org_pytorchjobs.yaml at each
# tag (kubeflow-api.md §1) and the 1.6 CRDs (kubeflow/training-operator@v1.6.0).
ARRIVED: dict[str, Release] = {
    "runPolicy": (1, 3),
    "runPolicy.backoffLimit": (1, 3),
    "runPolicy.activeDeadlineSeconds": (1, 3),
    "runPolicy.schedulingPolicy": (1, 3),
    # trainer#1762: a PyTorchJob without a Master, and elastic training.
    "elasticPolicy": (1, 4),
    "worker-only": (1, 4),
    "runPolicy.schedulingPolicy.scheduleTimeoutSeconds": (1, 6),
    "nprocPerNode": (1, 7),
    "runPolicy.suspend": (1, 7),
    "runPolicy.managedBy": (1, 9),
    # Kinds beside PyTorchJob and TFJob (kubeflow/training-operator@v1.9.0-rc.0:CHANGELOG.md):
    # XGBoostJob came with the all-in-one operator of 1.3, MPIJob v1 with 1.4 (#1457),
    # PaddleJob with 1.6 (#1675), JAXJob with 1.9 (#2163, #2194).
    "kind:XGBoostJob": (1, 3),
    "kind:MPIJob": (1, 4),
    "kind:PaddleJob": (1, 6),
    "kind:JAXJob": (1, 9),
}
# Run fields (by their YAML path) that only some targets have.
OPTIONAL_RUN_FIELDS = (
    "runPolicy.backoffLimit",
    "runPolicy.activeDeadlineSeconds",
    "runPolicy.schedulingPolicy",
)
# Every run field, in the order of the operator's Go struct (common_types.go RunPolicy).
RUN_FIELDS = (
    "cleanPodPolicy",
    "ttlSecondsAfterFinished",
    "activeDeadlineSeconds",
    "backoffLimit",
    "schedulingPolicy",
)
OPERATOR = "training-operator"
FIRST, LAST = (1, 3), (1, 9)


class ApiTarget(NamedTuple):
    name: str
    api_version: str
    description: str
    # Where cleanPodPolicy, backoffLimit and the other run fields live.
    run_fields_at: Literal["runPolicy", "spec"]
    supports: frozenset[str]
    # The training-operator release the target means (the first of its line for `v1`);
    # None for the operators before training-operator.
    release: Release | None = None
    # The Kubeflow Trainer v2 release a trainer target means (TrainJob only).
    trainer: Release | None = None
    # The Kubernetes minor whose pod template the release's CRD embeds (POD_SCHEMA);
    # None where the CRD does not prune the pod template.
    pod_schema: str | None = None

    @property
    def is_trainer(self) -> bool:
        """Whether the target is a Kubeflow Trainer v2 release (TrainJob)."""
        return self.trainer is not None

    def has(self, feature: str) -> bool:
        """Whether the target's CRD has the field (or the operator the behaviour)."""
        return feature in self.supports

    @property
    def release_name(self) -> str:
        """`training-operator 1.6`, or the description for the older layouts."""
        if self.release is None:
            return f"API target {self.name} ({self.description})"
        return f"{OPERATOR} {_version(self.release)}"


def _version(release: Release) -> str:
    return f"{release[0]}.{release[1]}"


def arrived_in(feature: str) -> str | None:
    """The training-operator release `feature` arrived in, if the table knows it."""
    release = ARRIVED.get(feature)
    return _version(release) if release else None


def _release(name: str, release: Release, description: str) -> ApiTarget:
    features = {f for f, since in ARRIVED.items() if since <= release}
    return ApiTarget(
        name=name,
        api_version="kubeflow.org/v1",
        description=description,
        run_fields_at="runPolicy",
        supports=frozenset(features),
        release=release,
        pod_schema=POD_SCHEMA[release],
    )


# Kubeflow Trainer v2 (trainer.kubeflow.org/v1alpha1 TrainJob), per minor release: what
# each release's TrainJobSpec has (kubeflow/trainer@v2.1.0, v2.2.1, v2.3.0:
# pkg/apis/trainer/v1alpha1/trainjob_types.go; kubeflow-api.md §9). v2.1 overrides the
# runtime's pods with podTemplateOverrides and takes numProcPerNode auto|cpu|gpu|N;
# v2.2 replaced them with runtimePatches, an integer numProcPerNode and
# activeDeadlineSeconds, and its pod patch took securityContext; v2.3 added
# terminationGracePeriodSeconds to the pod patch.
TRAINER = "trainer"
TRAINER_ARRIVED: dict[str, Release] = {
    "trainer.podTemplateOverrides": (2, 1),
    "trainer.runtimePatches": (2, 2),
    "trainer.activeDeadlineSeconds": (2, 2),
    "trainer.securityContext": (2, 2),
    "trainer.terminationGracePeriodSeconds": (2, 3),
    # StorageURI's format rule and maxLength (v2.3.0 trainjob_types.go).
    "trainer.storageUri.format": (2, 3),
}
# Fields a later release removed.
TRAINER_REMOVED: dict[str, Release] = {
    "trainer.podTemplateOverrides": (2, 2),
    "trainer.numProcPerNode.names": (2, 2),
}
TRAINER_RELEASES: tuple[Release, ...] = ((2, 1), (2, 2), (2, 3))


def _trainer(release: Release) -> ApiTarget:
    since = {f for f, at in TRAINER_ARRIVED.items() if at <= release}
    gone = {f for f, at in TRAINER_REMOVED.items() if at <= release}
    kept = {"trainer.numProcPerNode.names"} - gone
    version = _version(release)
    return ApiTarget(
        name=f"{TRAINER}-v{version}",
        api_version="trainer.kubeflow.org/v1alpha1",
        description=f"trainer.kubeflow.org/v1alpha1 TrainJob, Kubeflow Trainer {version}",
        run_fields_at="spec",
        supports=frozenset((since - gone) | kept),
        trainer=release,
        pod_schema=TRAINER_POD_SCHEMA[release],
    )


# mpi-operator's MPIJob v2beta1 shares group and kind with training-operator's MPIJob v1,
# so a cluster runs one or the other; an environment's one target says which.
MPI_OPERATOR = "mpi-operator"

_LEGACY_RUN = frozenset({"runPolicy.backoffLimit", "runPolicy.activeDeadlineSeconds"})
_MINORS = [(1, minor) for minor in range(FIRST[1], LAST[1] + 1)]

TARGETS: dict[str, ApiTarget] = {
    target.name: target
    for target in (
        _release(
            "v1",
            (1, 7),
            "kubeflow.org/v1 with spec.runPolicy, training-operator 1.7 and later",
        ),
        *(
            _release(
                f"{OPERATOR}-{_version(release)}",
                release,
                f"kubeflow.org/v1 with spec.runPolicy, {OPERATOR} {_version(release)}",
            )
            for release in _MINORS
        ),
        ApiTarget(
            name="v1-legacy",
            api_version="kubeflow.org/v1",
            description="kubeflow.org/v1 with run fields under spec, Kubeflow 0.6 to 1.2",
            run_fields_at="spec",
            supports=_LEGACY_RUN,
        ),
        ApiTarget(
            name="v1beta2",
            api_version="kubeflow.org/v1beta2",
            description="kubeflow.org/v1beta2, Kubeflow 0.5 and 0.6",
            run_fields_at="spec",
            supports=_LEGACY_RUN,
        ),
        ApiTarget(
            name="v1beta1",
            api_version="kubeflow.org/v1beta1",
            description="kubeflow.org/v1beta1, Kubeflow 0.4",
            run_fields_at="spec",
            supports=frozenset(),
        ),
        # Another operator's API: only its MPIJob lives here (kgen.kinds.mpi).
        ApiTarget(
            name=MPI_OPERATOR,
            api_version="kubeflow.org/v2beta1",
            description="kubeflow.org/v2beta1 MPIJob, mpi-operator 0.8",
            run_fields_at="runPolicy",
            # Its RunPolicy has every run field of training-operator 1.9
            # (kubeflow/mpi-operator@v0.8.0:pkg/apis/kubeflow/v2beta1/types.go).
            supports=frozenset(
                {
                    "runPolicy",
                    *OPTIONAL_RUN_FIELDS,
                    "runPolicy.schedulingPolicy.scheduleTimeoutSeconds",
                    "runPolicy.suspend",
                    "runPolicy.managedBy",
                }
            ),
            pod_schema=MPI_OPERATOR_POD_SCHEMA,
        ),
        *(_trainer(release) for release in TRAINER_RELEASES),
    )
}
DEFAULT_TARGET = "v1"
# The last training-operator release: the one whose CRDs keep the most.
LATEST_RELEASE = f"{OPERATOR}-{LAST[0]}.{LAST[1]}"


def pod_schema_version(target: str, version: str) -> str:
    """The Kubernetes minor a rendered job of `target` has its pod template checked
    against: the cluster's (`version`, kgen.yaml kubernetesVersion), or the older one
    the release's CRD embeds, whose API server prunes what that template lacks."""
    embedded = TARGETS[target].pod_schema
    if embedded is None or _minor(embedded) >= _minor(version):
        return version
    return embedded


def _minor(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


TRAINER_TARGETS = frozenset(name for name, t in TARGETS.items() if t.is_trainer)


def targets_with(feature: str) -> frozenset[str]:
    """The names of the targets that have `feature`."""
    return frozenset(name for name, t in TARGETS.items() if t.has(feature))


def targets_since(release: Release) -> frozenset[str]:
    """The names of the training-operator targets at `release` or later."""
    return frozenset(
        name for name, t in TARGETS.items() if t.release and t.release >= release
    )


def target_of_manifest(
    api_version: str, spec: dict[str, object], *, queued: bool = False
) -> str:
    """The target an existing job object was written for (`kgen import`).

    kubeflow.org/v1 is the legacy layout only when run fields sit directly under spec.
    A runPolicy without suspend and no nprocPerNode is what a 1.3-1.6 CRD keeps:
    training-operator-1.6, so the import renders the object as it was; but kgen writes
    no suspend for a job Kueue admits (`queued`) on any release. Otherwise current
    operators are the likelier reader (`v1`).
    An apiVersion no target has gives its version, which names no target."""
    matching = [t for t in TARGETS.values() if t.api_version == api_version]
    if matching and matching[0].is_trainer:
        # podTemplateOverrides, or numProcPerNode as a name, only v2.1 has.
        trainer = spec.get("trainer")
        nproc = trainer.get("numProcPerNode") if isinstance(trainer, dict) else None
        old = "podTemplateOverrides" in spec or isinstance(nproc, str)
        return f"{TRAINER}-v2.1" if old else f"{TRAINER}-v2.3"
    if len(matching) > 1:
        if "runPolicy" not in spec and any(k in spec for k in RUN_FIELDS):
            return "v1-legacy"
        policy = spec.get("runPolicy")
        bare = isinstance(policy, dict) and "suspend" not in policy and not queued
        if bare and "nprocPerNode" not in spec:
            return f"{OPERATOR}-1.6"
        return DEFAULT_TARGET
    return matching[0].name if matching else api_version.rsplit("/", 1)[-1]
