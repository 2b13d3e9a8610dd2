"""Two objects that would be one output file, however their names came to be equal: two
team objects whose kinds differ only in case or in Unicode normalisation, a team object
and an object a job renders. Each is `duplicate-object` at the second, exit 1, from
`validate` as from `build` (validate once said "valid" where build failed)."""

from __future__ import annotations

from tests.hostile.case import VALID_JOB, Case, Content

BUILD = ("build",)
PROJECT = """\
environments:
  dev:
    overlays: [v1]
    namespace: dev
  old: [v1beta1]
crds: [crds/one.yaml, crds/two.yaml]
lint:
  ignore:
    resources-missing: each case shows one problem; its specs are minimal
"""


def _crd(group: str, kind: str, plural: str) -> str:
    return (
        "apiVersion: apiextensions.k8s.io/v1\n"
        "kind: CustomResourceDefinition\n"
        f"metadata: {{name: {plural}.{group}}}\n"
        "spec:\n"
        f"  group: {group}\n"
        f"  names: {{kind: {kind}, plural: {plural}}}\n"
        "  scope: Namespaced\n"
        "  versions:\n"
        "    - {name: v1, served: true, storage: true, schema: {openAPIV3Schema:"
        " {type: object, x-kubernetes-preserve-unknown-fields: true}}}\n"
    )


def _object(api: str, kind: str, name: str) -> str:
    return (
        f"apiVersion: {api}\nkind: {kind}\nmetadata: {{name: {name}}}\nspec: {{a: 1}}\n"
    )


def _two_kinds(first: str, second: str) -> dict[str, Content]:
    return {
        "kgen.yaml": PROJECT,
        "crds/one.yaml": _crd("a.example.com", first, "widgets"),
        "crds/two.yaml": _crd("b.example.com", second, "widgetsb"),
        "resources/dev/one.yaml": _object("a.example.com/v1", first, "x"),
        "resources/dev/two.yaml": _object("b.example.com/v1", second, "x"),
    }


_CLAIM: dict[str, Content] = {
    "jobs/train.yaml": VALID_JOB
    + "volumes:\n  - {name: data, claim: data, mountPath: /data,"
    + " create: {size: 1Gi, accessModes: [ReadWriteMany]}}\n",
    "resources/dev/claim.yaml": "apiVersion: v1\nkind: PersistentVolumeClaim\n"
    "metadata: {name: data}\nspec:\n  accessModes: [ReadWriteOnce]\n"
    "  resources: {requests: {storage: 2Gi}}\n",
    "resources/dev/quota.yaml": "apiVersion: v1\nkind: ResourceQuota\n"
    "metadata: {name: training}\nspec:\n  hard: {requests.cpu: '8'}\n",
}

CASES: dict[str, Case] = {
    "resources-kinds-differ-only-in-case": Case(
        _two_kinds("Widget", "WIDGET"),
        about="x.widget.yaml twice: one object was dropped silently",
    ),
    "resources-kinds-differ-only-in-case-build": Case(
        _two_kinds("Widget", "WIDGET"),
        args=BUILD,
        about="build refuses it too, and writes nothing",
    ),
    "resources-kinds-differ-in-normalisation": Case(
        _two_kinds("Caf\u00e9", "Cafe\u0301"),
        about="two file names Linux keeps apart and macOS takes for one: neither is a"
        " kind the API server takes (ASCII only), so neither names a file",
    ),
    "resources-object-duplicates-a-job-object-validate": Case(
        _CLAIM,
        about="validate, the pull-request check, fails where build would",
    ),
    "resources-object-named-like-the-jobs-pytorchjob": Case(
        {
            "kgen.yaml": PROJECT.replace(
                "crds: [crds/one.yaml, crds/two.yaml]", "crds: [crds/one.yaml]"
            ),
            "crds/one.yaml": _crd("kubeflow.org", "PyTorchJob", "pytorchjobs"),
            "resources/dev/train.yaml": _object(
                "kubeflow.org/v1", "PyTorchJob", "train"
            ),
        },
        about="a CRD's object named as a job's own",
    ),
    "resources-kind-folds-to-a-job-objects-file": Case(
        {
            **_CLAIM,
            "kgen.yaml": PROJECT.replace(
                "crds: [crds/one.yaml, crds/two.yaml]", "crds: [crds/one.yaml]"
            ),
            # U+017F LATIN SMALL LETTER LONG S: case-folded, an "s".
            "crds/one.yaml": _crd(
                "a.example.com", "Per\u017fistentVolumeClaim", "pvcs"
            ),
            "resources/dev/claim.yaml": _object(
                "a.example.com/v1", "Per\u017fistentVolumeClaim", "data"
            ),
        },
        about="data.per\u017fistentvolumeclaim.yaml is the job's claim's file where names"
        " fold: not a kind the API server takes (ASCII only), so it names no file",
    ),
    "validate-one-job-clashes-with-a-team-object": Case(
        _CLAIM,
        args=("validate", "jobs/train.yaml"),
        about="the clash involves the job named: in scope, from the objects' names alone",
    ),
    "validate-other-team-file-leaves-the-clash-out": Case(
        _CLAIM,
        args=("validate", "resources/dev/quota.yaml"),
        expected_exit=0,
        about="neither the job nor the clashing object is named: out of scope",
    ),
    "resources-metadata-the-api-server-refuses": Case(
        {
            "kgen.yaml": PROJECT,
            "crds/one.yaml": _crd("a.example.com", "Widget", "widgets"),
            "crds/two.yaml": _crd("b.example.com", "Gadget", "gadgets"),
            "resources/dev/settings.yaml": "apiVersion: v1\nkind: ConfigMap\n"
            "metadata:\n  name: settings\n"
            "  labels: {'team name': 'vision team', db-password: 'not a label'}\n"
            '  annotations: {"a\\u2028b": x, ok.example.com/fine: y}\n'
            "data: {a: b}\n",
            "resources/dev/widget.yaml": "apiVersion: a.example.com/v1\nkind: Widget\n"
            "metadata: {name: w, labels: {count: 5}}\n"
            "spec: {template: {metadata: {labels: {" + "z" * 300 + ": x}}}}\n",
        },
        about="a team object's label and annotation keys and label values, its own and"
        " a template's, are held to the API server's rules as a job's are: quoted short,"
        " never a secret's value; a value that is no string refused where a CRD leaves"
        " metadata untyped",
    ),
    "resources-configmap-keys-the-api-server-refuses": Case(
        {
            "resources/dev/settings.yaml": "apiVersion: v1\nkind: ConfigMap\n"
            "metadata: {name: settings}\n"
            "data: {ok.conf: a, 'a b': b, '..': c, ../escape: d}\n"
            f"binaryData: {{'{'k' * 300}': aGk=}}\n",
        },
        about="a ConfigMap's keys are its file names when mounted: the API server"
        " refuses one outside [-._a-zA-Z0-9], '.' and '..', and so does kgen, at the key",
    ),
    "resources-configmap-key-in-data-and-binary-data": Case(
        {
            "resources/dev/settings.yaml": "apiVersion: v1\nkind: ConfigMap\n"
            "metadata: {name: settings}\n"
            "data: {a.conf: a, '1': b}\n"
            "binaryData: {a.conf: aGk=, 1: aGk=, b.conf: aGk=}\n",
        },
        about="one key in data and binaryData is one file twice: the API server"
        " refuses the ConfigMap, and so does kgen, at the second",
    ),
    "resources-metadata-the-cluster-sets": Case(
        {
            "resources/dev/settings.yaml": "apiVersion: v1\nkind: ConfigMap\n"
            "metadata:\n  name: settings\n  generateName: settings-\n"
            "  ownerReferences: [{apiVersion: v1, kind: Pod, name: p, uid: '1'}]\n"
            "  finalizers: [example.com/keep]\n"
            "data: {a: b}\n",
        },
        about="generateName cannot be applied (kubectl apply, Argo CD and Flux find an"
        " object by its name) and an owner reference's uid is the cluster's: the garbage"
        " collector deletes what has no such owner. A finalizer is the team's to declare"
        " (Argo CD's own Applications declare theirs in git): kept",
    ),
    "resources-configmap-binary-data-not-base64": Case(
        {
            "resources/dev/settings.yaml": "apiVersion: v1\nkind: ConfigMap\n"
            "metadata: {name: settings}\n"
            "binaryData:\n"
            "  short: aGk\n"
            "  spaced: aGk gaGk=\n"
            "  early: aG=kaGk=\n"
            "  lines: |\n    aGVsbG8g\n    d29ybGQ=\n"
            "  empty: ''\n"
            "  good: aGk=\n",
            "resources/dev/hook.yaml": "apiVersion: admissionregistration.k8s.io/v1\n"
            "kind: ValidatingWebhookConfiguration\n"
            "metadata: {name: hook}\n"
            "webhooks:\n"
            "  - name: check.example.com\n"
            "    admissionReviewVersions: [v1]\n"
            "    sideEffects: None\n"
            "    clientConfig: {url: 'https://hook.example.com', caBundle: LS0tLS1CRUdJTi}\n",
        },
        about="a byte field (format: byte) is standard base64 with padding, as the API"
        " server decodes it (Go's base64.StdEncoding, line breaks skipped), and it"
        " refuses the object otherwise: at the value, which is never quoted",
    ),
    "resources-quantities-the-api-server-refuses": Case(
        {
            "resources/dev/limits.yaml": "apiVersion: v1\nkind: LimitRange\n"
            "metadata: {name: limits}\n"
            "spec:\n"
            "  limits:\n"
            "    - type: Container\n"
            "      max: {memory: 4GB, cpu: ' 2 '}\n"
            "      default: {memory: 1Gi, cpu: 500m, ephemeral-storage: 1e3}\n"
            "      defaultRequest: {cpu: 0.5, memory: 1.5 Gi}\n",
            "resources/dev/quota.yaml": "apiVersion: v1\nkind: ResourceQuota\n"
            "metadata: {name: quota}\n"
            "spec: {hard: {requests.nvidia.com/gpu: '8', pods: ten}}\n",
        },
        about="a quantity's grammar is the API server's to enforce (resource.ParseQuantity,"
        " after trimming spaces): 4GB, '1.5 Gi' and ten are refused at the value, which"
        " no OpenAPI schema says (Quantity is any string or number there)",
    ),
    "resources-whole-floats-where-integers-go": Case(
        {
            "resources/dev/web.yaml": "apiVersion: apps/v1\nkind: Deployment\n"
            "metadata: {name: web}\n"
            "spec:\n"
            "  replicas: 2.0\n"
            "  selector: {matchLabels: {app: web}}\n"
            "  template:\n"
            "    metadata: {labels: {app: web}}\n"
            "    spec:\n"
            "      containers:\n"
            "        - name: web\n"
            "          image: nginx:1.27\n"
            "          resources: {requests: {cpu: 0.5, memory: 1Gi}}\n",
        },
        about="a whole float where an integer goes is refused as the spec refuses one:"
        " the cluster holds 2, and the output would say 2.0; a quantity takes any number",
    ),
}
