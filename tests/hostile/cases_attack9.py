"""Hostile inputs of the ninth round: text read as a number by a check that takes more
than the reader after it does (a digit of another script, an exponent past what the
decimal module holds), in the newest readers: CRD references, quantities, torchrun's
command line and a runtime's process count."""

from __future__ import annotations

from tests.hostile.case import VALID_JOB, Case, Content, job_with
from tests.hostile.cases_cel import _case as _cel_case
from tests.hostile.cases_input import _crd, _with_crd

_IMPORT = ("import", "manifest.yaml", "--out", "imported")

_RUNTIME_AND_JOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata: {name: rt, namespace: default}
spec:
  mlPolicy:
    numNodes: 1
    mpi: {numProcPerNode: "NPROC"}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            spec:
              template:
                spec:
                  containers: [{name: node, image: "python:3.11"}]
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj, namespace: default}
spec:
  runtimeRef: {apiGroup: trainer.kubeflow.org, kind: TrainingRuntime, name: rt}
  trainer: {numNodes: 1, image: "python:3.11", command: COMMAND}
"""

_PYTORCHJOB = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: t, namespace: default}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
            - name: pytorch
              image: registry.example.com/x:1
              command: [torchrun, "--nproc_per_node=COUNT", train.py]
"""


def _trainjob(nproc: str, command: str = "[python3, train.py]") -> dict[str, Content]:
    text = _RUNTIME_AND_JOB.replace("NPROC", nproc).replace("COMMAND", command)
    return {"manifest.yaml": text}


_SHELL_JOB = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: t, namespace: default}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
            - name: pytorch
              image: registry.example.com/x:1
              command: [bash, -c, "COMMAND"]
"""


_GIT_SYNC_JOB = _PYTORCHJOB.replace("COUNT", "2").replace(
    "          containers:\n",
    "          initContainers:\n"
    "            - name: git-sync\n"
    "              image: registry.k8s.io/git-sync/git-sync:v4.2.1\n"
    '              args: ["--repo=https://github.com/a/b", "--root=/code",'
    ' "--depth=all"]\n'
    "          containers:\n",
)


_WIDGET_BESIDE = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets, singular: widget}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: default}
spec: {a: "x\\u202ey"}
"""


def _shell_job(command: str) -> dict[str, Content]:
    return {"manifest.yaml": _SHELL_JOB.replace("COMMAND", command)}


_ARGS = "self.spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].args"


def _with_arg(arg: str) -> str:
    return VALID_JOB + f"args: ['{arg}']\n"


def _team_quota(amount: str) -> dict[str, Content]:
    return {
        "resources/quota.yaml": "apiVersion: v1\nkind: ResourceQuota\n"
        f"metadata: {{name: q}}\nspec: {{hard: {{cpu: '{amount}'}}}}\n"
    }


CASES: dict[str, Case] = {
    # str.isdigit() takes '²' and '٣', which int() refuses or reads as 3: a JSON
    # pointer's index of another script ended the run as an internal error, exit 3.
    "attack9-crd-ref-index-superscript-digit": Case(
        _with_crd(_crd('{allOf: [{type: object}], $ref: "#/properties/spec/allOf/²"}')),
        about="a $ref whose list index is a superscript two",
    ),
    "attack9-crd-ref-index-escaped-digit": Case(
        _with_crd(
            _crd(
                "{allOf: [{type: object}]}", '{$ref: "#/properties/spec/allOf/%C2%B2"}'
            )
        ),
        about="a $ref whose list index is a superscript two, URI-escaped",
    ),
    "attack9-crd-ref-index-arabic-digit": Case(
        _with_crd(_crd('{allOf: [{type: object}], $ref: "#/properties/spec/allOf/٠"}')),
        about="a $ref whose list index is an Arabic-Indic zero, no index of JSON",
    ),
    "attack9-crd-ref-index-of-5000-digits": Case(
        _with_crd(
            _crd(
                '{allOf: [{type: object}], $ref: "#/properties/spec/allOf/'
                + "1" * 5000
                + '"}'
            )
        ),
        about="a $ref whose list index int() refuses for its length (past 4,300 digits)",
    ),
    "attack9-runtime-nproc-superscript-digit": Case(
        _trainjob("²"),
        args=_IMPORT,
        expected_exit=0,
        about="a runtime's numProcPerNode '²' was read as a number and failed int()",
    ),
    "attack9-torchrun-count-superscript-digit": Case(
        {"manifest.yaml": _PYTORCHJOB.replace("COUNT", "²")},
        args=_IMPORT,
        expected_exit=0,
        about="torchrun's count '²' was written into the spec, which refuses it",
    ),
    "attack9-torchrun-count-arabic-digit": Case(
        {"manifest.yaml": _PYTORCHJOB.replace("COUNT", "٣")},
        args=_IMPORT,
        expected_exit=0,
        about="torchrun's count '٣' was written into the spec, which refuses it",
    ),
    # An exponent past the decimal module's (1e1000000) raised decimal.Overflow, an
    # internal error: in a job's requests, a team object's quantity, a CEL quantity.
    "attack9-quantity-exponent-past-decimal": Case(
        job_with('resources: {requests: {memory: "1e1000000"}}'),
        about="a request of 1e1000000 bytes",
    ),
    "attack9-quantity-long-mantissa-and-suffix": Case(
        job_with('resources: {requests: {cpu: "1' + "0" * 999_990 + 'E"}}'),
        about="a million-digit number with the suffix E: past the decimal module too",
    ),
    "attack9-cel-quantity-exponent-past-decimal": _cel_case(
        "a CEL rule that reads a quantity of 1e1000000",
        root_rule="quantity('1e1000000').isLessThan(quantity('1'))",
    ),
    "attack9-team-quota-exponent-past-decimal": Case(
        _team_quota("-1E1000000"),
        expected_exit=0,
        about="a ResourceQuota's hard cpu of -1E1000000: a quantity, however far",
    ),
    # shlex.shlex adds a character at a time to a run of operator characters or a
    # quoted word: torchrun's count in a `bash -c` string of 900,000 semicolons took
    # 27 s, of 300,000 quoted words 5 s. A linear reader: about a second, as import of
    # any 900 KB string takes.
    "attack9-shell-string-of-semicolons": Case(
        _shell_job(";" * 900_000),
        args=_IMPORT,
        expected_exit=0,
        seconds=2.0,
        about="a bash -c string of 900,000 semicolons: was 27 s, quadratic",
    ),
    "attack9-shell-string-of-quoted-words": Case(
        _shell_job("'a'" * 300_000 + " torchrun --nproc_per_node=3 x.py"),
        args=_IMPORT,
        expected_exit=0,
        seconds=2.0,
        about="a bash -c word of 300,000 quoted parts: was 5 s, quadratic",
    ),
    "attack9-shell-string-comment-inside-a-word": Case(
        _shell_job("torchrun --nproc_per_node=2#x train.py"),
        args=_IMPORT,
        expected_exit=0,
        about="`2#x` is one word to the shell: no count kgen reads, no comment",
    ),
    # The Kubernetes CEL library's string functions ran before their size was known,
    # and find/findAll on Python's backtracking re: each is refused before it runs
    # past a rule's cost. A regular expression that does not compile was printed by
    # the runtime as a line of its own, unlocated.
    "attack9-cel-find-backtracks": _cel_case(
        "find with five quantifiers on 3,000 characters: ran for minutes",
        job=_with_arg("a" * 3000),
        args_rule="self.find('a*a*a*a*a*b') == ''",
    ),
    "attack9-cel-replace-squares-the-value": _cel_case(
        "replace of each character by the value: 400 MB before the result's check",
        job=_with_arg("a" * 20_000),
        args_rule="self.replace('a', self).size() > 0",
    ),
    "attack9-cel-join-squares-the-value": _cel_case(
        "join of 20,000 parts with the value: 400 MB before the result's check",
        job=_with_arg("a" * 20_000),
        args_rule="self.split('a').join(self).size() > 0",
    ),
    "attack9-cel-find-pattern-does-not-compile": _cel_case(
        "an unclosed group: the runtime printed Python's error on a line of its own",
        job=_with_arg("abc"),
        args_rule="self.find('(') == ''",
    ),
    # The cost estimate read a comprehension only as `.all(` written together, and
    # counted brackets inside strings: a rule could nest three over 10,000 values.
    "attack9-cel-comprehensions-spaced-out": _cel_case(
        "three nested comprehensions with a blank before each bracket",
        job=VALID_JOB + "args:\n" + "".join(f"  - a{i}\n" for i in range(2_000)),
        root_rule=f"{_ARGS}.all (x, {_ARGS}.all (y, {_ARGS}.all (z, true)))",
    ),
    "attack9-cel-comprehensions-behind-a-quoted-bracket": _cel_case(
        "a ')' in a string closed the first comprehension's bracket for the estimate",
        job=VALID_JOB + "args:\n" + "".join(f"  - a{i}\n" for i in range(2_000)),
        root_rule=f"{_ARGS}.all(x, ')' != x && {_ARGS}.all(y, ')' != y ||"
        f" {_ARGS}.all(z, true)))",
    ),
    # int() refuses a number past 4,300 digits in Python's own words ("use
    # sys.set_int_max_str_digits()"), and import gave up on the whole job at 1:1.
    "attack9-spec-nproc-of-5000-digits": Case(
        job_with("nprocPerNode: '" + "9" * 5000 + "'"),
        about="nprocPerNode of 5,000 digits: Python's int() message was the error",
    ),
    "attack9-torchrun-count-of-5000-digits": Case(
        {"manifest.yaml": _PYTORCHJOB.replace("COUNT", "9" * 5000)},
        args=_IMPORT,
        expected_exit=0,
        about="torchrun's count of 5,000 digits was written into the spec",
    ),
    "attack9-trainjob-torchrun-count-of-5000-digits": Case(
        {
            "manifest.yaml": _RUNTIME_AND_JOB.replace(
                'mpi: {numProcPerNode: "NPROC"}', "torch: {numProcPerNode: auto}"
            ).replace("COMMAND", '[torchrun, "--nproc_per_node=' + "9" * 5000 + '"]')
        },
        args=_IMPORT,
        expected_exit=0,
        about="a TrainJob's torchrun count of 5,000 digits: the import gave up at 1:1",
    ),
    "attack9-git-sync-depth-not-a-number": Case(
        {"manifest.yaml": _GIT_SYNC_JOB},
        args=_IMPORT,
        expected_exit=0,
        about="git-sync's --depth=all is no depth kgen's codeSync says: kept as is",
    ),
    # The import wrote a control character into the spec and said it had imported
    # the job: `kgen validate` then refused the project it wrote.
    "attack9-import-env-value-holds-nul": Case(
        {
            "manifest.yaml": _PYTORCHJOB.replace("COUNT", "2")
            + '              env: [{name: A, value: "x\\0y"}]\n'
        },
        args=_IMPORT,
        about="an env value with a NUL: imported, then refused by validate",
    ),
    "attack9-import-shell-string-holds-bidi-override": Case(
        _shell_job("torchrun --nproc_per_node=4 train.py \\u202e# --lr 0.1"),
        args=_IMPORT,
        about="a bash -c string with a right-to-left override (Trojan Source)",
    ),
    "attack9-import-team-object-holds-bidi-override": Case(
        {"manifest.yaml": _WIDGET_BESIDE + "---\n" + _PYTORCHJOB.replace("COUNT", "2")},
        args=_IMPORT,
        about="an object kept in resources/ with U+202E: build refused what import wrote",
    ),
}
