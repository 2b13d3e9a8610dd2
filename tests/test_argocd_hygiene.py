"""`kgen argocd` owns its folder like `kgen build` owns the output folder: an index,
orphans removed, `--check` reports them; an explicit namespace for every environment;
names the API server accepts."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import RunKgen, write_tree

PROJECT = """
    argocd: {repoURL: "https://git.example.com/ml.git"%s}
    environments:
      dev: {namespace: ml-dev}
      prod: {namespace: ml-prod}
    lint: {ignore: {resources-missing: minimal specs}}
"""
JOB = """
    framework: tensorflow
    image: x:1
    roles: {worker: {replicas: 2}}
"""


def _project(root: Path, argocd: str = "", environments: str = "") -> None:
    text = PROJECT % argocd
    if environments:
        text = text.replace("      prod: {namespace: ml-prod}\n", environments)
    write_tree(root, {"kgen.yaml": text, "jobs/train.yaml": JOB})


def test_a_removed_environment_loses_its_application(tmp_path: Path, run_kgen):
    _project(tmp_path)
    assert run_kgen("argocd", cwd=tmp_path).code == 0
    assert (tmp_path / "argocd/prod.application.yaml").is_file()
    _project(tmp_path, environments="\n")
    check = run_kgen("argocd", "--check", cwd=tmp_path)
    assert (check.code, check.err) == (
        1,
        "modified: argocd/.kgen-index\n"
        "stale: argocd/prod.application.yaml\n"
        "kgen: argocd/ is out of date; run `kgen argocd`\n",
    )
    written = run_kgen("argocd", cwd=tmp_path)
    assert (written.code, written.err) == (
        0,
        "kgen: argocd/: 1 file written, 1 removed, 4 unchanged\n",
    )
    assert not (tmp_path / "argocd/prod.application.yaml").exists()
    assert run_kgen("argocd", "--check", cwd=tmp_path).code == 0


def test_a_mode_change_removes_the_applications(tmp_path: Path, run_kgen):
    _project(tmp_path)
    run_kgen("argocd", cwd=tmp_path)
    _project(tmp_path, argocd=", mode: applicationset")
    assert run_kgen("argocd", cwd=tmp_path).code == 0
    assert sorted(p.name for p in (tmp_path / "argocd").glob("*.yaml")) == [
        "applicationset.yaml",
        "cmp-plugin.yaml",
    ]


def test_a_file_kgen_did_not_write_is_kept_and_never_overwritten(tmp_path, run_kgen):
    _project(tmp_path)
    (tmp_path / "argocd").mkdir()
    (tmp_path / "argocd/notes.md").write_text("mine\n")
    (tmp_path / "argocd/dev.application.yaml").write_text("mine\n")
    result = run_kgen("argocd", cwd=tmp_path)
    assert result.code == 1
    assert (
        "refusing to overwrite argocd/dev.application.yaml: kgen did not write it"
        in (result.err)
    )
    assert (tmp_path / "argocd/dev.application.yaml").read_text() == "mine\n"
    (tmp_path / "argocd/dev.application.yaml").unlink()
    assert run_kgen("argocd", cwd=tmp_path).code == 0
    assert (tmp_path / "argocd/notes.md").read_text() == "mine\n"


def test_an_environment_without_a_namespace_is_an_error(tmp_path, run_kgen):
    _project(tmp_path, environments="      prod: [ ]\n")
    result = run_kgen("argocd", cwd=tmp_path)
    assert (result.code, result.err) == (
        1,
        "kgen.yaml:4:3: error: environment 'prod' has no namespace to deploy into"
        " (gitops-destination)\n"
        "    hint: set its `namespace`, or argocd.destinationNamespaces:"
        " {prod: <namespace>} in kgen.yaml\n"
        "kgen: 1 error in 1 file\n",
    )
    assert not (tmp_path / "argocd").exists()


def test_an_explicit_destination_namespace(tmp_path: Path, run_kgen: RunKgen):
    _project(
        tmp_path,
        argocd=", destinationNamespaces: {prod: kubeflow}",
        environments="      prod: [ ]\n",
    )
    assert run_kgen("argocd", cwd=tmp_path).code == 0
    text = (tmp_path / "argocd/prod.application.yaml").read_text()
    assert "    namespace: kubeflow\n" in text
    assert "CreateNamespace=false" in text


def test_a_name_the_api_server_rejects(tmp_path: Path, run_kgen: RunKgen):
    _project(tmp_path, argocd=", namePrefix: 'UPPER_!'")
    result = run_kgen("argocd", cwd=tmp_path)
    assert (result.code, result.err) == (
        1,
        "kgen.yaml:1:65: error: the Application name 'UPPER_!dev' is not a valid"
        " object name (gitops-destination)\n"
        "    hint: use lowercase letters, digits, '-' and '.' in the prefix, at most 253"
        " characters with the environment name\n"
        "kgen: 1 error in 1 file\n",
    )


def test_a_bad_namespace_or_server_is_located(tmp_path: Path, run_kgen: RunKgen):
    _project(tmp_path, argocd=", namespace: 'Bad NS', server: 'not a url'")
    result = run_kgen("argocd", cwd=tmp_path)
    assert result.code == 1
    assert "kgen.yaml:1:64: error: 'Bad NS' is not a valid name" in result.err
    assert "kgen.yaml:1:82: error: 'not a url'" in result.err
    assert "'not a url' is not a cluster URL (https://host[:port])" in result.err
