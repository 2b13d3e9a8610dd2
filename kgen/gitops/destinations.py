"""What Argo CD and Flux objects must get right before they are written: a namespace
for every environment, chosen on purpose, and names the API server accepts."""

from __future__ import annotations

from kgen.errors import Problem
from kgen.load.jobs import located
from kgen.load.project import Project

_NAME_LIMIT = 253


def namespaces(
    project: Project, explicit: dict[str, str], key: tuple[str, str]
) -> tuple[dict[str, str], list[Problem]]:
    """Each environment's destination namespace: its own, else the one `key` (e.g.
    argocd.destinationNamespaces) names; a problem at the environment for neither."""
    chosen, problems = {}, []
    for env, settings in project.spec.environments.items():
        namespace = settings.namespace or explicit.get(env)
        if namespace is not None:
            chosen[env] = namespace
            continue
        problem = Problem(
            f"environment '{env}' has no namespace to deploy into",
            "gitops-destination",
            path=("environments", env),
            at_key=True,
            hint=f"set its `namespace`, or {'.'.join(key)}: {{{env}: <namespace>}} in kgen.yaml",
        )
        problems.append(located(problem, project.doc))
    return chosen, problems + not_environments(project, explicit, key)


def not_environments(
    project: Project, explicit: dict[str, str], key: tuple[str, str]
) -> list[Problem]:
    """A problem at each key of the mapping at `key` that names no environment."""
    problems = []
    for env in explicit:
        if env not in project.spec.environments:
            problem = Problem(
                f"'{env}' is not an environment",
                "gitops-destination",
                path=(*key, env),
                at_key=True,
                hint="name an environment of kgen.yaml environments",
            )
            problems.append(located(problem, project.doc))
    return problems


def name_problems(
    project: Project, prefix: str, what: str, key: tuple[str, str]
) -> list[Problem]:
    """A problem at `key` (the name prefix) for each environment whose object name
    (prefix + environment) the API server would reject (attack14 F25)."""
    from kgen.spec.fields import _dns1123_subdomain

    for env in project.spec.environments:
        name = f"{prefix}{env}"
        if len(name) <= _NAME_LIMIT and _dns1123_subdomain(name) is None:
            continue
        # The prefix is at fault: said once, with the first name it spoils.
        problem = Problem(
            f"the {what} name '{name}' is not a valid object name",
            "gitops-destination",
            path=key,
            hint="use lowercase letters, digits, '-' and '.' in the prefix, at most"
            f" {_NAME_LIMIT} characters with the environment name",
        )
        return [located(problem, project.doc)]
    return []
