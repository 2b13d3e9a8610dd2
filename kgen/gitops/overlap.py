"""Two environments that deploy one object: the same kind and name into the same
namespace of the same cluster (a cluster-scoped object: the same cluster). Each
environment's Application (or Kustomization) then owns it: Argo CD reports a
SharedResourceWarning and the two take it from each other at every sync, and pruning
one environment deletes the other's object. Environments on several clusters say which
cluster each is on (argocd.destinationServers, flux.kubeConfigs)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from kgen.errors import Problem
from kgen.load.jobs import located
from kgen.load.project import Project
from kgen.pipeline.records import RunResult
from kgen.resources.emit import namespace_in


def overlap_problems(
    project: Project,
    result: RunResult,
    namespaces: Mapping[str, str],
    clusters: Mapping[str, str],
    clusters_at: tuple[str, str],
    owners: str,
) -> list[Problem]:
    """A problem at the second environment of each pair that deploys an object the
    first does too, into the same place; `clusters`: each environment's cluster where
    it is not the default one, as kgen.yaml names it at `clusters_at`; `owners`: what
    deploys an environment (`Applications`)."""
    owner: dict[tuple[str, str, str, str], str] = {}
    problems: dict[tuple[str, str], Problem] = {}
    for env, deployed in _deployed(project, result, namespaces).items():
        cluster = clusters.get(env, "")
        for kind, name, namespace in deployed:
            place = (cluster, namespace if namespace else "", kind, name)
            first = owner.setdefault(place, env)
            if first != env and (first, env) not in problems:
                problems[(first, env)] = _problem(
                    project, (first, env), (kind, name, namespace), clusters_at, owners
                )
    return list(problems.values())


def _deployed(
    project: Project, result: RunResult, namespaces: Mapping[str, str]
) -> dict[str, list[tuple[str, str, str]]]:
    """Each environment's objects (kind, name, namespace; "" cluster-scoped), in
    kgen.yaml's order of environments. Every object a job renders is namespaced.
    `result`: a run that kept its renders (kgen.pipeline.run `keep`)."""
    found: dict[str, list[tuple[str, str, str]]] = {
        env: [] for env in project.spec.environments
    }
    for rendered in result.rendered:
        env = rendered.env.name
        for manifest in rendered.manifests:
            found[env].append((manifest.kind, manifest.name, namespaces[env]))
    for env in found:
        found[env] += list(_team_objects(project, env, namespaces[env]))
    return found


def _team_objects(
    project: Project, env: str, namespace: str
) -> Iterator[tuple[str, str, str]]:
    for obj in project.resources:
        if obj.file.env in (None, env):
            yield obj.kind, obj.name, namespace_in(obj, namespace) or ""


def _problem(
    project: Project,
    envs: tuple[str, str],
    obj: tuple[str, str, str],
    clusters_at: tuple[str, str],
    owners: str,
) -> Problem:
    first, env = envs
    kind, name, namespace = obj
    where = f"into namespace '{namespace}' of" if namespace else "into"
    problem = Problem(
        f"environments '{first}' and '{env}' both deploy {kind} '{name}' {where} one"
        f" cluster: their {owners} would both own it, each taking it from the other at"
        " every sync",
        "gitops-destination",
        path=("environments", env),
        at_key=True,
        hint=(
            f"if '{env}' is on another cluster, say which: "
            f"{'.'.join(clusters_at)}: {{{env}: ...}} in kgen.yaml; else give it a"
            " namespace of its own"
        ),
    )
    return located(problem, project.doc)
