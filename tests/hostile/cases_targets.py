"""Hostile inputs against operator-release targets (issue 16)."""

from __future__ import annotations

from tests.hostile.case import Case, job

_NO_ROLES_PYTORCH = "framework: pytorch\nimage: docker.io/x/y:1.0\nroles: {}\n"
_NO_ROLES_TF = "framework: tensorflow\nimage: docker.io/x/y:1.0\nroles: {}\n"
_DELETE_LAST_ROLE = "target: v1\npatch:\n  roles:\n    master: null\n    worker: null\n"

CASES: dict[str, Case] = {
    # --- a job without roles: located errors (exit 1) from every command, never exit 3
    "pytorch-job-without-roles": Case(
        job(_NO_ROLES_PYTORCH), about="`roles: {}` exited 3 from every command"
    ),
    "tf-job-without-roles": Case(
        job(_NO_ROLES_TF), about="`roles: {}` exited 3 from every command"
    ),
    "job-without-roles-rendered": Case(
        job(_NO_ROLES_PYTORCH), args=("render", "train", "--env", "dev")
    ),
    "job-without-roles-explained": Case(
        job(_NO_ROLES_PYTORCH), args=("explain", "train", "--env", "dev")
    ),
    "job-without-roles-listed": Case(job(_NO_ROLES_TF), args=("list",)),
    "job-without-roles-built": Case(job(_NO_ROLES_TF), args=("build",)),
    "overlay-deletes-the-last-role": Case(
        {"overlays/v1.yaml": _DELETE_LAST_ROLE},
        about="an overlay that deletes every role exited 3",
    ),
}
