"""Kubeflow API targets: what each apiVersion and layout can express.

kubeflow-api.md §1-§3: `kubeflow.org/v1` has two incompatible shapes (run fields under
`spec.runPolicy` from training-operator 1.3, directly under `spec` before), and the beta
versions each know fewer fields. A spec field a target cannot express is an error naming
the target; kgen never drops it silently (the API server would prune it without a word).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# Spec fields (by their YAML path) that only some targets have.
OPTIONAL_FIELDS = (
    "runPolicy.backoffLimit",
    "runPolicy.activeDeadlineSeconds",
    "runPolicy.schedulingPolicy",
    "nprocPerNode",
    "elasticPolicy",
    "successPolicy",
    "enableDynamicWorker",
)


@dataclass(frozen=True)
class ApiTarget:
    name: str
    api_version: str
    description: str
    # Where cleanPodPolicy, backoffLimit and the other run fields live.
    run_fields_at: Literal["runPolicy", "spec"]
    supports: frozenset[str]
    # PyTorch worker-only jobs need training-operator >= 1.4 (trainer#1762).
    pytorch_needs_master: bool
    # The TF operator's own cleanPodPolicy default there (v1.6+: None; before: Running).
    tf_default_clean_pod_policy: Literal["None", "Running"]


_LEGACY_RUN = frozenset({"runPolicy.backoffLimit", "runPolicy.activeDeadlineSeconds"})

TARGETS: dict[str, ApiTarget] = {
    target.name: target
    for target in (
        ApiTarget(
            name="v1",
            api_version="kubeflow.org/v1",
            description="kubeflow.org/v1 with spec.runPolicy, training-operator 1.3 and later",
            run_fields_at="runPolicy",
            supports=frozenset(OPTIONAL_FIELDS),
            pytorch_needs_master=False,
            tf_default_clean_pod_policy="None",
        ),
        ApiTarget(
            name="v1-legacy",
            api_version="kubeflow.org/v1",
            description="kubeflow.org/v1 with run fields under spec, Kubeflow 0.6 to 1.2",
            run_fields_at="spec",
            # tf-operator gained these two before runPolicy (§2.2).
            supports=_LEGACY_RUN | {"successPolicy", "enableDynamicWorker"},
            pytorch_needs_master=True,
            tf_default_clean_pod_policy="Running",
        ),
        ApiTarget(
            name="v1beta2",
            api_version="kubeflow.org/v1beta2",
            description="kubeflow.org/v1beta2, Kubeflow 0.5 and 0.6",
            run_fields_at="spec",
            supports=_LEGACY_RUN,
            pytorch_needs_master=True,
            tf_default_clean_pod_policy="Running",
        ),
        ApiTarget(
            name="v1beta1",
            api_version="kubeflow.org/v1beta1",
            description="kubeflow.org/v1beta1, Kubeflow 0.4",
            run_fields_at="spec",
            supports=frozenset(),
            pytorch_needs_master=True,
            tf_default_clean_pod_policy="Running",
        ),
    )
}
DEFAULT_TARGET = "v1"
