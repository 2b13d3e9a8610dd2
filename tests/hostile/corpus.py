"""The hostile-input corpus: what a careless or malicious pull request can put in a kgen
project, one case each, with the exact outcome in expected/<case>.txt.

The cases are grouped by what they attack; tests/hostile/case.py says how a case is
written to disk. `args` is the command (validate unless said). Byte-level and generated
inputs (encodings, nesting, bombs, sizes) are why this is Python rather than a folder of
files. Crashes the fuzzer finds are added here.
"""

from __future__ import annotations

from tests.hostile import (
    cases_adoption,
    cases_attack,
    cases_attack5,
    cases_attack7,
    cases_attack8,
    cases_attack9,
    cases_cel,
    cases_edit,
    cases_import_left,
    cases_input,
    cases_kinds,
    cases_output,
    cases_patches,
    cases_pods,
    cases_policy,
    cases_rules,
    cases_secrets,
    cases_targets,
    cases_team_files,
    cases_trainer,
    cases_values,
)
from tests.hostile.case import (
    OUTSIDE_DIR,
    OUTSIDE_FILE,
    VALID_JOB,
    Case,
    Fifo,
    Link,
    job,
    job_with,
    materialise,
)

__all__ = [
    "CASES",
    "VALID_JOB",
    "Case",
    "Fifo",
    "Link",
    "job",
    "job_with",
    "materialise",
]


def _nested_maps(depth: int) -> str:
    return "".join(f"{'  ' * i}k{i}:\n" for i in range(depth)) + "  " * depth + "x\n"


def _laughs(levels: int) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        refs = ",".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    return "\n".join(lines) + "\n"


_FIRST: dict[str, Case] = {
    # --- files that are not a job spec at all
    "empty-file": Case(job(""), about="an empty spec"),
    "only-comments": Case(job("# TODO\n# write the job\n")),
    "only-whitespace": Case(job("\n   \n\n")),
    "spec-is-a-list": Case(job("- " + VALID_JOB.replace("\n", "\n  ").rstrip() + "\n")),
    "spec-is-a-scalar": Case(job("just some words\n")),
    "spec-is-a-number": Case(job("42\n")),
    "spec-is-null": Case(job("~\n")),
    "multi-document": Case(job(VALID_JOB + "---\n" + VALID_JOB)),
    "document-end-marker-then-junk": Case(job(VALID_JOB + "...\nname: x\n")),
    # --- encodings and bytes
    "bom-utf8-is-accepted": Case(
        job("\ufeff" + VALID_JOB), expected_exit=0, about="a BOM is valid YAML"
    ),
    "crlf-line-endings-are-accepted": Case(
        job(VALID_JOB.replace("\n", "\r\n")), expected_exit=0
    ),
    "utf16-file": Case(job(("\ufeff" + VALID_JOB).encode("utf-16-le"))),
    "latin1-byte": Case(job(VALID_JOB.encode() + b"description: caf\xe9\n")),
    "nul-byte": Case(job(VALID_JOB.encode() + b"description: a\x00b\n")),
    "bell-character": Case(job(VALID_JOB + "description: ring\x07\n")),
    "escaped-nul-in-image": Case(
        job(
            VALID_JOB.replace("image: registry", 'image: "reg\\0istry').replace(
                ":1.0\n", ':1.0"\n'
            )
        )
    ),
    # --- YAML syntax
    "tab-indentation": Case(job(VALID_JOB.replace("  master", "\tmaster"))),
    "duplicate-top-level-key": Case(job_with("framework: tensorflow")),
    "duplicate-nested-key": Case(
        job(VALID_JOB.replace("{replicas: 1}", "{replicas: 1, replicas: 2}"))
    ),
    "unclosed-double-quote": Case(job_with('description: "never closed')),
    "unclosed-single-quote": Case(job_with("description: 'never closed")),
    "unclosed-flow-sequence": Case(job_with("args: [a, b")),
    "unclosed-flow-mapping": Case(job_with("labels: {team: ml")),
    "bad-indentation": Case(job(VALID_JOB + "  stray: 1\n")),
    "key-without-value-colon": Case(job_with("just a line without a colon")),
    "non-string-key-list": Case(job_with("[a, b]: c")),
    "non-string-key-map": Case(job_with("? {a: 1}\n: c")),
    "integer-key": Case(job_with("1: one")),
    "null-key": Case(job_with("~: nothing")),
    # --- tags, anchors and aliases
    "python-object-tag": Case(
        job_with('description: !!python/object/apply:os.system ["echo pwned"]')
    ),
    "python-name-tag": Case(job_with("description: !!python/name:os.system")),
    "custom-tag": Case(job_with("description: !Ref someValue")),
    "binary-tag": Case(job_with("description: !!binary aGVsbG8=")),
    "set-tag": Case(job_with("labels: !!set {a, b}")),
    "merge-key": Case(
        job(
            "defaults: &d {replicas: 1}\n"
            + VALID_JOB.replace("{replicas: 1}", "{<<: *d}")
        )
    ),
    "undefined-alias": Case(job_with("labels: *nowhere")),
    "self-referencing-anchor": Case(job_with("labels: &a {x: *a}")),
    "billion-laughs": Case(job(VALID_JOB + _laughs(9)), about="9^9 strings"),
    "alias-fan-out": Case(
        job(
            "x: &x "
            + "["
            + ",".join(["aaaaaaaa"] * 400)
            + "]\n"
            + "y: ["
            + ",".join(["*x"] * 400)
            + "]\n"
            + VALID_JOB
        )
    ),
    # --- sizes and depth
    "deep-flow-nesting": Case(job("labels: " + "[" * 5000 + "]" * 5000 + "\n")),
    "deep-block-nesting": Case(job("- " * 3000 + "x\n")),
    # Found in review: ruamel's C composer overflowed the C stack (SIGSEGV) on these,
    # and its scanner took minutes on the first; now refused before composing.
    "flow-nesting-that-crashed-the-parser": Case(
        job("labels: " + "[" * 100_000 + "]" * 100_000 + "\n"), about="200 KB"
    ),
    "flow-mapping-nesting-that-crashed-the-parser": Case(
        job("labels: " + "{a: " * 100_000 + "}" * 100_000 + "\n"), about="500 KB"
    ),
    "block-nesting-that-crashed-the-parser": Case(
        job("- " * 400_000 + "x\n"), about="800 KB"
    ),
    "deep-but-allowed-nesting": Case(job(VALID_JOB + _nested_maps(90))),
    "file-over-the-size-limit": Case(job(VALID_JOB + "# " + "x" * 2_000_000 + "\n")),
    "one-very-long-line": Case(
        job_with("description: " + "y" * 900_000),
        expected_exit=0,
        about="under the size limit and never rendered: fine",
    ),
    "very-long-key": Case(job_with("k" * 10_000 + ": 1")),
    "many-keys": Case(job(VALID_JOB + "".join(f"k{i}: {i}\n" for i in range(5000)))),
    # --- wrong types at every level
    "name-is-a-list": Case(job_with("name: [a, b]")),
    "framework-is-a-number": Case(job(VALID_JOB.replace("pytorch", "3"))),
    "roles-is-a-string": Case(job(VALID_JOB.split("roles:")[0] + "roles: many\n")),
    "role-is-a-list": Case(job(VALID_JOB.replace("{replicas: 2}", "[2]"))),
    "replicas-is-words": Case(job(VALID_JOB.replace("replicas: 2", "replicas: two"))),
    "replicas-is-a-float": Case(job(VALID_JOB.replace("replicas: 2", "replicas: 2.5"))),
    "replicas-is-a-bool": Case(job(VALID_JOB.replace("replicas: 2", "replicas: true"))),
    "replicas-huge-integer": Case(
        job(VALID_JOB.replace("replicas: 2", "replicas: " + "9" * 40))
    ),
    "replicas-zero": Case(job(VALID_JOB.replace("replicas: 2", "replicas: 0"))),
    "replicas-negative": Case(job(VALID_JOB.replace("replicas: 1", "replicas: -1"))),
    "gpu-huge-integer": Case(job_with("resources: {gpu: 99999999999999999999}")),
    "gpu-negative": Case(job_with("resources: {gpu: -1}")),
    "gpu-is-a-string": Case(job_with("resources: {gpu: one}")),
    "cpu-infinite": Case(job_with("resources: {requests: {cpu: .inf}}")),
    "cpu-nan": Case(job_with("resources: {requests: {cpu: .nan}}")),
    "cpu-huge-float": Case(job_with("resources: {requests: {cpu: 1e400}}")),
    "memory-negative": Case(job_with("resources: {requests: {memory: -1Gi}}")),
    "memory-huge-exponent": Case(job_with("resources: {limits: {memory: 1e999999Gi}}")),
    "env-is-a-map": Case(job_with("env: {A: b}")),
    "env-entry-is-a-string": Case(job_with("env: [A=b]")),
    "env-duplicate-names": Case(
        job_with("env: [{name: A, value: x}, {name: A, value: y}]")
    ),
    "labels-value-is-a-map": Case(job_with("labels: {team: {a: b}}")),
    # --- names that could become paths or invalid objects
    "name-uppercase": Case(job_with("name: Train")),
    "name-with-dots": Case(job_with("name: my.train")),
    "name-unicode": Case(job_with("name: trän")),
    "name-traversal": Case(job_with("name: ../../etc/passwd")),
    "name-absolute-path": Case(job_with("name: /etc/passwd")),
    "name-with-slash": Case(job_with("name: team/train")),
    "name-empty": Case(job_with('name: ""')),
    "name-64-characters": Case(job_with("name: " + "a" * 64)),
    "name-trailing-newline": Case(job_with('name: "train\\n"')),
    "image-trailing-newline": Case(
        job(
            VALID_JOB.replace(
                "image: registry.example.com/train:1.0", 'image: "r/t:1\\n"'
            )
        )
    ),
    "env-name-with-newline": Case(job_with('env: [{name: "A\\nB", value: x}]')),
    "terminal-escape-in-value": Case(
        job(
            VALID_JOB.replace(
                "image: registry.example.com/train:1.0", 'image: "\\e[2J\\e[31mred"'
            )
        ),
        about="printed escaped, never raw",
    ),
    "bidi-override-in-name": Case(job_with('name: "train\\u202egpj"')),
    "file-name-defaults-to-bad-name": Case(
        {"jobs/train.yaml": None, "jobs/Train Job.yaml": VALID_JOB}
    ),
    "job-link-out-of-project": Case({"jobs/train.yaml": Link(OUTSIDE_FILE)}),
    "job-link-to-folder": Case({"jobs/train.yaml": Link("overlays")}),
    # --- the project file
    "project-file-missing": Case({"kgen.yaml": None}, about="exit 1 with a hint"),
    "project-file-is-a-folder": Case({"kgen.yaml": None, "kgen.yaml/x": "a: 1\n"}),
    "project-file-empty": Case({"kgen.yaml": ""}),
    "project-file-broken": Case({"kgen.yaml": "environments: [dev\n"}),
    "project-file-is-a-list": Case({"kgen.yaml": "- dev\n- prod\n"}),
    "project-file-python-tag": Case(
        {"kgen.yaml": "environments: !!python/object:os.system {}\n"}
    ),
    "environment-lists-overlay-thrice": Case(
        {"kgen.yaml": "environments:\n  dev: [v1, v1, v1]\n"}
    ),
    "environment-name-traversal": Case(
        {"kgen.yaml": "environments:\n  ../escape: [v1]\n"}
    ),
    "overlay-name-traversal": Case(
        {"kgen.yaml": "environments:\n  dev: [../../etc/passwd]\n"}
    ),
    "overlay-name-absolute": Case(
        {"kgen.yaml": "environments:\n  dev: [/etc/passwd]\n"}
    ),
    "output-outside-project": Case(
        {"kgen.yaml": "output: ../outside\nenvironments:\n  dev: [v1]\n"}
    ),
    "output-absolute": Case(
        {"kgen.yaml": "output: /tmp/kgen\nenvironments:\n  dev: [v1]\n"}
    ),
    "jobs-folder-outside-project": Case(
        {"kgen.yaml": "jobs: ../..\nenvironments:\n  dev: [v1]\n"}
    ),
    "crd-outside-project": Case(
        {"kgen.yaml": f"crds: [{OUTSIDE_FILE}]\nenvironments:\n  dev: [v1]\n"}
    ),
    "output-root-is-a-link": Case(
        {"manifests": Link(OUTSIDE_DIR)},
        args=("build",),
        about="kgen writes real folders",
    ),
    # --- overlays
    "overlay-is-a-list": Case({"overlays/v1.yaml": "- target: v1\n"}),
    "overlay-patch-is-a-string": Case({"overlays/v1.yaml": "target: v1\npatch: yes\n"}),
    "overlay-link-out-of-project": Case({"overlays/v1.yaml": Link(OUTSIDE_FILE)}),
    "overlay-targets-missing-job": Case(
        {"overlays/v1.yaml": "target: v1\nmatch: {names: [no-such-job]}\n"},
        args=("validate", "--strict"),
    ),
    "overlay-deletes-required-field": Case(
        {"overlays/v1.yaml": "target: v1\npatch: {image: null}\n"}
    ),
}


def _all_cases() -> dict[str, Case]:
    cases: dict[str, Case] = {}
    for group in (
        _FIRST,
        cases_input.CASES,
        cases_output.CASES,
        cases_values.CASES,
        cases_attack.CASES,
        cases_secrets.CASES,
        cases_targets.CASES,
        cases_adoption.CASES,
        cases_pods.CASES,
        cases_kinds.CASES,
        cases_patches.CASES,
        cases_policy.CASES,
        cases_trainer.CASES,
        cases_cel.CASES,
        cases_import_left.CASES,
        cases_edit.CASES,
        cases_rules.CASES,
        cases_attack5.CASES,
        cases_attack7.CASES,
        cases_attack8.CASES,
        cases_attack9.CASES,
        cases_team_files.CASES,
    ):
        clash = cases.keys() & group.keys()
        assert not clash, f"hostile cases named twice: {sorted(clash)}"
        cases |= group
    return cases


CASES = _all_cases()
