"""What Kueue owns in a job it admits: the suspend field, never written by kgen.

Kueue's mutating webhook suspends a job that carries its queue-name label when the job
is created (kubernetes-sigs/kueue pkg/controller/jobframework/defaults.go
`ApplyDefaultForSuspend`; the webhooks of PyTorchJob, MPIJob v2beta1, TrainJob and the
other Kubeflow kinds run on create only), and its controller clears it when the job is
admitted. A `suspend` in the manifest is owned by whatever applies it: Flux's
kustomize-controller applies with server-side apply and takes the field back on every
reconcile, so the admitted job is set running, or the queued one set going, against
Kueue. Without the field in the manifest neither Flux nor Argo CD has an opinion on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kgen.spec.job import JobSpec

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"


def queued(spec: JobSpec) -> bool:
    """Kueue admits the job: its labels name a LocalQueue."""
    return QUEUE_LABEL in spec.labels
