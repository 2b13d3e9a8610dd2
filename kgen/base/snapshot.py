"""What a render of a project amounts to, for comparing a pull request with its base:
the objects per environment, the spec mark of each job, the GPUs per environment."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from kgen.load.project import Project, load_project
from kgen.output.tree import KUSTOMIZATION, build_tree
from kgen.pipeline.records import RunResult
from kgen.pipeline.run import run


@dataclass(frozen=True)
class Snapshot:
    """Keys are `<env>/<file>` below the output folder, so renaming it changes nothing."""

    files: dict[str, str] = field(default_factory=dict)
    marks: dict[str, str] = field(default_factory=dict)
    gpus: dict[str, int] = field(default_factory=dict)


def snapshot(result: RunResult, project: Project) -> Snapshot:
    """The files a build of `project` writes: the jobs' and the team's own objects
    (resources/), which a summary that left them out called no change at all."""
    output = project.spec.output
    files, _ = build_tree(result, output=output, objects=project.resources)
    prefix = f"{output}/"
    objects = {
        path.removeprefix(prefix): text
        for path, text in files.items()
        if not path.endswith(f"/{KUSTOMIZATION}")
    }
    marks = {
        f"{render.env.name}/{render.facts.fingerprint[0]}": render.facts.fingerprint[1]
        for render in result.renders
        if render.facts.fingerprint
    }
    gpus = {env.name: 0 for env in result.environments}
    for render in result.renders:
        gpus[render.env.name] = gpus.get(render.env.name, 0) + render.facts.load.gpus
    return Snapshot(objects, marks, gpus)


def base_snapshot(root: Path, ref: str, *, output: str) -> Snapshot:
    """Render the project as it is at `ref`; what fails to load or render there is left
    out (the pull request may be what fixes it). Without the cache: it is kept per
    project folder, and the base's is a new temporary one every time."""
    from kgen.base.git import export, resolve

    commit = resolve(root, ref)
    with export(root, commit, skip=output) as folder:
        project, _ = load_project(Path(folder), use_cache=False)
        if project is None:
            return Snapshot()
        result = run(project, emit=True)
        return snapshot(result, project)


def current_snapshot(project: Project, result: RunResult) -> Snapshot:
    return snapshot(result, project)
