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
          x-kubernetes-validations:
            - rule: {root_rule or "true"!r}
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
                                      items:
                                        type: string{on_args}
"""


def _case(about: str, *, job: str = VALID_JOB, **rules: str | None) -> Case:
    files = {"kgen.yaml": _KGEN, "crds/pytorchjob.yaml": _crd(**rules)}
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
}
