"""The Kubernetes minor whose PodTemplateSpec each operator release's CRDs embed.

controller-gen writes a CRD's pod template from the k8s.io/api of the release's go.mod,
and a structural CRD prunes what that template lacks: an init container's
`restartPolicy` on a training-operator 1.6 cluster, so the native sidecar becomes an
init container that never ends and the job never starts. kgen checks a rendered job's
pod template against the older of this and the cluster's Kubernetes
(kgen.kinds.targets.pod_schema_version). Per minor line, the oldest of its patch
releases (training-operator 1.9.0's is older than 1.9.4's); never older than the oldest
Kubernetes kgen has definitions of (1.25), so a release before it is checked as 1.25.
The sources, and the tests that hold them against the upstream CRDs, are in
tests/test_pod_schema.py.
"""

from __future__ import annotations

Release = tuple[int, int]

# training-operator, by minor release.
POD_SCHEMA: dict[Release, str] = {
    (1, 3): "1.25",
    (1, 4): "1.25",
    (1, 5): "1.25",
    (1, 6): "1.25",
    (1, 7): "1.27",
    (1, 8): "1.29",
    (1, 9): "1.31",
}
# Kubeflow Trainer v2 (the TrainJob's pod parts), by minor release.
TRAINER_POD_SCHEMA: dict[Release, str] = {
    (2, 1): "1.34",
    (2, 2): "1.35",
    (2, 3): "1.35",
}
# mpi-operator 0.8 (MPIJob v2beta1).
MPI_OPERATOR_POD_SCHEMA = "1.35"
