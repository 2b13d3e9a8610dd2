"""The TF_CONFIG the operator gives each TFJob pod, per operator release, so a user can
check the cluster each task sees (`kgen explain`). docs/env-contract.md writes it out.

- tf-operator before v1.0.1 (targets v1beta1, v1beta2; kubeflow/tf-operator@v0.5.3:
  pkg/controller.v1beta2/tensorflow/pod.go `setClusterSpec`): every container gets
  TF_CONFIG, a single-replica job too (the `isDistributed` skip, tf-operator#1080,
  came later), and the evaluator is left out of `cluster` ("evaluator is not part of
  training cluster"; tf-operator#1146 changed that for v1.0.1). Which containers get
  it is the reference document's statement: the v0.4/v0.5 controllers were not read.
- tf-operator v1.0.1 to training-operator 1.6 (targets v1-legacy,
  training-operator-1.3 to -1.6; kubeflow/training-operator@v1.6.0:
  pkg/controller.v1/tensorflow/tensorflow.go): only the container named tensorflow,
  no TF_CONFIG for a single replica, every role listed, and the sparse form of
  `enableDynamicWorker` under the key `sparseCluster`. v1-legacy spans Kubeflow 0.6
  to 1.2; kgen follows its last operators (Kubeflow 1.1 and 1.2).
- training-operator 1.7 and later: the same, with the sparse form under `cluster`
  (trainer#1798, first released in 1.7.0).

The sparse cluster is per role (`convertClusterSpecToSparseClusterSpec`): a PS lists
only itself, chief and evaluator get `"ps": []`, a worker lists itself and every PS,
or `"ps": null` in a job without PS. Host names use the job object's real name, and
each role's port is its own port named tfjob-port, 2222 when the job does not move it
(kubeflow-api.md §6.3; tensorflow.go `genClusterSpec`).
"""

from __future__ import annotations

import json

from kgen.kinds.base import Replica, shown_indices
from kgen.kinds.targets import ApiTarget
from kgen.kinds.tensorflow import KIND
from kgen.kinds.tensorflow.spec import own
from kgen.render.base import Environment
from kgen.render.roles import role_settings
from kgen.spec.job import JobSpec, Role, role_items

SINGLE = "a single-replica TFJob gets no TF_CONFIG"
Cluster = dict[str, list[str]]


def replicas(
    spec: JobSpec, env: Environment, name: str, limit: int | None = None
) -> list[Replica]:
    job = own(spec)
    roles = role_items(job)
    total = sum(role.replicas for _, role in roles)
    target = env.target
    old = target.api_version != "kubeflow.org/v1"
    where = "every container" if old else f"container {KIND.container}"
    domain = env.namespace or "<namespace>"
    ports = {role: _port(job, role, settings) for role, settings in roles}
    cluster = _cluster(name, roles, domain, limit, old, ports)
    sparse_key = _sparse_key(target) if job.enable_dynamic_worker else None
    out = []
    for role, settings in roles:
        for index, skipped in shown_indices(settings.replicas, limit):
            pod = f"{name}-{role}-{index}"
            if total == 1 and not old:
                out.append(Replica(pod, {}, SINGLE, where, skipped))
                continue
            own_address = _address(name, role, index, domain, ports[role])
            config = tf_config(
                cluster, role, index, sparse_key=sparse_key, address=own_address
            )
            out.append(Replica(pod, {"TF_CONFIG": config}, "", where, skipped))
    return out


def _sparse_key(target: ApiTarget) -> str:
    current = target.release is not None and target.release >= (1, 7)
    return "cluster" if current else "sparseCluster"


def _port(job: JobSpec, role: str, settings: Role) -> int:
    """The role's port named tfjob-port (the operator finds it by name), else 2222."""
    return role_settings(job, role, settings).port(KIND.port_name, KIND.port)


def _cluster(
    name: str,
    roles: list[tuple[str, Role]],
    domain: str,
    limit: int | None,
    old: bool,
    ports: dict[str, int],
) -> Cluster:
    """Every role's hosts, keys sorted as Go marshals a map; past `limit` hosts a list
    keeps the first `limit - 1` and says how many more (explain stays linear)."""
    cluster = {}
    for role, settings in sorted(roles, key=lambda item: item[0]):
        if old and role == "evaluator":
            continue
        count = settings.replicas
        shown = range(count) if limit is None or count <= limit else range(limit - 1)
        hosts = [_address(name, role, i, domain, ports[role]) for i in shown]
        if len(hosts) < count:
            hosts.append(f"... {count - len(hosts)} more")
        cluster[role] = hosts
    return cluster


def _address(name: str, role: str, index: int, domain: str, port: int) -> str:
    return f"{name}-{role}-{index}.{domain}.svc:{port}"


def tf_config(
    cluster: Cluster,
    role: str,
    index: int,
    *,
    sparse_key: str | None = None,
    address: str = "",
) -> str:
    """TF_CONFIG as the operator marshals it: compact JSON, cluster keys sorted;
    `address` is the pod's own (the sparse form lists it)."""
    task = {"type": role, "index": index}
    if sparse_key is None:
        return json.dumps(
            {"cluster": cluster, "task": task, "environment": "cloud"},
            separators=(",", ":"),
        )
    return json.dumps(
        {sparse_key: _sparse(cluster, role, index, address), "task": task},
        separators=(",", ":"),
    )


def _sparse(cluster: Cluster, role: str, index: int, address: str) -> dict[str, object]:
    workers: dict[str, str] = {}
    ps: list[str] | None = []
    if role == "ps":
        ps = [address]
    elif role == "worker":
        workers = {str(index): address}
        ps = cluster.get("ps")  # null in a job without PS
    return {"worker": workers, "ps": ps}
