"""The control-character rule over the team's objects (resources/), as over jobs
(kgen.rules.values): a string or key of an object holds no control character but tab
and line breaks. An object is copied into the output, so an ESC in a ConfigMap repainted
the terminal of whoever read it there, and a NUL reached the cluster, where a job's
strings could hold neither. Each at its line, the first MAX_PROBLEMS of them."""

from __future__ import annotations

from typing import Any

from kgen.errors import DataPath, Problem
from kgen.load.jobs import located
from kgen.resources.check import TeamObject
from kgen.rules.values import control_character
from kgen.spec.validate import MAX_PROBLEMS


def control_problems(obj: TeamObject) -> list[Problem]:
    found: list[Problem] = []
    stack: list[tuple[DataPath, Any]] = [((), obj.body)]
    while stack and len(found) < MAX_PROBLEMS:
        path, node = stack.pop()
        if isinstance(node, dict):
            for key in node:
                if isinstance(key, str):
                    _add(found, control_character(key, (*path, key), at_key=True))
            stack += reversed([((*path, k), v) for k, v in node.items()])
        elif isinstance(node, list):
            stack += reversed([((*path, i), v) for i, v in enumerate(node)])
        elif isinstance(node, str):
            _add(found, control_character(node, path, at_key=False))
    return [located(p, obj.file.doc) for p in found[:MAX_PROBLEMS]]


def _add(found: list[Problem], problem: Problem | None) -> None:
    if problem is not None:
        found.append(problem)
