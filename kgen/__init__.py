"""kgen: Kubeflow training jobs from short YAML specs, rendered for GitOps."""

from __future__ import annotations

# The one place the version is written: pyproject.toml reads it, CHANGELOG.md names it.
__version__ = "0.2.0"
