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

# The team's objects in resources/ (kgen.resources.policy): a pull request writes them
# as freely as jobs. A custom resource whose CRD keeps unknown fields reaches the pod
# rules with whatever shapes and types it holds.
_WIDGET_CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
"""


def _widget(spec: str, annotations: str = "") -> dict[str, Content]:
    """A baseline project with the Widget CRD and one Widget in every environment."""
    return {
        "kgen.yaml": "policy: {podSecurity: baseline}\ncrds: [crds/widget.yaml]\n"
        + _ENVS
        + "lint:\n  ignore: {resources-missing: the job is minimal}\n",
        "crds/widget.yaml": _WIDGET_CRD,
        "resources/widget.yaml": "apiVersion: example.com/v1\nkind: Widget\n"
        f"metadata:\n  name: w\n{annotations}spec: {spec}\n",
    }


_DAEMONSET = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
"""

CASES |= {
    "resources-pod-nested-ninety-deep": Case(
        _widget("{a: " * 90 + "{hostNetwork: true, containers: []}" + "}" * 90),
        about="a pod template as deep as the loader allows is found, at its line",
    ),
    "resources-pod-huge-lists": Case(
        _widget(
            "{template: {spec: {containers: ["
            + "{}, " * 30_000
            + "{securityContext: {privileged: true}}], volumes: ["
            + ", ".join(f"{{name: v{i}, hostPath: {{path: /}}}}" for i in range(250))
            + "]}}}"
        ),
        about="thirty thousand containers checked once each; findings bounded per object",
        seconds=2.0,
    ),
    "resources-pod-wrong-types": Case(
        _widget(
            "{template: {spec: {hostNetwork: 'true', hostPID: 1, volumes: [7, x,"
            " {hostPath: null}, {name: 7, hostPath: {}}, {name: [a], hostPath: 1}],"
            " containers: [1, x, null, {securityContext: x}, {securityContext:"
            " {privileged: 'true', capabilities: {add: SYS_ADMIN}}},"
            " {securityContext: {capabilities: [NET_ADMIN]}}, {ports: {hostPort: 1}},"
            " {ports: [7, {hostPort: '80'}, {hostPort: true}, {hostPort: 0}]}],"
            " initContainers: {a: b}, ephemeralContainers: [{securityContext:"
            " {privileged: true}}]}}, other: {containers: x, hostNetwork: true}}"
        ),
        about="a value of the wrong type is no finding and no crash; what is there is found",
    ),
    "resources-core-pod-wrong-types": Case(
        {
            **_policy("{podSecurity: baseline}"),
            "resources/agent.yaml": _DAEMONSET
            + "      hostNetwork: 'yes'\n      volumes: {x: 1}\n"
            + "      containers: [{name: a, image: b, securityContext: {privileged: 1}}]\n",
        },
        about="a core kind's wrong types are the core definitions' errors, found first",
    ),
    "resources-ignore-annotations-hostile": Case(
        _widget(
            "{template: {spec: {hostIPC: true, containers: []}}}",
            annotations="  annotations:\n"
            '    "lint-ignore.kgen.io/\\e[2Jhost-path": x\n'
            f'    "lint-ignore.kgen.io/{"y" * 1_000}": x\n'
            "    lint-ignore.kgen.io/host-port: ''\n"
            "    lint-ignore.kgen.io/host-namespaces: added by the pull request\n",
        ),
        about="an ignore annotation never repaints the terminal nor floods the log, and"
        " cannot allow what the policy forbids, under its group name either",
    ),
}
