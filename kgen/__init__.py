"""kgen: Kubeflow training jobs from short YAML specs, rendered for GitOps."""

from __future__ import annotations

__version__ = "0.1.0"
