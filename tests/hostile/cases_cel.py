"""Hostile inputs against the CEL rules of a project's CRD (x-kubernetes-validations):
rules that do not parse, call what does not exist, nest without end, or would run for
minutes on a large value; values built to make a regex backtrack."""

from __future__ import annotations

from tests.hostile.case import VALID_JOB, Case

_KGEN = "crds: [crds/pytorchjob.yaml]\nenvironments:\n  dev: [v1]\n"


def _crd(
    root_rule: str | None = None,
    args_rule: str | None = None,
    message: str | None = None,
    root_message: str | None = None,
    root_validations: str | None = None,
    list_type: str = "atomic",
) -> str:
    """A PyTorchJob CRD with a rule at the root and, if given, one on each container
    argument (with a messageExpression, if given)."""
    on_args = (
        ""
        if args_rule is None
        else f"""
                                        x-kubernetes-validations:
                                          - rule: {args_rule!r}"""
    )
    if message is not None:
        on_args += f"""
                                            messageExpression: {message!r}"""
    return f"""\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: pytorchjobs.kubeflow.org}}
spec:
  group: kubeflow.org
  names: {{kind: PyTorchJob, plural: pytorchjobs}}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
          x-kubernetes-validations:{_root(root_rule, root_message, root_validations)}
          properties:
            spec:
              type: object
              x-kubernetes-preserve-unknown-fields: true
              properties:
                pytorchReplicaSpecs:
                  type: object
                  additionalProperties:
                    type: object
                    x-kubernetes-preserve-unknown-fields: true
                    properties:
                      template:
                        type: object
                        x-kubernetes-preserve-unknown-fields: true
                        properties:
                          spec:
                            type: object
                            x-kubernetes-preserve-unknown-fields: true
                            properties:
                              containers:
                                type: array
                                items:
                                  type: object
                                  x-kubernetes-preserve-unknown-fields: true
                                  properties:
                                    args:
                                      type: array
                                      x-kubernetes-list-type: {list_type}
                                      items:
                                        type: string{on_args}
"""


def _root(rule: str | None, message: str | None, raw: str | None) -> str:
    """The root's rules: one (with a messageExpression, if given), or `raw` as is."""
    if raw is not None:
        return f" {raw}"
    said = "" if message is None else f"\n              messageExpression: {message!r}"
    return f"\n            - rule: {rule or 'true'!r}{said}"


_ENV_MAP = """\
                                    env:
                                      type: array
                                      x-kubernetes-list-type: map
                                      x-kubernetes-list-map-keys: [name]
                                      items:
                                        type: object
                                        properties:
                                          name: {type: string}
                                          value: {type: string}
"""
_BY_HAND = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: by-hand, namespace: dev}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
            - name: pytorch
              image: registry.example.com/train:1.0
              env:
                - {name: SEED, value: '1'}
                - {name: SEED, value: '2'}
"""
_SECRET_JOB = (
    VALID_JOB
    + "env: [{name: API_TOKEN, value: tok-5f2a9c1e7b3d}]\n"
    + "lint:\n  allowLiterals:\n    API_TOKEN: a token of the test registry\n"
)
_TOKEN = "self.spec.pytorchReplicaSpecs.Master.template.spec.containers[0].env[0].value"


def _case(
    about: str, *, job: str = VALID_JOB, list_type: str = "atomic", **rules: str | None
) -> Case:
    crd = _crd(list_type=list_type, **rules)
    files = {"kgen.yaml": _KGEN, "crds/pytorchjob.yaml": crd}
    return Case({**files, "jobs/train.yaml": job}, about=about)


_ARGS = "args:\n" + "".join(f"  - a{i}\n" for i in range(10_000))
_WORKERS = "self.spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].args"

CASES: dict[str, Case] = {
    "cel-rule-syntax-error": _case("a rule that does not parse", root_rule="self.("),
    "cel-rule-unknown-function": _case(
        "a function neither CEL nor Kubernetes has", root_rule="launch(self)"
    ),
    "cel-rule-nested-two-thousand-deep": _case(
        "refused before the parser recurses",
        root_rule="(" * 2_000 + "true" + ")" * 2_000,
    ),
    "cel-rule-of-a-hundred-thousand-characters": _case(
        "refused before it compiles", root_rule="true && " * 12_500 + "true"
    ),
    "cel-rule-nested-comprehensions-over-ten-thousand-args": _case(
        "estimated before it runs: 10,000 squared steps",
        job=VALID_JOB + _ARGS,
        root_rule=f"{_WORKERS}.all(a, {_WORKERS}.exists(b, a == b))",
    ),
    "cel-rule-map-over-ten-thousand-args": _case(
        "map copies its accumulator each step: quadratic, 9 s if it ran",
        job=VALID_JOB + _ARGS,
        root_rule=f"{_WORKERS}.map(a, a).size() > 0",
    ),
    "cel-rule-literal-lists-nested": _case(
        "reads no value, and would take 64,000 steps per element of each list",
        root_rule="["
        + ",".join(["1"] * 40)
        + "].all(a, ["
        + ",".join(["1"] * 40)
        + "].all(b, ["
        + ",".join(["1"] * 40)
        + "].all(c, true)))",
    ),
    "cel-rule-on-each-of-ten-thousand-args": _case(
        "one object's rules share one budget",
        job=VALID_JOB + _ARGS,
        args_rule="self.size() > 0 && self.size() < 100 && self.startsWith('a')",
    ),
    "cel-regex-built-to-backtrack": _case(
        "(a+)+$ on 'aaa…!' is exponential for a backtracking engine; linear on RE2's",
        job=VALID_JOB + "args: [" + "a" * 50_000 + "!]\n",
        args_rule="self.matches('(a+)+$')",
    ),
    "cel-message-expression-of-a-huge-string": _case(
        "the message is cut, and its expression is bounded like a rule",
        job=VALID_JOB + "args: [" + "b" * 50_000 + "]\n",
        args_rule="self.startsWith('a')",
        message="'argument ' + self + self + ' must start with a'",
    ),
    "cel-message-expression-echoes-a-secret": _case(
        "a messageExpression built from a secret's value shows ***",
        job=_SECRET_JOB,
        root_rule="false",
        root_message=f"'token ' + {_TOKEN}",
    ),
    "cel-evaluation-error-quotes-a-secret": _case(
        "an error of quantity() quotes its argument: the secret is masked",
        job=_SECRET_JOB,
        root_rule=f"quantity({_TOKEN}).isInteger()",
    ),
    "cel-message-expression-not-a-string": _case(
        "the API server falls back to the message; so does kgen",
        root_rule="false",
        root_message="42",
    ),
    "cel-validations-not-a-list": _case(
        "a mapping where the list of rules goes: refused, not skipped",
        root_validations="{rule: 'false'}",
    ),
    "cel-validation-without-a-rule": _case(
        "an entry with a message and no rule: refused, not skipped",
        root_validations="[{message: never checked}]",
    ),
    "cel-rule-of-a-wrong-type": _case(
        "a rule that is a list, not a string",
        root_validations="[{rule: [self]}]",
    ),
    "cel-rule-returns-an-int": _case(
        "a rule must return a bool", root_rule="size(self.metadata.name)"
    ),
    "cel-list-map-with-duplicate-keys": Case(
        {
            "kgen.yaml": _KGEN,
            "crds/pytorchjob.yaml": _crd(list_type="set").replace(
                "                                    args:",
                _ENV_MAP + "                                    args:",
            ),
            "resources/dev/by-hand.yaml": _BY_HAND,
        },
        about="the API server refuses a map list's repeated key before any rule",
    ),
    "cel-list-set-with-duplicates": _case(
        "a set's repeated element: Duplicate value",
        job=VALID_JOB + "args: [--epochs, '2', --epochs, '2']\n",
        list_type="set",
    ),
}
