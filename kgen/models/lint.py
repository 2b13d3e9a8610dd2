"""Silencing policy rules, always with a reason."""

from __future__ import annotations

from pydantic import Field

from kgen.fields import Reason, SilenceableRule
from kgen.models.base import SpecModel


class LintSettings(SpecModel):
    """Silence policy rules for this job (in the spec or an overlay) or the whole project
    (in kgen.yaml); each with the reason, which reviewers read."""

    ignore: dict[SilenceableRule, Reason] = Field(
        default_factory=dict,
        description="Rule id to the reason it does not apply.",
        examples=[{"image-latest": "nightly smoke test of the moving tag"}],
    )
