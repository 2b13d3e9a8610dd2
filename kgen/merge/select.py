"""Which jobs an overlay's `match` or an environment's `jobs` selects."""

from __future__ import annotations

from collections.abc import Mapping
from fnmatch import fnmatchcase
from typing import Any

from kgen.spec.project import JobSelector


def selector_matches(selector: JobSelector | None, job: Mapping[str, Any]) -> bool:
    """Whether an overlay's `match` (names as globs, frameworks, labels) selects `job`.

    Matching reads the job spec as written, before any overlay, so that the order of
    overlays can never change which of them apply.
    """
    if selector is None:
        return True
    name = str(job.get("name"))
    if selector.names is not None and not any(
        fnmatchcase(name, p) for p in selector.names
    ):
        return False
    if (
        selector.frameworks is not None
        and job.get("framework") not in selector.frameworks
    ):
        return False
    labels = job.get("labels")
    job_labels = labels if isinstance(labels, dict) else {}
    return all(job_labels.get(k) == v for k, v in (selector.labels or {}).items())
