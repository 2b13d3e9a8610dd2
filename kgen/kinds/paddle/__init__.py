"""PaddleJob (training-operator 1.6 and later): workers alone (collective mode), or a
master with workers (parameter-server mode).

The declaration only; the model, renderer, env contract, rules, envelope and import are
this package's other modules, imported on first use (kgen.kinds.base).
"""

from __future__ import annotations

from kgen.kinds.base import TRAINING_JOB_HEALTH, Kind, RoleDef
from kgen.kinds.paddle.catalog import CATALOG
from kgen.kinds.targets import targets_with

# Constants and defaults: kubeflow/training-operator@v1.9.x:
# pkg/apis/kubeflow.org/v1/paddlepaddle_types.go and paddlepaddle_defautls.go [sic].
MASTER = RoleDef(
    "master", "Master", "Parameter servers (PS mode); leave out for collective mode.", 1
)
WORKER = RoleDef("worker", "Worker", "The trainers.", 2)

KIND = Kind(
    framework="paddle",
    kind="PaddleJob",
    group="kubeflow.org",
    replica_key="paddleReplicaSpecs",
    roles=(MASTER, WORKER),
    api_roles=("Master", "Worker"),
    container="paddle",
    # The port is named `master`, not `paddlejob-port`.
    port_name="master",
    port=36543,
    default_restart="OnFailure",
    # New in training-operator 1.6.0 (#1675).
    targets=targets_with("kind:PaddleJob"),
    fields={},
    clean_pod_policy="None",
    clean_pod_policy_on={},
    health=TRAINING_JOB_HEALTH,
    catalog=CATALOG,
    package=__name__,
    appends_env=True,
)
