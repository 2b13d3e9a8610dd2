"""Render a validated job spec for one environment into Kubernetes manifests.

One builder per job kind, picked by framework from RENDERERS. Builders return the
manifests and any problem a target cannot express, located by spec data path.
"""

from __future__ import annotations

from collections.abc import Callable

from kgen.errors import Problem
from kgen.models import JobSpec
from kgen.render.base import Environment, Manifest
from kgen.render.pytorchjob import render_pytorchjob
from kgen.render.tfjob import render_tfjob

Renderer = Callable[[JobSpec, Environment], tuple[list[Manifest], list[Problem]]]

RENDERERS: dict[str, Renderer] = {
    "pytorch": render_pytorchjob,  # type: ignore[dict-item]
    "tensorflow": render_tfjob,  # type: ignore[dict-item]
}


def render_job(spec: JobSpec, env: Environment) -> tuple[list[Manifest], list[Problem]]:
    return RENDERERS[spec.framework](spec, env)


__all__ = ["RENDERERS", "Environment", "Manifest", "render_job"]
