"""The project `kgen import` writes is complete like the one `kgen init` writes: the
schemas its files' `# yaml-language-server` comments name are there (what `kgen schema`
writes, byte for byte), and so are .gitignore's lines for kgen's lock and staging."""

from __future__ import annotations

import json
import os
import re
from fnmatch import fnmatch
from pathlib import Path

import jsonschema
import yaml

from kgen.scaffold.templates import GITIGNORE_LINES
from tests.conftest import RunKgen, write_tree

JOB = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: train, namespace: NS}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
            - name: pytorch
              image: IMAGE
"""

CLAIM = """\
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: NS}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
"""

HEADER = re.compile(r"# yaml-language-server: \$schema=(\S+)\n")


def _imported(tmp_path: Path, run_kgen: RunKgen) -> Path:
    """A job in two environments (a spec, an overlay each) and a claim beside it."""
    write_tree(
        tmp_path,
        {
            "dev/job.yaml": JOB.replace("NS", "ml-dev").replace("IMAGE", "t:1") + CLAIM,
            "prod/job.yaml": JOB.replace("NS", "ml").replace("IMAGE", "t:2"),
        },
    )
    result = run_kgen(
        "import", "dev/job.yaml", "prod/job.yaml", "--out", "p", cwd=tmp_path
    )
    assert (result.code, result.err) == (
        0,
        "kgen: imported 1 job and 1 object beside them (resources/) into p/"
        " (57 files); run `kgen build -C p`\n",
    )
    return tmp_path / "p"


def test_every_schema_an_imported_file_names_is_there(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    project = _imported(tmp_path, run_kgen)
    named = {}
    for path in sorted(project.rglob("*.yaml")):
        if path.relative_to(project).parts[0] == "resources":
            continue  # Kubernetes objects: no kgen schema names them
        found = HEADER.match(path.read_text())
        assert found, path
        named[path.relative_to(project).as_posix()] = found[1]
    assert named == {
        "kgen.yaml": "schemas/kgen-project.schema.json",
        "jobs/train.yaml": "../schemas/kgen-job.schema.json",
        "overlays/dev-train.yaml": "../schemas/kgen-overlay.schema.json",
        "overlays/prod-train.yaml": "../schemas/kgen-overlay.schema.json",
        "overlays/v1.yaml": "../schemas/kgen-overlay.schema.json",
    }
    for file, schema in named.items():
        # What an editor does with the comment: the file checks clean against it.
        body = json.loads(((project / file).parent / schema).read_bytes())
        jsonschema.Draft7Validator(body).validate(
            yaml.safe_load((project / file).read_text())
        )
    checked = run_kgen("schema", "--check", cwd=project)
    assert (checked.code, checked.out, checked.err) == (0, "", "")


def test_the_schemas_are_what_kgen_schema_writes(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    project = _imported(tmp_path, run_kgen)
    assert run_kgen("schema", "--out", "written", cwd=tmp_path).code == 0
    names = sorted(os.listdir(tmp_path / "written"))
    assert sorted(os.listdir(project / "schemas")) == names
    for name in names:
        assert (project / "schemas" / name).read_bytes() == (
            tmp_path / "written" / name
        ).read_bytes(), name


def test_kgen_build_leaves_nothing_git_would_list(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    """.gitignore names what kgen leaves beside the output root, as init's does."""
    project = _imported(tmp_path, run_kgen)
    assert (project / ".gitignore").read_text() == "\n".join(GITIGNORE_LINES) + "\n"
    assert run_kgen("build", cwd=project).code == 0
    left = sorted(
        set(os.listdir(project))
        - {
            ".gitignore",
            "kgen.yaml",
            "jobs",
            "manifests",
            "overlays",
            "resources",
            "schemas",
        }
    )
    assert left == [".manifests.kgen-lock"]
    patterns = [line for line in GITIGNORE_LINES if not line.startswith("#")]
    assert all(any(fnmatch(n, p) for p in patterns) for n in left), patterns
