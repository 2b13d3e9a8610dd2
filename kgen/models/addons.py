"""What runs beside the trainer: TensorBoard, and git code sync before it starts."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from kgen.fields import AbsolutePath, Image, ObjectName
from kgen.models.base import SpecModel
from kgen.models.pod import ResourceAmounts

TENSORBOARD_IMAGE = "docker.io/tensorflow/tensorflow:2.15.0"
GIT_SYNC_IMAGE = "registry.k8s.io/git-sync/git-sync:v4.4.0"


class TensorBoard(SpecModel):
    """TensorBoard over the job's log directory, read-only from the same volume."""

    log_dir: AbsolutePath
    # `deployment`: a Deployment and Service kgen writes; `kubeflow`: Kubeflow's
    # tensorboard.kubeflow.org/v1alpha1 Tensorboard (needs its controller and Istio).
    kind: Literal["deployment", "kubeflow"] = "deployment"
    image: Image | None = None
    service_type: Literal["ClusterIP", "NodePort", "LoadBalancer"] = "ClusterIP"
    requests: ResourceAmounts | None = None
    limits: ResourceAmounts | None = None


class CodeSync(SpecModel):
    """Clone a git repository into the pod before training starts (git-sync, one shot)."""

    repo: str = Field(min_length=1)
    ref: str = Field(min_length=1)
    path: AbsolutePath = "/code"
    image: Image = GIT_SYNC_IMAGE
    depth: int = Field(1, ge=0)
    # A Secret with keys `username` and `password` (a token); never a literal.
    credentials_secret: ObjectName | None = None
