"""The API server's CEL rules (x-kubernetes-validations) evaluated offline: a project's
own CRD (tests/fixtures/cel-pytorchjob-crd.yaml), the Kubernetes CEL functions, the
bounds on hostile rules, and transition rules against the committed render."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from kgen.check import cel_runtime
from kgen.check.cel_rules import field_path, rule_tree, violations
from kgen.check.cel_runtime import CelError, evaluate
from tests.conftest import REPO, RunKgen, write_tree

CRD = Path(__file__).parent / "fixtures" / "cel-pytorchjob-crd.yaml"
JOB = """\
framework: pytorch
image: registry.example.com/train:1.0
annotations:
  example.com/dataset: s3://bucket/data
runPolicy:
  cleanPodPolicy: All
  schedulingPolicy: {queue: research}
resources: {requests: {cpu: "1", memory: 1Gi}, limits: {memory: 1Gi}}
roles:
  master: {replicas: 1}
  worker: {replicas: 2}
"""
HINT = (
    "    hint: the API server refuses this update, so Argo CD or Flux could never"
    " sync it: rename the job per change (a new runId, or kgen.yaml jobNames:"
    " content-hash), or delete the object and let it be created again\n"
)


def _project(root: Path, job: str = JOB, crd: str | None = None) -> Path:
    return write_tree(
        root,
        {
            "kgen.yaml": "crds: [crds/pytorchjob.yaml]\nenvironments:\n"
            "  dev: {overlays: [v1], namespace: dev}\n",
            "overlays/v1.yaml": "target: v1\n",
            "jobs/train.yaml": job,
            "crds/pytorchjob.yaml": crd if crd is not None else CRD.read_text(),
        },
    )


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith("kgen:")]


# --- rules of a project's CRD on the rendered object --------------------------------


def test_a_valid_job_passes_every_rule(tmp_path: Path, run_kgen: RunKgen):
    result = run_kgen("validate", cwd=_project(tmp_path))
    assert result.code == 0, result


def test_a_bad_storage_uri_is_reported_at_the_spec_value(
    tmp_path: Path, run_kgen: RunKgen
):
    job = JOB.replace("s3://bucket/data", "bucket/data")
    result = run_kgen("validate", cwd=_project(tmp_path, job))
    assert result.code == 1
    assert _lines(result.err) == [
        "jobs/train.yaml:4:3: error: the rendered PyTorchJob 'train' is invalid at"
        " metadata.annotations.example.com/dataset: Invalid value: the dataset must be"
        " a storage URI (scheme://path) (output-schema)",
        "    hint: this spec value produced it; the cluster would reject or prune it",
    ]


def test_message_expression_and_reason_word_the_error(
    tmp_path: Path, run_kgen: RunKgen
):
    job = JOB.replace("cleanPodPolicy: All", "cleanPodPolicy: Running")
    result = run_kgen("validate", cwd=_project(tmp_path, job))
    assert result.code == 1
    assert _lines(result.err)[0] == (
        "jobs/train.yaml:6:19: error: the rendered PyTorchJob 'train' is invalid at"
        " spec.runPolicy.cleanPodPolicy: Forbidden: cleanPodPolicy Running leaves"
        " pods behind (output-schema)"
    )


def test_a_rule_at_the_root_checks_the_name(tmp_path: Path, run_kgen: RunKgen):
    root = _project(tmp_path)
    (root / "jobs/train.yaml").rename(root / "jobs/a-name-longer-than-twenty.yaml")
    result = run_kgen("validate", cwd=root)
    assert result.code == 1
    assert (
        "error: the rendered PyTorchJob 'a-name-longer-than-twenty' is invalid at the top"
        " level: Invalid value: metadata.name must be no more than 20 characters"
    ) in result.err


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        (
            "self.foo(",
            "crds/pytorchjob.yaml:20:21: error: this CRD's x-kubernetes-validations"
            " rule cannot compile: syntax error in 'self.foo(': ERROR: <input>:1:10:"
            " Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', ')',"
            " '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT,"
            " STRING, BYTES, IDENTIFIER} (invalid-value)",
        ),
        (
            "frobnicate(self)",
            "crds/pytorchjob.yaml:20:21: error: this CRD's x-kubernetes-validations"
            " rule cannot compile: undeclared reference to 'frobnicate' (invalid-value)",
        ),
        (
            "isIP(self.metadata.name)",
            "crds/pytorchjob.yaml:20:21: warning: this CRD's x-kubernetes-validations"
            " rule calls isIP, which kgen does not evaluate; it is skipped"
            " (cel-rule-skipped)",
        ),
        (
            "(" * 40 + "true" + ")" * 40,
            "crds/pytorchjob.yaml:20:21: error: this CRD's x-kubernetes-validations"
            " rule cannot compile: the rule nests brackets deeper than 32 levels"
            " (invalid-value)",
        ),
    ],
)
def test_a_rule_that_cannot_run_is_located_in_the_crd(
    tmp_path: Path, run_kgen: RunKgen, rule: str, expected: str
):
    crd = CRD.read_text().replace("size(self.metadata.name) <= 20", rule)
    result = run_kgen("validate", cwd=_project(tmp_path, crd=crd))
    assert _lines(result.err)[0] == expected
    assert result.code == (0 if "warning" in expected else 1)


# --- the runtime and the Kubernetes functions ----------------------------------------


@pytest.mark.parametrize(
    ("rule", "value", "expected"),
    [
        ("self == 3u", 3, True),  # Kubernetes compares numbers across types
        ("self.lowerAscii() == 'abc'", "AbC", True),
        ("self.split('/')", "a/b/c", ["a", "b", "c"]),
        # cel-go ext/strings.go splits on '' into characters (Go's strings.SplitN)
        ("self.split('')", "aé", ["a", "é"]),
        ("self.split('', 2)", "abc", ["a", "bc"]),
        ("self.split('', 5)", "ab", ["a", "b"]),
        ("''.split('') == [] && self.split('', 0) == []", "ab", True),
        ("self.split('/', 2)", "a/b/c", ["a", "b/c"]),
        ("self.indexOf('b')", "abc", 1),
        ("self.substring(1, 3)", "abcd", "bc"),
        ("self.join('-')", ["a", "b"], "a-b"),
        ("self.isSorted() && self.sum() == 6", [1, 2, 3], True),
        ("self.find('[0-9]+')", "ab123c", "123"),
        ("isURL(self) && url(self).getHost() == 'h:8'", "https://h:8/x", True),
        ("url(self).getScheme() + url(self).getPort()", "https://h:8/x", "https8"),
        ("quantity(self).isGreaterThan(quantity('1Gi'))", "2Gi", True),
        ("quantity(self).compareTo(quantity('1000m'))", "1", 0),
        ("isQuantity(self)", "1.5.5", False),
        ("self.all(x, x > 0) && self.exists_one(x, x == 2)", [1, 2, 3], True),
        ("self.map(x, x * 2).filter(x, x > 2)", [1, 2], [4]),
    ],
)
def test_kubernetes_functions(rule: str, value: object, expected: object):
    assert evaluate(rule, {"self": value}) == expected


@pytest.mark.parametrize(
    ("rule", "value", "message"),
    [
        ("self.missing == 1", {}, "no such key: missing"),
        ("quantity(self).sign() > 0", "lots", "quantity: quantities must match"),
        ("self.substring(5)", "abc", "substring: substring range [5, 3) out of range"),
        ("1 / self", 0, "division by zero"),
    ],
)
def test_an_error_in_evaluation_says_what(rule: str, value: object, message: str):
    with pytest.raises(CelError, match=re.escape(message)):
        evaluate(rule, {"self": value})


def test_nested_comprehensions_over_a_large_value_are_refused_before_they_run():
    too_costly = "estimated to cost more than 5,000,000"
    with pytest.raises(CelError, match=too_costly):
        evaluate("self.all(x, self.all(y, x == y))", {"self": list(range(300))})
    assert evaluate("self.all(x, self.all(y, true))", {"self": list(range(100))})
    # map and filter copy their accumulator each step: quadratic on their own.
    with pytest.raises(CelError, match=too_costly):
        evaluate("self.map(x, x).size() > 0", {"self": list(range(3000))})
    assert evaluate("self.map(x, x).size() > 0", {"self": list(range(2000))})
    # Literal lists in the rule count too: this one reads no value at all.
    literal = "[" + ",".join("1" * 40) + "]"
    with pytest.raises(CelError, match=too_costly):
        evaluate(f"{literal}.all(a, {literal}.all(b, {literal}.all(c, true)))", {})


def test_a_string_function_refuses_a_long_result_before_it_builds_it():
    """`s.replace('a', s)` of 20,000 characters built 400 MB, then was refused for
    its length: the length is known before, from the counts."""
    import tracemalloc

    value = "a" * 20_000
    tracemalloc.start()
    try:
        for rule in ("self.replace('a', self)", "self.split('a').join(self)"):
            with pytest.raises(CelError, match="result longer than 1,000,000"):
                evaluate(f"{rule}.size() > 0", {"self": value})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10_000_000
    assert evaluate("self.replace('a', 'bc', 2)", {"self": "aaa"}) == "bcbca"


def test_find_refuses_a_pattern_that_would_backtrack_past_the_cost():
    """Python's re backtracks (RE2 does not): the text's length to the power of the
    quantifiers, plus one, is the estimate. A pattern that does not compile is an
    error of the rule, never a line the runtime prints."""
    with pytest.raises(CelError, match="find/findAll with 5 quantifiers only on a"):
        evaluate("self.find('a*a*a*a*a*b')", {"self": "a" * 30})
    assert (
        evaluate("self.findAll('[0-9]+')", {"self": "a1b22" * 400}) == ["1", "22"] * 400
    )
    with pytest.raises(CelError, match="find: missing \\), unterminated subpattern"):
        evaluate("self.find('(')", {"self": "abc"})


@pytest.mark.parametrize(
    "rule",
    [
        "self.all (x, self.all (y, self.all (z, true)))",
        "self.all(x, ')' == ')' && self.all(y, ')' != ')' || self.all(z, true)))",
        "r'\\' == 'x' || self.all(x, self.all(y, self.all(z, true))) || 'a' == 'a'",
    ],
)
def test_nested_comprehensions_are_counted_however_written(rule: str):
    """Blanks between a macro's name and its bracket, and a bracket inside a string
    or a comment, hid the nesting: each of these ran for a second on 150 elements
    (for hours on 10,000), estimated as one plain pass."""
    with pytest.raises(CelError, match="estimated to cost more than 5,000,000"):
        evaluate(rule, {"self": list(range(300))})


def test_a_macro_beside_reads_of_self_is_no_nested_comprehension():
    """The Trainer CRD's mlPolicy rule (kubeflow/trainer@v2.3.0
    manifests/base/crds/trainer.kubeflow.org_trainingruntimes.yaml) reads self five
    times outside its one filter: each read was counted as another level of nesting,
    and the rule was refused as too costly on every runtime."""
    rule = (
        "[has(self.torch), has(self.mpi), has(self.jax), has(self.xgboost),"
        "has(self.flux)].filter(x, x).size() <= 1"
    )
    assert evaluate(rule, {"self": {"numNodes": 1, "torch": {}}}) is True
    assert evaluate(rule, {"self": {"torch": {}, "mpi": {}}}) is False
    # A read of self inside a comprehension is still one more level.
    with pytest.raises(CelError, match="estimated to cost more than 5,000,000"):
        evaluate("self.all(x, x in self)", {"self": list(range(3000))})


def test_find_is_held_to_the_cost_of_a_rule():
    from kgen.check import cel_k8s

    assert cel_k8s.MAX_COST == cel_runtime.MAX_COST


def test_no_function_is_left_unlisted():
    """Every function a rule may call is either evaluated or skipped with a warning."""
    from kgen.check import cel_k8s

    assert not cel_k8s.SUPPORTED & cel_k8s.UNSUPPORTED
    assert not cel_k8s.SUPPORTED & cel_runtime.STANDARD


def test_field_path():
    assert field_path(".spec.replicas") == ("spec", "replicas")
    assert field_path(".labels['app.kubernetes.io/name']") == (
        "labels",
        "app.kubernetes.io/name",
    )
    assert field_path("spec") == ()  # not a path: the node itself


def test_list_map_elements_are_correlated_by_key_and_others_never():
    schema = {
        "type": "object",
        "properties": {
            "byName": {
                "type": "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"],
                "items": {
                    "x-kubernetes-validations": [{"rule": "self.v == oldSelf.v"}]
                },
            },
            "atomic": {
                "type": "array",
                "items": {"x-kubernetes-validations": [{"rule": "self == oldSelf"}]},
            },
        },
    }
    tree = rule_tree(schema)
    assert tree is not None
    old = {"byName": [{"name": "a", "v": 1}, {"name": "b", "v": 2}], "atomic": [1]}
    new = {"byName": [{"name": "b", "v": 3}, {"name": "a", "v": 1}], "atomic": [2]}
    found = [(v.path, v.message) for v in violations(tree, new, old)]
    assert found == [(("byName", 0), "Invalid value: failed rule: self.v == oldSelf.v")]


# --- transition rules against the committed render -----------------------------------


def _changed(root: Path) -> None:
    text = (root / "jobs/train.yaml").read_text()
    text = text.replace("queue: research", "queue: prod").replace("1.0", "1.1")
    (root / "jobs/train.yaml").write_text(text)


QUEUE = (
    "jobs/train.yaml:7:29: error: the PyTorchJob 'train' changes"
    " spec.runPolicy.schedulingPolicy.queue in place, which its CRD forbids (Invalid"
    " value: queue is immutable); the committed value is at {committed}:17"
    " (immutable-field-changed)"
)


def test_an_immutable_field_changed_in_place_is_an_error(
    tmp_path: Path, run_kgen: RunKgen
):
    root = _project(tmp_path)
    assert run_kgen("build", cwd=root).code == 0
    _changed(root)
    result = run_kgen("validate", cwd=root)
    assert result.code == 1
    image = (
        "jobs/train.yaml:2:8: error: the PyTorchJob 'train' changes"
        " spec.pytorchReplicaSpecs.{role}.template.spec.containers[0].image in place,"
        " which its CRD forbids (Invalid value: a container's image is immutable);"
        " the committed value is at manifests/dev/train.pytorchjob.yaml:{line}"
        " (immutable-field-changed)"
    )
    assert result.err.count(HINT) == 3
    lines = _lines(result.err.replace(HINT, ""))
    assert lines[2:] == [
        image.format(role="Master", line=28),
        image.format(role="Worker", line=46),
        QUEUE.format(committed="manifests/dev/train.pytorchjob.yaml"),
    ]
    # Line 17 of the committed file holds the committed value.
    committed = (root / "manifests/dev/train.pytorchjob.yaml").read_text()
    assert committed.splitlines()[16].strip() == "queue: research"


def test_a_new_run_id_makes_it_a_new_object(tmp_path: Path, run_kgen: RunKgen):
    root = _project(tmp_path)
    assert run_kgen("build", cwd=root).code == 0
    _changed(root)
    (root / "jobs/train.yaml").write_text(
        (root / "jobs/train.yaml").read_text() + "runId: r2\n"
    )
    assert run_kgen("validate", cwd=root).code == 0


def test_a_mutable_change_passes(tmp_path: Path, run_kgen: RunKgen):
    root = _project(tmp_path)
    assert run_kgen("build", cwd=root).code == 0
    text = (root / "jobs/train.yaml").read_text().replace('cpu: "1"', 'cpu: "2"')
    (root / "jobs/train.yaml").write_text(text)
    result = run_kgen("validate", cwd=root)
    assert result.code == 0, result
    assert "immutable-field-changed" not in result.err


def test_the_build_refuses_the_change_too(tmp_path: Path, run_kgen: RunKgen):
    root = _project(tmp_path)
    assert run_kgen("build", cwd=root).code == 0
    _changed(root)
    result = run_kgen("build", cwd=root)
    assert result.code == 1
    assert "(immutable-field-changed)" in result.err


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def test_with_base_the_base_render_is_the_old_object(tmp_path: Path, run_kgen: RunKgen):
    root = _project(tmp_path)
    assert run_kgen("build", cwd=root).code == 0
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "init")
    _changed(root)
    assert run_kgen("build", cwd=root).code == 1  # refused: nothing is written
    result = run_kgen("validate", "--base", "main", cwd=root)
    assert result.code == 1
    expected = QUEUE.format(committed="manifests/dev/train.pytorchjob.yaml").replace(
        ":17 (", ":17 of the base ("
    )
    assert expected in result.err


# --- the repository's own example, and rules in kgen's own envelopes -----------------


def test_the_repository_example_refuses_a_queue_changed_in_place(
    tmp_path: Path, run_kgen: RunKgen
):
    """kgen.yaml lists crds/pytorchjob-rules.yaml, whose queue rule is training-operator's
    (kubeflow/trainer v1.9.4, kubeflow.org_pytorchjobs.yaml)."""
    for name in ("kgen.yaml", "jobs", "overlays", "crds", "resources", "manifests"):
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name)
        else:
            shutil.copy(source, tmp_path / name)
    job = tmp_path / "jobs/resnet-3node.yaml"
    job.write_text(job.read_text().replace("queue: training", "queue: research"))
    result = run_kgen("validate", cwd=tmp_path)
    assert result.code == 1
    # One error for each environment whose CRD rule applies (kubeflow.org/v1 with
    # runPolicy), each naming its committed file and line; located at the new value.
    expected = [
        "jobs/resnet-3node.yaml:57:12: error: the PyTorchJob 'resnet-3node' changes"
        " spec.runPolicy.schedulingPolicy.queue in place, which its CRD forbids"
        " (Invalid value: spec.runPolicy.schedulingPolicy.queue is immutable); the"
        f" committed value is at {committed}:{_line_of(committed, 'queue: training')}"
        " (immutable-field-changed)"
        for committed in (
            f"manifests/{env}/resnet-3node.pytorchjob.yaml"
            for env in ("dev-cpu", "prod-gpu", "to16-gpu")
        )
    ]
    assert [line for line in result.err.splitlines() if "error:" in line] == expected


def _line_of(committed: str, text: str) -> int:
    lines = (REPO / committed).read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.strip() == text)


def test_rules_in_a_kinds_envelope_run_on_every_render(
    tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    """A kind whose envelope carries its CRD's rules (as TrainJob's does) gets them
    checked without any CRD in the project."""
    from kgen.check import cel_envelope

    schema = {
        "properties": {
            "spec": {
                "properties": {
                    "runPolicy": {
                        "properties": {
                            "cleanPodPolicy": {
                                "x-kubernetes-validations": [
                                    {"rule": "self != 'Running'", "message": "no"}
                                ]
                            }
                        }
                    }
                }
            }
        }
    }
    monkeypatch.setattr(
        cel_envelope, "envelope_rules", lambda kind, target: rule_tree(schema)
    )
    root = write_tree(
        tmp_path,
        {
            "kgen.yaml": "environments:\n  dev: {overlays: [v1], namespace: dev}\n",
            "overlays/v1.yaml": "target: v1\n",
            "jobs/train.yaml": JOB.replace(
                "cleanPodPolicy: All", "cleanPodPolicy: Running"
            ),
        },
    )
    monkeypatch.setenv("KGEN_NO_CACHE", "1")
    result = run_kgen("validate", cwd=root)
    assert result.code == 1
    assert (
        "jobs/train.yaml:6:19: error: the rendered PyTorchJob 'train' is invalid at"
        " spec.runPolicy.cleanPodPolicy: Invalid value: no (output-schema)"
    ) in result.err


def test_a_team_object_in_resources_meets_its_crds_rules(
    tmp_path: Path, run_kgen: RunKgen
):
    crd = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: localqueues.kueue.x-k8s.io}
spec:
  group: kueue.x-k8s.io
  names: {kind: LocalQueue, plural: localqueues}
  scope: Namespaced
  versions:
    - name: v1beta1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
          properties:
            spec:
              type: object
              properties:
                clusterQueue:
                  type: string
                  x-kubernetes-validations:
                    - rule: self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')
                      message: clusterQueue must be a DNS label
"""
    root = _project(tmp_path)
    write_tree(
        root,
        {
            "kgen.yaml": "crds: [crds/pytorchjob.yaml, crds/localqueue.yaml]\n"
            "environments:\n  dev: {overlays: [v1], namespace: dev}\n",
            "crds/localqueue.yaml": crd,
            "resources/queue.yaml": "apiVersion: kueue.x-k8s.io/v1beta1\n"
            "kind: LocalQueue\nmetadata: {name: team}\nspec:\n  clusterQueue: Team_GPUs\n",
        },
    )
    result = run_kgen("validate", cwd=root)
    assert result.code == 1
    assert (
        "resources/queue.yaml:5:17: error: invalid LocalQueue: Invalid value:"
        " clusterQueue must be a DNS label (invalid-value)"
    ) in result.err


def test_a_committed_render_that_is_a_link_is_never_read(
    tmp_path: Path, run_kgen: RunKgen
):
    root = _project(tmp_path / "project")
    assert run_kgen("build", cwd=root).code == 0
    committed = root / "manifests/dev/train.pytorchjob.yaml"
    outside = tmp_path / "outside.yaml"
    outside.write_text(committed.read_text().replace("research", "do-not-read"))
    committed.unlink()
    committed.symlink_to(outside)
    _changed(root)
    result = run_kgen("validate", cwd=root)
    assert "do-not-read" not in result.err
    # Not a silent pass either: the immutable fields could not be checked.
    assert result.code == 1, result
    assert (
        "error: the committed render manifests/dev/train.pytorchjob.yaml cannot be read"
        " (manifests/dev/train.pytorchjob.yaml links to a file outside the project;"
        " kgen reads only files inside it): its immutable fields are not checked"
        " against this job (immutable-field-changed)"
    ) in result.err
    assert "Traceback" not in result.err


def test_a_panic_of_the_runtime_is_a_rule_error_and_an_interrupt_goes_on():
    class PanicException(BaseException):  # pyo3's, which a Rust panic raises
        pass

    assert str(cel_runtime._failed(PanicException("index out of range"))) == (
        "index out of range"
    )
    with pytest.raises(KeyboardInterrupt):
        cel_runtime._failed(KeyboardInterrupt())


def test_a_rule_names_properties_as_kubernetes_escapes_them():
    """kubernetes/apiserver pkg/cel/escaping.go: keywords and `-` `.` `/` `__`."""
    schema = {
        "x-kubernetes-validations": [
            {
                "rule": "self.__namespace__ == 'ml' && self.app__dot__kubernetes__dash__io == 1"
            },
            {"rule": "self.a__underscores__b__slash__c == 2"},
        ]
    }
    tree = rule_tree(schema)
    assert tree is not None
    good = {"namespace": "ml", "app.kubernetes-io": 1, "a__b/c": 2}
    assert list(violations(tree, good)) == []
    bad = {**good, "a__b/c": 3}
    assert [v.message for v in violations(tree, bad)] == [
        "Invalid value: failed rule: self.a__underscores__b__slash__c == 2"
    ]


def test_a_job_that_has_not_run_may_ignore_the_rule_with_a_reason(
    tmp_path: Path, run_kgen: RunKgen
):
    root = _project(tmp_path)
    assert run_kgen("build", cwd=root).code == 0
    _changed(root)
    job = root / "jobs/train.yaml"
    job.write_text(
        job.read_text()
        + "lint:\n  ignore:\n    immutable-field-changed: not applied yet\n"
        + "    job-changed-in-place: not applied yet\n"
    )
    result = run_kgen("validate", cwd=root)
    assert result.code == 0, result
    assert "immutable-field-changed" not in result.err
