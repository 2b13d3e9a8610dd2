"""The TF_CONFIG the operator gives each TFJob pod (kubeflow-api.md §6): one format
on every target, so a user can check the cluster each task sees (`kgen explain`)."""

from __future__ import annotations

import json

from kgen.kinds.base import Replica
from kgen.kinds.tensorflow import KIND
from kgen.kinds.tensorflow.spec import own
from kgen.render.base import Environment
from kgen.spec.job import JobSpec, role_items

PORT = KIND.port
SINGLE = "a single-replica TFJob gets no TF_CONFIG"


def replicas(spec: JobSpec, env: Environment) -> list[Replica]:
    job = own(spec)
    roles = role_items(job)
    total = sum(role.replicas for _, role in roles)
    namespace = env.namespace or "<namespace>"
    cluster = {
        role: [
            f"{job.name}-{role}-{i}.{namespace}.svc:{PORT}"
            for i in range(settings.replicas)
        ]
        for role, settings in sorted(roles)
    }
    out = []
    for role, settings in roles:
        for index in range(settings.replicas):
            pod = f"{job.name}-{role}-{index}"
            # A single-replica job gets no TF_CONFIG at all (isDistributed).
            if total == 1:
                out.append(Replica(pod, {}, SINGLE))
                continue
            sparse = bool(job.enable_dynamic_worker)
            config = tf_config(cluster, role, index, sparse=sparse)
            out.append(Replica(pod, {"TF_CONFIG": config}))
    return out


def tf_config(
    cluster: dict[str, list[str]], role: str, index: int, *, sparse: bool
) -> str:
    """TF_CONFIG as the operator marshals it: compact JSON, cluster keys sorted."""
    task = {"type": role, "index": index}
    if not sparse:
        return json.dumps(
            {"cluster": cluster, "task": task, "environment": "cloud"},
            separators=(",", ":"),
        )
    # enableDynamicWorker: each worker sees only itself; chief and evaluator no workers.
    workers = {str(index): cluster["worker"][index]} if role == "worker" else {}
    sparse_cluster: dict[str, object] = {"worker": workers, "ps": cluster.get("ps", [])}
    return json.dumps({"cluster": sparse_cluster, "task": task}, separators=(",", ":"))
