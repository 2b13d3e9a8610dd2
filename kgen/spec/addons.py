"""What runs beside the trainer: TensorBoard, and git code sync before it starts."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from kgen.spec.base import SpecModel
from kgen.spec.fields import AbsolutePath, Image, Int32Value, ObjectName
from kgen.spec.pod import ResourceAmounts

TENSORBOARD_IMAGE = "docker.io/tensorflow/tensorflow:2.15.0"
GIT_SYNC_IMAGE = "registry.k8s.io/git-sync/git-sync:v4.4.0"


class TensorBoard(SpecModel):
    """TensorBoard over the job's log directory, read-only from the same volume."""

    log_dir: AbsolutePath = Field(
        description="Where the job writes logs; must be inside one of its claim volumes.",
        examples=["/data/logs"],
    )
    kind: Literal["deployment", "kubeflow"] = Field(
        "deployment",
        description="`deployment`: a Deployment and Service; `kubeflow`: Kubeflow's Tensorboard resource (needs its controller and Istio).",
        examples=["kubeflow"],
    )
    image: Image | None = Field(
        None,
        description=f"TensorBoard image (deployment only; default {TENSORBOARD_IMAGE}).",
        examples=["docker.io/tensorflow/tensorflow:2.16.1"],
    )
    service_type: Literal["ClusterIP", "NodePort", "LoadBalancer"] = Field(
        "ClusterIP", description="How the Service is exposed.", examples=["NodePort"]
    )
    requests: ResourceAmounts | None = Field(
        None,
        description="TensorBoard's resource requests.",
        examples=[{"cpu": "250m", "memory": "1Gi"}],
    )
    limits: ResourceAmounts | None = Field(
        None, description="TensorBoard's resource limits.", examples=[{"memory": "2Gi"}]
    )


class CodeSync(SpecModel):
    """Clone a git repository into every pod before training starts (git-sync, one shot).
    The checkout is at `<path>/repo`, which becomes the working directory unless set."""

    repo: str = Field(
        min_length=1,
        description="Repository URL, without credentials.",
        examples=["https://github.com/org/train.git"],
    )
    ref: str = Field(
        min_length=1, description="Branch, tag or commit.", examples=["v1.4.0"]
    )
    path: AbsolutePath = Field(
        "/code",
        description="Where the code volume is mounted.",
        examples=["/workspace"],
    )
    image: Image = Field(
        GIT_SYNC_IMAGE,
        description="git-sync image (v4 flags).",
        examples=["mirror.example.com/git-sync:v4.4.0"],
    )
    # git-sync parses --depth as an int; a larger number stops the clone in every pod.
    depth: Int32Value = Field(
        1, ge=0, description="Clone depth; 0 for full history.", examples=[0]
    )
    credentials_secret: ObjectName | None = Field(
        None,
        description="A Secret with keys `username` and `password` (a token).",
        examples=["github-readonly"],
    )
