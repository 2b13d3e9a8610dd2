"""What kgen.yaml forbids in an environment: rules no job or overlay can silence there.

A project sets `policy:` for every environment, and an environment may set its own,
which replaces it (a dev cluster relaxes with `policy: {podSecurity: privileged}`).
kgen.rules.forbidden applies it.
"""

from typing import Annotated, Literal

from pydantic import BeforeValidator, Field, ValidationInfo, field_validator

from kgen.rules.groups import expanded
from kgen.spec.base import SpecModel, new_list
from kgen.spec.fields import AtMost, Reason, checked

# The rules of each Pod Security Standard level that kgen checks, from the level's table
# (https://kubernetes.io/docs/concepts/security/pod-security-standards/, Baseline:
# "HostPath Volumes", "Host Namespaces", "Privileged Containers", "Host Ports",
# "Capabilities"; kgen.rules.pod_security cites the admission's checks). The level's
# other fields (sysctls, seccomp, AppArmor, SELinux, /proc mount) and the whole of
# Restricted are the cluster's Pod Security admission's: kgen offers no `restricted`
# that would check less than its name says.
POD_SECURITY_LEVELS: dict[str, tuple[str, ...]] = {
    "privileged": (),
    "baseline": (
        "host-path",
        "host-pid",
        "host-ipc",
        "host-network",
        "privileged-container",
        "host-port",
        "added-capabilities",
    ),
}
# Silenceable rules that look across jobs, not at one job in one environment.
_ACROSS_JOBS = {"job-changed-in-place", "claim-undeclared", "overlay-matches-nothing"}


def _forbiddable_rule(value: str) -> str | None:
    # Imported here: the catalogue is data about codes, and fields only need its keys.
    from kgen.rules.catalog import RULES

    rule = RULES.get(value)
    if rule is None:
        import difflib

        names = [code for code, info in RULES.items() if info.silenceable]
        close = difflib.get_close_matches(value, names, n=1)
        suffix = f"; did you mean '{close[0]}'?" if close else ""
        return f"'{value}' is not a kgen rule{suffix}"
    if not rule.silenceable:
        return f"'{value}' is always an error: there is nothing for a policy to forbid"
    if value in _ACROSS_JOBS:
        return (
            f"'{value}' is checked across jobs; a policy forbids what one job does"
            " in an environment"
        )
    return None


ForbiddableRule = Annotated[str, checked(_forbiddable_rule)]


def _not_restricted(value: object) -> object:
    if value == "restricted":
        raise ValueError(
            "kgen checks only what baseline forbids of the pod (restricted also needs"
            " runAsNonRoot, seccomp, dropped capabilities): use baseline here, and"
            " enforce restricted with the namespace's Pod Security admission label"
        )
    return value


PodSecurityLevel = Annotated[
    Literal["privileged", "baseline"], BeforeValidator(_not_restricted)
]


class EnvironmentPolicy(SpecModel):
    """Rules forbidden in an environment: each is an error there, and a job's or an
    overlay's `lint.ignore` cannot silence it, nor the annotation of an object in
    resources/."""

    pod_security: PodSecurityLevel | None = Field(
        None,
        description="A Pod Security Standard level: `baseline` forbids host-path,"
        " host-pid, host-ipc, host-network, privileged-container, host-port and"
        " added-capabilities (what kgen checks of the level); `privileged` forbids"
        " nothing.",
        examples=["baseline"],
    )
    forbid: Annotated[list[ForbiddableRule], AtMost] = Field(
        default_factory=new_list,
        description="More rules to forbid (`host-namespaces` stands for all three).",
        examples=[["image-latest"]],
    )
    allow: Annotated[dict[ForbiddableRule, Reason], AtMost] = Field(
        default_factory=dict,
        description="Rules of the level still allowed here, each with the reason; they"
        " keep their severity and `lint.ignore`.",
        examples=[{"host-ipc": "NCCL shares memory through the node's IPC namespace"}],
    )

    @field_validator("allow")
    @classmethod
    def _allowed(cls, value: dict[str, str], info: ValidationInfo) -> dict[str, str]:
        # An exception to nothing is a mistake (a level that changed, a rule mistyped
        # for another): said, rather than kept as a reason nobody checks.
        if "pod_security" in info.data and "forbid" in info.data:
            level = POD_SECURITY_LEVELS[info.data["pod_security"] or "privileged"]
            forbidden = {*level, *expanded(dict.fromkeys(info.data["forbid"], ""))}
            unused = [k for k in value if not forbidden & expanded({k: ""}).keys()]
            if unused:
                raise ValueError(
                    f"{', '.join(unused)} {'is' if len(unused) == 1 else 'are'} not"
                    " forbidden by this policy, so there is nothing to allow"
                )
        return expanded(value)

    def forbidden(self) -> dict[str, tuple[str | int, ...]]:
        """Each forbidden rule and the data path (in the policy) that forbids it."""
        found: dict[str, tuple[str | int, ...]] = {}
        for code in POD_SECURITY_LEVELS[self.pod_security or "privileged"]:
            found[code] = ("podSecurity",)
        for index, written in enumerate(self.forbid):
            for code in expanded({written: ""}):
                found.setdefault(code, ("forbid", index))
        return {code: path for code, path in found.items() if code not in self.allow}

    def __hash__(self) -> int:
        return hash((self.pod_security, tuple(self.forbid), frozenset(self.allow)))
