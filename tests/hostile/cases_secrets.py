"""Hostile inputs against masking, user CRDs and per-environment cost (issue 14, second round).

A user CRD's schema is bounded in what it costs to check against, whatever its shape
(`$ref` chains, alternatives written out, cycles); a message masks what it quotes before
it cuts it; a value under a secret's name is never quoted, and never reaches the output
as a literal; the work of many environments is not the work of one, times them.
"""

from __future__ import annotations

from tests.hostile.case import VALID_JOB, Case, Content, job, job_with

WITH_CRD = "crds: [crds/pytorchjob.yaml]\nenvironments:\n  dev: [v1]\n"


def _crd(schema: str) -> str:
    """A PyTorchJob CRD whose openAPIV3Schema is `schema` (YAML flow)."""
    return (
        "apiVersion: apiextensions.k8s.io/v1\n"
        "kind: CustomResourceDefinition\n"
        "metadata: {name: pytorchjobs.kubeflow.org}\n"
        "spec:\n"
        "  group: kubeflow.org\n"
        "  names: {kind: PyTorchJob, plural: pytorchjobs}\n"
        "  scope: Namespaced\n"
        "  versions:\n"
        "    - name: v1\n"
        "      served: true\n"
        "      storage: true\n"
        "      schema:\n"
        f"        openAPIV3Schema: {schema}\n"
    )


def _with_crd(schema: str) -> dict[str, Content]:
    return {"kgen.yaml": WITH_CRD, "crds/pytorchjob.yaml": _crd(schema)}


def _chain(levels: int, width: int) -> str:
    """`levels` definitions, each an anyOf of `width` references to the next: width
    to the power of levels schemas in a few hundred bytes."""
    refs = []
    for i in range(levels):
        branches = ", ".join([f'{{$ref: "#/definitions/d{i + 1}"}}'] * width)
        refs.append(f"d{i}: {{anyOf: [{branches}]}}")
    return (
        f"{{definitions: {{{', '.join(refs)}, d{levels}: {{type: string}}}},"
        ' $ref: "#/definitions/d0"}'
    )


def _tree(levels: int) -> str:
    """Nested anyOfs written out, no $ref: 2^levels leaves."""
    if not levels:
        return "{type: string}"
    inner = _tree(levels - 1)
    return f"{{anyOf: [{inner}, {inner}]}}"


def _single_chain(length: int) -> str:
    refs = [f'd{i}: {{$ref: "#/definitions/d{i + 1}"}}' for i in range(length)]
    return (
        f"{{type: object, x-kubernetes-preserve-unknown-fields: true, definitions:"
        f" {{{', '.join(refs)}, d{length}: {{type: object}}}},"
        ' properties: {spec: {$ref: "#/definitions/d0"}}}'
    )


_ACCEPTS_ALL = "type: object, x-kubernetes-preserve-unknown-fields: true"


def _down(path: list[str], schema: str) -> str:
    """`schema` at `path` (a property name; `*` any property; `[]` any item), every
    object on the way accepting all else."""
    for part in reversed(path):
        if part == "[]":
            schema = f"{{type: array, items: {schema}}}"
        elif part == "*":
            schema = f"{{type: object, additionalProperties: {schema}}}"
        else:
            schema = f"{{{_ACCEPTS_ALL}, properties: {{{part}: {schema}}}}}"
    return schema


_URL = "https://admin:Hunter2xHunter2Hunter2xHunter2Hunter2xHunter2@h.example.com/"


def _environments(count: int, overlays: list[str]) -> str:
    names = ", ".join(overlays)
    return "environments:\n" + "".join(f"  e{i}: [{names}]\n" for i in range(count))


def _overlays_of_env_entries(count: int, entries: int) -> dict[str, Content]:
    return {
        f"overlays/o{i}.yaml": "patch:\n  env:\n"
        + "".join(f"  - {{name: V{j}, value: v{i}}}\n" for j in range(entries))
        for i in range(count)
    }


CASES: dict[str, Case] = {
    # --- F1: a user CRD's schema is bounded in cost, whatever its shape
    "crd-ref-chain-of-anyofs": Case(
        _with_crd(_chain(16, 2)),
        about="1.4 KB standing for 2^16 schemas: refused at the first anyOf, not walked",
    ),
    "crd-ref-chain-of-wide-anyofs": Case(_with_crd(_chain(7, 10))),
    "crd-ref-chain-on-the-command-line": Case(
        {"crds/pytorchjob.yaml": _crd(_chain(26, 2))},
        args=("validate", "--crd", "crds/pytorchjob.yaml"),
    ),
    "crd-anyofs-written-out": Case(
        _with_crd(_tree(11)),
        about="no $ref at all: a failed check would still list every branch",
    ),
    "crd-ref-chain-too-long": Case(
        _with_crd(_single_chain(12_000)),
        about="compiling 12,000 references in a row would take seconds",
    ),
    "crd-ref-chain-long-but-bounded": Case(
        _with_crd(_single_chain(1_500)),
        expected_exit=0,
        about="1,500 references in a row cost little: accepted",
    ),
    "crd-recursive-schema-is-accepted": Case(
        _with_crd(
            f"{{{_ACCEPTS_ALL}, definitions: {{any: {{{_ACCEPTS_ALL},"
            ' properties: {a: {$ref: "#/definitions/any"}, b: {$ref: "#/definitions/any"}}}},'
            ' properties: {spec: {$ref: "#/definitions/any"}}}'
        ),
        expected_exit=0,
        about="a $ref back into itself goes only as deep as the object: counted once",
    ),
    "crd-all-of-thousands-reports-the-first": Case(
        _with_crd(
            f"{{{_ACCEPTS_ALL}, properties: {{spec: {{allOf: ["
            + ", ".join(["{type: string}"] * 5_000)
            + "]}}}"
        ),
        about="one wrong value fails 5,000 schemas: the first error says it",
    ),
    "crd-small-anyof-over-ten-thousand-args": Case(
        {
            **_with_crd(
                _down(
                    [
                        "spec",
                        "pytorchReplicaSpecs",
                        "*",
                        "template",
                        "spec",
                        "containers",
                        "[]",
                        "args",
                        "[]",
                    ],
                    "{anyOf: [{type: integer}, {type: boolean}]}",
                )
            ),
            "jobs/train.yaml": VALID_JOB + "args: [" + ", ".join(["x"] * 9_999) + "]\n",
        },
        about="20,000 failing anyOfs in one object: one check, not 20,000 errors built",
    ),
    "crd-ref-under-a-property-named-default": Case(
        _with_crd(
            f"{{{_ACCEPTS_ALL}, properties: {{default: {{$ref: 'file:///etc/passwd'}}}}}}"
        ),
        about="a property may be called default: what it holds is a schema, not data",
    ),
    "crd-id-names-another-document": Case(
        _with_crd(
            f"{{{_ACCEPTS_ALL}, properties: {{spec: {{$id: 'http://example.com/s',"
            " $ref: '#/definitions/x', definitions: {x: {type: object}}}}}"
        ),
        about="under $id, '#/definitions/x' would mean another document's",
    ),
    "crd-ref-to-a-name": Case(
        _with_crd(f"{{{_ACCEPTS_ALL}, properties: {{spec: {{$ref: '#spec'}}}}}}")
    ),
    # --- F3: masked before cut
    "crd-schema-error-cuts-after-masking": Case(
        _with_crd(
            "{type: object, properties: {spec: {type: ["
            + ", ".join(["aaaaaaaaaa"] * 12)
            + f", '{_URL}']}}}}}}"
        ),
        about="the URL's password falls past the 200th character of the reason",
    ),
    "int-tag-on-a-url-with-password": Case(
        job_with(f"env:\n  - {{name: X, value: !!int '{_URL}'}}"),
        about="the tag's message shows 20 characters: of the masked text",
    ),
    # --- F10: a value under a secret's name is never quoted
    "secret-env-value-a-number": Case(
        job_with("env:\n  - {name: API_TOKEN, value: 918273645546372819}")
    ),
    "secret-env-value-a-float": Case(
        job_with("env:\n  - {name: DB_PASSWORD, value: 3.14159265358979}")
    ),
    "secret-env-value-a-huge-number": Case(
        job_with("env:\n  - {name: API_TOKEN, value: " + "9182736455" * 7 + "}"),
        about="a number past 60 digits is shown by its first 12: not this one",
    ),
    "int-tag-under-a-secret-key": Case(
        job_with("labels: {db-password: !!int Hunter2}")
    ),
    "bool-tag-on-a-secret-env-value": Case(
        job_with("env:\n  - {name: API_TOKEN, value: !!bool Hunter2xHunter2}"),
        about="the name before the value says it is a secret, as the loader reads it",
    ),
    "secret-label-value-invalid": Case(
        job_with("labels: {db-password: 'Hunter2!Hunter2'}")
    ),
    "secret-toleration-value-wrong-type": Case(
        job_with(
            "tolerations:\n  - {key: password, operator: Equal, value: 123456789012}"
        )
    ),
    "secret-inside-a-mapping-where-a-string-goes": Case(
        {
            "jobs/train.yaml": VALID_JOB
            + "containers:\n  - name: side\n    image: registry.example.com/s:1\n"
            + "    env: [{name: MODE, value: {password: Hunter2xHunter2}}]\n"
            + "    args: [{api_token: Hunter3xHunter3}]\n",
            "resources/config.yaml": "apiVersion: v1\nkind: ConfigMap\n"
            + "metadata:\n  name: config\n"
            + "  annotations: {note: {db-password: Hunter4xHunter4}}\n",
        },
        about="a schema error quotes a mapping whole: one holding a secret's name is"
        " not quoted, as the value under the name is not",
    ),
    # --- F11: literals under secret-like keys never reach the manifests
    "secret-literals-under-secret-like-keys": Case(
        job(
            VALID_JOB
            + "labels: {db-password: Hunter2xHunter2}\n"
            + "annotations: {api-token: abcdef0123456789, example.com/client-secret: s3cr3t}\n"
            + "podAnnotations: {password: Hunter2xHunter2}\n"
            + "nodeSelector: {password: Hunter2xHunter2}\n"
            + "tolerations:\n"
            + "  - {key: password, operator: Equal, value: Hunter2xHunter2}\n"
            + "affinity:\n"
            + "  nodeAffinity:\n"
            + "    requiredDuringSchedulingIgnoredDuringExecution:\n"
            + "      nodeSelectorTerms:\n"
            + "        - matchExpressions:\n"
            + "            - {key: password, operator: In, values: [Hunter2xHunter2]}\n"
        ),
        about="the same names as env variables' (secret-env-literal), in every place",
    ),
    "secret-like-keys-allowed-or-not-literal": Case(
        job(
            VALID_JOB
            + "lint:\n  allowLiterals: {token-type: not a token, db-password: a test db}\n"
            + "labels: {db-password: hunter2, token-type: bearer}\n"
            + "annotations: {auth-mode: oauth, example.com/api-key: '$(API_KEY)'}\n"
            + "tolerations:\n  - {key: nvidia.com/gpu, operator: Exists}\n"
        ),
        expected_exit=0,
        about="allowed by name; a name about the secret (auth-mode); a reference",
    ),
    # --- F7, F8: the work of many environments is not the work of one, times them
    "invalid-label-quoted-by-every-environment": Case(
        {
            "kgen.yaml": _environments(100, ["v1", "big"]),
            "overlays/big.yaml": "patch:\n  labels: {a: '" + "a=b " * 60_000 + "'}\n",
        },
        about="a 240 KB value in one problem: built, masked and located once, not 100 times",
    ),
    "same-overlays-in-many-environments": Case(
        {
            "kgen.yaml": _environments(100, ["v1", *(f"o{i}" for i in range(90))]),
            **_overlays_of_env_entries(90, 100),
        },
        expected_exit=0,
        about="90 overlays of 100 env entries merged once, not once per environment",
    ),
}
