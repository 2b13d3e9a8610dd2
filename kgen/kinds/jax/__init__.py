"""JAXJob (training-operator 1.9 and later): workers only; worker 0 is the coordinator.

The declaration only; the model, renderer, env contract, rules, envelope and import are
this package's other modules, imported on first use (kgen.kinds.base).
"""

from __future__ import annotations

from kgen.kinds.base import TRAINING_JOB_HEALTH, Kind, RoleDef
from kgen.kinds.jax.catalog import CATALOG
from kgen.kinds.targets import targets_with

# Constants and defaults: kubeflow/training-operator@v1.9.x:
# pkg/apis/kubeflow.org/v1/jax_types.go and jax_defaults.go.
WORKER = RoleDef("worker", "Worker", "The JAX processes; worker 0 coordinates.", 2)

KIND = Kind(
    framework="jax",
    kind="JAXJob",
    group="kubeflow.org",
    replica_key="jaxReplicaSpecs",
    roles=(WORKER,),
    api_roles=("Worker",),
    container="jax",
    port_name="jaxjob-port",
    port=6666,
    default_restart="Never",
    # New in training-operator 1.9.0 (#2163, #2194): not on target v1 (1.7 and later),
    # since a 1.7 or 1.8 cluster has no JAXJob resource.
    targets=targets_with("kind:JAXJob"),
    fields={},
    clean_pod_policy="None",
    clean_pod_policy_on={},
    health=TRAINING_JOB_HEALTH,
    catalog=CATALOG,
    package=__name__,
    appends_env=True,
)
