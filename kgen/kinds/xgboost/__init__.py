"""XGBoostJob (training-operator): a master (rank 0, the tracker) and workers.

The declaration only; the model, renderer, env contract, rules, envelope and import are
this package's other modules, imported on first use (kgen.kinds.base).
"""

from __future__ import annotations

from kgen.kinds.base import TRAINING_JOB_HEALTH, Kind, RoleDef, SingleRole
from kgen.kinds.targets import targets_with
from kgen.kinds.xgboost.catalog import CATALOG

# Constants and defaults: kubeflow/training-operator@v1.9.x:
# pkg/apis/kubeflow.org/v1/xgboost_types.go and xgboost_defaults.go.
MASTER = RoleDef(
    "master",
    "Master",
    "Rank 0 and the rabit tracker; exactly 1 replica.",
    1,
    single=SingleRole("xgboost-master-replicas", "exactly one"),
)
WORKER = RoleDef("worker", "Worker", "The other ranks.", 2)

KIND = Kind(
    framework="xgboost",
    kind="XGBoostJob",
    group="kubeflow.org",
    replica_key="xgbReplicaSpecs",
    roles=(MASTER, WORKER),
    api_roles=("Master", "Worker"),
    container="xgboost",
    port_name="xgboostjob-port",
    port=9999,
    default_restart="Never",
    # training-operator 1.3 and later (targets.ARRIVED).
    targets=targets_with("kind:XGBoostJob"),
    fields={},
    clean_pod_policy="None",
    clean_pod_policy_on={},
    health=TRAINING_JOB_HEALTH,
    catalog=CATALOG,
    package=__name__,
    appends_env=True,
)
