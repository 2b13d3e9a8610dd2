"""What runs beside the trainer: TensorBoard, and git code sync before it starts."""

from typing import Annotated, Literal

from pydantic import Field

from kgen.spec.base import SpecModel
from kgen.spec.fields import AbsolutePath, Image, Int32Value, ObjectName, checked
from kgen.spec.pod import ResourceAmounts


def _folder(value: str) -> str | None:
    if value in (".", "..") or "/" in value or "\0" in value:
        return f"'{value}' must be one folder name, without '/'"
    return None


Folder = Annotated[str, checked(_folder)]

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
    The checkout is at `<path>/<folder>`, which becomes the working directory unless set;
    `folder` defaults to the repository's name as `git clone` names it, as arena does."""

    repo: str = Field(
        min_length=1,
        description="Repository URL, without credentials.",
        examples=["https://github.com/org/train.git"],
    )
    ref: str | None = Field(
        None,
        min_length=1,
        description="Branch, tag or commit; the remote's default branch if unset.",
        examples=["v1.4.0"],
    )
    folder: Folder | None = Field(
        None,
        description="The checkout's folder under `path`; default the repository's name.",
        examples=["train"],
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
    submodules: Literal["recursive", "shallow", "off"] = Field(
        "recursive",
        description="git-sync's submodule mode (its default, recursive).",
        examples=["off"],
    )
    credentials_secret: ObjectName | None = Field(
        None,
        description="A Secret with keys `username` and `password` (a token).",
        examples=["github-readonly"],
    )

    @property
    def checkout(self) -> str:
        """The checkout's folder: `folder`, else the name `git clone` gives it (the
        last component of the URL or scp-like path, without `.git`)."""
        if self.folder is not None:
            return self.folder
        return repository_name(self.repo)

    @property
    def working_dir(self) -> str:
        return f"{self.path.rstrip('/')}/{self.checkout}"


def repository_name(url: str) -> str:
    """The folder `git clone <url>` makes (git's guess_dir_name): the last component,
    without a trailing `/`, `/.git` or `.git`; `repo` when nothing is left."""
    stripped = url.split("?", 1)[0].split("#", 1)[0].rstrip("/")
    stripped = stripped.removesuffix("/.git").rstrip("/")
    name = stripped.replace(":", "/").rsplit("/", 1)[-1].removesuffix(".git")
    return name if name and name not in (".", "..") else "repo"
