"""The catalogue's codes for the API server's own rules (x-kubernetes-validations),
evaluated offline by kgen.check.cel_rules (kgen.rules.catalog takes them in)."""

from __future__ import annotations

from kgen.rules.info import RuleInfo, rule

CEL_CODES: list[RuleInfo] = [
    rule(
        "immutable-field-changed",
        "error",
        True,
        "A field the API server keeps immutable, changed under the same object name",
        "A CRD's transition rule (`self == oldSelf`, x-kubernetes-validations) refuses an update that changes the field, so Argo CD or Flux could never sync the change. kgen evaluates transition rules against the committed render of the same object (or the `--base` one). Rename the job per change (`runId`, or kgen.yaml `jobNames: content-hash`), or delete the object and let it be created again.",
    ),
    rule(
        "cel-rule-skipped",
        "warning",
        False,
        "A CRD rule kgen cannot evaluate offline",
        "The rule calls a Kubernetes CEL function kgen does not implement (ip, cidr, format, semver, optionals, authorizer) or sets optionalOldSelf. It is skipped; the API server still evaluates it. docs/cel.md lists what kgen evaluates.",
    ),
]
