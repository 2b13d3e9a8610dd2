"""TFJob (training-operator): chief, workers, parameter servers and evaluators.

The declaration only; the model, renderer, env contract, rules, envelope and import are
this package's other modules, imported on first use (kgen.kinds.base).
"""

from __future__ import annotations

from kgen.kinds.base import TRAINING_JOB_HEALTH, Kind, RoleDef, SingleRole
from kgen.kinds.targets import MPI_OPERATOR, TARGETS, TRAINER_TARGETS, targets_since
from kgen.kinds.tensorflow.catalog import CATALOG

# tf-operator had successPolicy and enableDynamicWorker before runPolicy (§2.2).
SINCE_V1 = frozenset(
    name for name, t in TARGETS.items() if t.api_version == "kubeflow.org/v1"
)

KIND = Kind(
    framework="tensorflow",
    kind="TFJob",
    group="kubeflow.org",
    replica_key="tfReplicaSpecs",
    roles=(
        RoleDef(
            "chief",
            "Chief",
            "Coordinates training; at most 1 replica.",
            1,
            single=SingleRole("tf-chief-replicas", "at most one"),
        ),
        RoleDef("worker", "Worker", "Training workers.", 4),
        RoleDef(
            "ps",
            "PS",
            "Parameter servers (no GPU unless asked).",
            2,
            gpu_by_default=False,
            never_exits=True,
        ),
        RoleDef("evaluator", "Evaluator", "Side-car evaluation.", 1),
    ),
    api_roles=("Chief", "Master", "Worker", "PS", "Evaluator"),
    container="tensorflow",
    port_name="tfjob-port",
    port=2222,
    default_restart="Never",
    targets=frozenset(TARGETS) - {MPI_OPERATOR} - TRAINER_TARGETS,
    fields={"successPolicy": SINCE_V1, "enableDynamicWorker": SINCE_V1},
    # The operator's own default: Running until training-operator 1.6 made it None
    # (trainer#1754, shipped in v1.6.0; kubeflow-api.md §3.1); PS pods never exit, so
    # kgen keeps Running for them.
    clean_pod_policy="Running",
    clean_pod_policy_on=dict.fromkeys(targets_since((1, 6)), "None"),
    health=TRAINING_JOB_HEALTH,
    catalog=CATALOG,
    package=__name__,
    appends_env=True,
)
