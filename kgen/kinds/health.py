"""How a job kind's status conditions map to health: the table each kind declares, from
which kgen.gitops builds the Argo CD Lua and the Flux CEL."""

from __future__ import annotations

from typing import NamedTuple


class Health(NamedTuple):
    """How a job's status conditions map to Argo CD health: the first condition that is
    True among `conditions` (type, health, message when it has none) wins."""

    conditions: tuple[tuple[str, str, str], ...]
    otherwise: tuple[str, str]  # health and message while none is True
    # Conditions that say the job is up: a controller that blocks on health (Flux's
    # wait) counts it ready then, since waiting for the end of training would time out.
    started: tuple[str, ...] = ()
    # A kind without a condition that says it is up (TrainJob): a CEL expression over
    # its status that does, for Flux's `current`.
    started_expr: str = ""


# Argo CD ships no health check for kubeflow.org kinds, so an app shows Healthy while a
# job runs and after it fails (kubeflow-api.md §8.1). Failed wins over everything, then
# Succeeded, then Suspended; anything else is still running.
TRAINING_JOB_HEALTH = Health(
    conditions=(
        ("Failed", "Degraded", "The training job failed"),
        ("Succeeded", "Healthy", "The training job succeeded"),
        ("Suspended", "Suspended", "The training job is suspended"),
    ),
    otherwise=("Progressing", "Waiting for the training job to finish"),
    started=("Running",),
)
