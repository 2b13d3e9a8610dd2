"""Silencing policy rules, always with a reason."""

from typing import Annotated

from pydantic import Field, field_validator

from kgen.rules.groups import expanded
from kgen.spec.base import SpecModel
from kgen.spec.fields import AtMost, EnvName, Reason, SilenceableRule


class LintSettings(SpecModel):
    """Silence policy rules for this job (in the spec or an overlay) or the whole project
    (in kgen.yaml); each with the reason, which reviewers read."""

    ignore: Annotated[dict[SilenceableRule, Reason], AtMost] = Field(
        default_factory=dict,
        description="Rule id to the reason it does not apply.",
        examples=[{"image-latest": "nightly smoke test of the moving tag"}],
    )
    allow_literals: Annotated[dict[EnvName, Reason], AtMost] = Field(
        default_factory=dict,
        description="Variables named like a secret whose literal value is not one, each"
        " with the reason (secret-env-literal is never silenced for a whole job).",
        examples=[{"TOKEN_TTL_SECONDS": "a lifetime, not a token"}],
    )

    @field_validator("ignore")
    @classmethod
    def _groups(cls, value: dict[str, str]) -> dict[str, str]:
        return expanded(value)

    def __hash__(self) -> int:
        # Hashable like its frozen siblings: pydantic deep-copies an unhashable field
        # default into every spec it validates (a tenth of a second per 4,000).
        return hash(
            (frozenset(self.ignore.items()), frozenset(self.allow_literals.items()))
        )


# The default `lint:` of a job and of kgen.yaml, equal to `LintSettings()`, which would
# build the model's validator as the module is imported (kgen.spec.base).
DEFAULT_LINT = LintSettings.model_construct()
