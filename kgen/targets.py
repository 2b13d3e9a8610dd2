"""Kubeflow API targets: what each apiVersion and layout can express.

kubeflow-api.md §1-§3: `kubeflow.org/v1` has two incompatible shapes (run fields under
`spec.runPolicy` from training-operator 1.3, directly under `spec` before), and the beta
versions each know fewer fields. A spec field a target cannot express is an error naming
the target; kgen never drops it silently (the API server would prune it without a word).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class ApiTarget:
    name: str
    api_version: str
    description: str
    # Where backoffLimit, cleanPodPolicy and friends live.
    run_fields_at: Literal["runPolicy", "spec"]
    # Run fields this target knows (spec names).
    run_fields: frozenset[str]
    # PyTorch worker-only jobs need training-operator >= 1.4 (trainer#1762).
    pytorch_needs_master: bool
    nproc_per_node: bool
    # The TF operator's own cleanPodPolicy default there (v1.6+: None; before: Running).
    tf_default_clean_pod_policy: Literal["None", "Running"]


_V1_RUN_FIELDS = frozenset({"cleanPodPolicy", "backoffLimit", "activeDeadlineSeconds"})

TARGETS: dict[str, ApiTarget] = {
    target.name: target
    for target in (
        ApiTarget(
            name="v1",
            api_version="kubeflow.org/v1",
            description="kubeflow.org/v1 with spec.runPolicy, training-operator 1.3 and later",
            run_fields_at="runPolicy",
            run_fields=_V1_RUN_FIELDS,
            pytorch_needs_master=False,
            nproc_per_node=True,
            tf_default_clean_pod_policy="None",
        ),
        ApiTarget(
            name="v1-legacy",
            api_version="kubeflow.org/v1",
            description="kubeflow.org/v1 with run fields under spec, Kubeflow 0.6 to 1.2",
            run_fields_at="spec",
            run_fields=_V1_RUN_FIELDS,
            pytorch_needs_master=True,
            nproc_per_node=False,
            tf_default_clean_pod_policy="Running",
        ),
        ApiTarget(
            name="v1beta2",
            api_version="kubeflow.org/v1beta2",
            description="kubeflow.org/v1beta2, Kubeflow 0.5 and 0.6",
            run_fields_at="spec",
            run_fields=_V1_RUN_FIELDS,
            pytorch_needs_master=True,
            nproc_per_node=False,
            tf_default_clean_pod_policy="Running",
        ),
        ApiTarget(
            name="v1beta1",
            api_version="kubeflow.org/v1beta1",
            description="kubeflow.org/v1beta1, Kubeflow 0.4",
            run_fields_at="spec",
            run_fields=frozenset({"cleanPodPolicy"}),
            pytorch_needs_master=True,
            nproc_per_node=False,
            tf_default_clean_pod_policy="Running",
        ),
    )
}
DEFAULT_TARGET = "v1"
