"""`kgen explain` for a job that its target renders as another kind than its
framework's own (a pytorch job as a TrainJob on Kubeflow Trainer v2): side by side,
what changes from the render of the same spec as its own kind on the current
training-operator line (target v1), as a migration aid. Only the rows that differ."""

from __future__ import annotations

import json
from typing import Any, TextIO

from kgen.kinds import kind_for
from kgen.kinds.base import Kind, Replica
from kgen.kinds.targets import DEFAULT_TARGET, TARGETS
from kgen.pipeline.records import RenderedJob
from kgen.render.base import Environment

# Pods named per side before the rest are counted.
_NAMED = 2


def write_migration(rendered: RenderedJob, stream: TextIO) -> None:
    spec, env = rendered.spec, rendered.env
    now, before = kind_for(spec.framework, env.target), kind_for(spec.framework)
    if now is before:
        return
    old_env = Environment(env.name, TARGETS[DEFAULT_TARGET], env.namespace)
    old_body, _problems = before.render(spec, old_env)
    name = next(m.name for m in rendered.manifests if m.kind == now.kind)
    old_pods = before.env_contract(spec, old_env, name=name)
    new_pods = now.env_contract(spec, env, name=name)
    rows = [
        ("object", _object(before, old_env), _object(now, env)),
        ("pods", _pods(old_pods), _pods(new_pods)),
        ("rank 0 reaches", _rendezvous(old_pods), _rendezvous(new_pods)),
        ("env only here", _only(old_pods, new_pods), _only(new_pods, old_pods)),
        ("run policy", _run_policy(old_body), "none (the runtime's JobSet)"),
    ]
    shown = [row for row in rows if row[1] != row[2]]
    stream.write(f"\nfrom {before.kind} on target {DEFAULT_TARGET} to {now.kind}:\n")
    width = max(len(row[1]) for row in shown)
    label = max(len(row[0]) for row in shown)
    stream.write(f"  {'':{label}}  {before.kind:{width}}  {now.kind}\n")
    for what, old, new in shown:
        stream.write(f"  {what:{label}}  {old:{width}}  {new}\n")


def _object(kind: Kind, env: Environment) -> str:
    return f"{env.target.api_version} {kind.kind}"


def _pods(pods: list[Replica]) -> str:
    names = [pod.pod for pod in pods[:_NAMED]]
    rest = len(pods) + sum(pod.skipped for pod in pods) - len(names)
    return ", ".join(names) + (f" and {rest} more" if rest > 0 else "")


def _rendezvous(pods: list[Replica]) -> str:
    env = pods[0].env if pods else {}
    for host, port in (
        ("PET_MASTER_ADDR", "PET_MASTER_PORT"),
        ("MASTER_ADDR", "MASTER_PORT"),
    ):
        if host in env:
            return f"{env[host]}:{env.get(port, '?')}"
    return "nothing set"


def _only(pods: list[Replica], others: list[Replica]) -> str:
    names = set(pods[0].env) if pods else set()
    other = set(others[0].env) if others else set()
    return ", ".join(sorted(names - other)) or "none"


def _run_policy(body: dict[str, Any]) -> str:
    policy = body.get("runPolicy") or {}
    return ", ".join(f"{k}: {json.dumps(v)}" for k, v in policy.items()) or "none"
