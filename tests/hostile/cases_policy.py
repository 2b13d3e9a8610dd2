"""Hostile inputs against policy per environment (kgen.yaml `policy:`): what the owner
of kgen.yaml writes wrong is located with a hint, and what a pull request writes in a
job or overlay cannot get around it."""

from __future__ import annotations

from tests.hostile.case import VALID_JOB, Case, Content

_ENVS = "environments:\n  dev: [v1]\n  old: [v1beta1]\n"
_HOST_PATH_JOB = (
    VALID_JOB
    + "volumes:\n  - {name: cache, hostPath: {path: /mnt}, mountPath: /cache}\n"
)


def _policy(text: str, envs: str = _ENVS) -> dict[str, Content]:
    return {"kgen.yaml": f"policy: {text}\n" + envs}


CASES: dict[str, Case] = {
    "policy-unknown-rule": Case(
        _policy("{forbid: [hostpath]}"),
        about="a typo in a rule id would forbid nothing: located, with a did-you-mean",
    ),
    "policy-unknown-level": Case(
        _policy("{podSecurity: restricted}"),
        about="kgen checks no more of restricted than of baseline: refused, not faked",
    ),
    "policy-not-a-mapping": Case(
        _policy("baseline"), about="a level where the policy's mapping belongs"
    ),
    "policy-non-string-values": Case(
        _policy(
            "{podSecurity: 1, forbid: [1, true, null, {a: b}], allow: {host-ipc: 7}}"
        ),
        about="every wrong type at its own place, none quoted as something else",
    ),
    "policy-huge-forbid-list": Case(
        _policy("{forbid: [" + ", ".join(["host-path"] * 20_000) + "]}"),
        about="bounded like every list a user writes, refused before each entry is checked",
    ),
    "policy-huge-allow-map": Case(
        _policy("{allow: {" + ", ".join(f"r{i}: why" for i in range(20_000)) + "}}"),
        about="as many keys as the bound allows, refused once, not 20,000 times",
    ),
    "policy-forbids-an-always-error": Case(
        _policy("{forbid: [output-schema, secret-literal]}"),
        about="nothing to forbid: said so, at each entry",
    ),
    "policy-allow-without-reason": Case(
        _policy("{podSecurity: baseline, allow: {host-ipc: ''}}"),
        about="an exception to the policy needs the reason reviewers read",
    ),
    "policy-allows-what-it-does-not-forbid": Case(
        _policy(
            "{podSecurity: privileged, forbid: [host-pid], allow: {host-ipc: NCCL, host-namespaces: x y}}"
        ),
        about="an exception to nothing is a mistake; host-namespaces covers host-pid",
    ),
    "policy-key-typo": Case(
        _policy("{podSecurty: baseline}"),
        about="a misspelt key would leave every environment unprotected",
    ),
    "policy-in-environment-shorthand": Case(
        {"kgen.yaml": "environments:\n  dev: {overlays: [v1], policy: [host-path]}\n"},
        about="a list where the environment's policy mapping belongs",
    ),
    "policy-rule-id-with-escapes-and-length": Case(
        _policy('{forbid: ["\\e[2Jhost-path", "' + "x" * 100_000 + '"]}'),
        about="a rule id never repaints the terminal nor floods the log",
    ),
    "capability-escapes-types-and-length": Case(
        _policy(
            "{podSecurity: baseline}",
            _ENVS,
        )
        | {
            "jobs/train.yaml": VALID_JOB
            + 'securityContext:\n  capabilities: {add: ["\\e[2JSYS_ADMIN", 7, {a: b}, "'
            + "X" * 100_000
            + '"], drop: ALL}\n'
        },
        about="a capability name never repaints the terminal nor floods the log",
    ),
    "host-port-out-of-range-and-forbidden": Case(
        {
            **_policy("{podSecurity: baseline}"),
            "jobs/train.yaml": VALID_JOB
            + "ports:\n  - {containerPort: 9090, hostPort: 99999999999}\n"
            + "  - {containerPort: 9091, hostPort: true}\n",
        },
        about="a port the API server refuses, and one it would take if it were not forbidden",
    ),
    "policy-ignore-in-job-refused": Case(
        {
            **_policy("{podSecurity: baseline}"),
            "jobs/train.yaml": _HOST_PATH_JOB
            + "lint:\n  ignore: {host-path: the pull request says it is fine}\n",
        },
        about="the author of a job cannot allow what kgen.yaml forbids",
    ),
    "policy-ignore-through-new-overlay-refused": Case(
        {
            **_policy(
                "{podSecurity: baseline}",
                "environments:\n  dev: [v1, sneaky]\n  old: [v1beta1]\n",
            ),
            "overlays/sneaky.yaml": "patch:\n  lint:\n    ignore:\n      host-path: added by the pull request\n",
            "jobs/train.yaml": _HOST_PATH_JOB,
        },
        about="nor can an overlay: refused at the overlay's line",
    ),
    "policy-ignore-by-group-name-refused": Case(
        {
            **_policy("{forbid: [host-network]}"),
            "jobs/train.yaml": VALID_JOB
            + "hostNetwork: true\nlint:\n  ignore: {host-namespaces: NCCL}\n",
        },
        about="the old group id silences host-network, and is refused where it is forbidden",
    ),
}
