"""What each command imports, in a fresh interpreter as `kgen` starts.

Start-up is a benchmark target (docs/performance.md): a module imported at the top for
a rare case costs every run, and no other test notices. These tests name modules,
never times: a light command that starts importing a heavy library fails here.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kgen import __version__
from kgen.commands import scope
from kgen.resources import read
from tests.conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
from generate import edit_spec, generate

# Libraries that only some runs need: the spec models (pydantic), YAML with positions
# (ruamel), emitting YAML (PyYAML), checking rendered objects (jsonschema, its compiled
# twin, kubernetes-validate), workers, and what pydantic's plugin lookup costs.
SPEC_MODELS = "pydantic.main"
POSITIONS = "ruamel.yaml"
EMITTER = "yaml"
OUTPUT_CHECKS = ("jsonschema", "jsonschema_rs", "kubernetes_validate")
CEL = "kgen.check.cel_runtime"
WORKERS = "multiprocessing"
METADATA = "importlib.metadata"
JOB_MODELS = "kgen.kinds.pytorch.spec"
RENDERERS = "kgen.render.job"
# TrainJob's models (a PyTorch job on the Kubeflow Trainer targets), which extend the
# PyTorchJob's: a project that renders no TrainJob never builds them.
TRAINJOB_MODELS = "kgen.kinds.trainer.spec"
# The full YAML loader, which only a file the fast path declines needs.
FULL_LOADER = "kgen.load.construct"
# The checks of user CRDs (kgen.yaml `crds:`, `--crd`).
CRD_CHECKS = ("kgen.check.crds", "kgen.check.crd_cost", "kgen.check.cel_crds")


def imported(*args: str, cwd: Path) -> tuple[int, set[str]]:
    """The exit code of `kgen ARGS` run as the command runs, and every module loaded."""
    script = (
        "import json, sys\n"
        f"sys.argv = ['kgen', *{list(args)!r}]\n"
        "from kgen.__main__ import main\n"
        "code = main()\n"
        "sys.stderr.write('\\n' + json.dumps([code, sorted(sys.modules)]))\n"
    )
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("PYDANTIC_DISABLE_PLUGINS", None)
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    code, modules = json.loads(done.stderr.splitlines()[-1])
    return code, set(modules)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three jobs, no CRDs, built once: the tree and the cache are up to date."""
    root = tmp_path_factory.mktemp("startup") / "project"
    generate(root, 3)
    code, _ = imported("build", cwd=root)
    assert code == 0
    return root


def test_help_loads_no_library_but_click(tmp_path: Path):
    code, modules = imported("--help", cwd=tmp_path)
    assert code == 0
    heavy = {
        SPEC_MODELS,
        POSITIONS,
        EMITTER,
        *OUTPUT_CHECKS,
        WORKERS,
        METADATA,
        "kgen.load.project",
        "kgen.pipeline.run",
        "kgen.rules.catalog",
    }
    assert "click" in modules
    assert heavy & modules == set()


def test_build_check_from_the_cache_renders_and_checks_nothing(generated: Path):
    code, modules = imported("build", "--check", cwd=generated)
    assert code == 0
    heavy = {JOB_MODELS, RENDERERS, CEL, EMITTER, *OUTPUT_CHECKS, WORKERS, METADATA}
    assert heavy & modules == set()
    # kgen.yaml and the overlays are still read and validated.
    assert {SPEC_MODELS, POSITIONS} <= modules


def test_a_replayed_build_check_loads_no_models_and_parses_nothing(generated: Path):
    # The first check finds the tree up to date and records it; the second, with
    # nothing changed, is replayed (kgen.commands.up_to_date) before anything heavy
    # loads: not even kgen.yaml's models or the YAML parser.
    assert imported("build", "--check", cwd=generated)[0] == 0
    code, modules = imported("build", "--check", cwd=generated)
    assert code == 0
    heavy = {SPEC_MODELS, POSITIONS, JOB_MODELS, RENDERERS, CEL, EMITTER}
    heavy |= {*OUTPUT_CHECKS, WORKERS, METADATA, "kgen.load.project"}
    # Nor the render cache and the job kinds its facts name (10 ms), nor click and
    # the command table: a plain `build --check` is parsed by kgen.cli_quick.
    heavy |= {"kgen.pipeline.cache", "kgen.kinds"}
    heavy |= {"click", "kgen.cli", "kgen.cli_tools", "kgen.complete"}
    assert heavy & modules == set()


def test_a_build_after_one_spec_changed_loads_what_it_renders_with(generated: Path):
    spec = generated / "jobs" / "job-00001.yaml"
    before = spec.read_bytes()
    edit_spec(generated, 1, 78)
    try:
        code, modules = imported("build", cwd=generated)
    finally:
        spec.write_bytes(before)
        assert imported("build", cwd=generated)[0] == 0  # the tree as it was
    assert code == 0
    # It validates, renders, checks and writes that job.
    assert {SPEC_MODELS, POSITIONS, JOB_MODELS, RENDERERS, "jsonschema_rs"} <= modules
    # Only its own kind's models; only the fast path of the loader (plain files).
    assert {TRAINJOB_MODELS, FULL_LOADER} & modules == set()
    # A plain `build` is parsed without click (kgen.cli_quick); a project without a
    # resources/ folder loads none of its checks; no workers for four renders.
    assert {"click", "kgen.cli", "kgen.cli_tools", "kgen.complete"} & modules == set()
    assert {
        "kgen.resources",
        "kgen.resources.emit",
        WORKERS,
        METADATA,
    } & modules == set()
    # Jobs without patches: nothing that applies patches or records what they wrote.
    assert {"kgen.patch.apply", "kgen.patch.marks", "jsonpatch"} & modules == set()


def test_validate_of_one_changed_spec_loads_what_it_checks_with(generated: Path):
    spec = generated / "jobs" / "job-00001.yaml"
    before = spec.read_bytes()
    edited = edit_spec(generated, 1, 77)
    try:
        code, modules = imported("validate", str(edited), cwd=generated)
    finally:
        spec.write_bytes(before)  # the other tests find the project up to date
    assert code == 0
    # It validates, renders and checks that job: its model, the renderer, the compiled
    # check and the CEL rules of its kind's envelope.
    assert {SPEC_MODELS, POSITIONS, JOB_MODELS, RENDERERS, CEL, "jsonschema_rs"} <= (
        modules
    )
    # Nothing it writes, no error to word, no workers for four renders, pydantic is
    # not left looking for plugins, and a plain `validate PATHS` parses its command
    # line without click (kgen.cli_quick).
    assert {EMITTER, "jsonschema", "kubernetes_validate", WORKERS, METADATA} & (
        modules
    ) == set()
    # A PyTorchJob is not a TrainJob: telling them apart builds no TrainJob model
    # (kgen.kinds.kind_of). Plain files take the loader's fast path alone.
    assert {TRAINJOB_MODELS, FULL_LOADER} & modules == set()
    assert {"click", "kgen.cli", "kgen.cli_tools", "kgen.complete"} & modules == set()
    # A project without CRDs loads none of their checks.
    assert set(CRD_CHECKS) & modules == set()


SECRET = "apiVersion: v1\nkind: Secret\nmetadata: {name: token}\n"


def test_validate_of_a_job_reads_only_the_names_of_the_team_objects(tmp_path: Path):
    # A problem of an object in resources/ is reported at the object's file, out of
    # the scope of `kgen validate jobs/x.yaml` (kgen.commands.scope): such a run does
    # not check them (a twentieth of it), only reads their kinds and names, for the
    # job's objects that would be the same file (kgen.resources.clash). A path in
    # resources/ or kgen.yaml (everything) still checks them.
    assert scope.FOLDER == read.FOLDER
    root = tmp_path / "project"
    generate(root, 1)
    (root / "resources").mkdir()
    (root / "resources" / "token.yaml").write_text(SECRET)
    code, modules = imported("validate", "jobs/job-00000.yaml", cwd=root)
    assert code == 0
    assert "kgen.resources.load" not in modules
    for named in ("resources/token.yaml", "kgen.yaml"):
        code, modules = imported("validate", named, cwd=root)
        assert code == 1
        assert "kgen.resources.load" in modules


def test_the_records_every_run_makes_are_no_dataclasses():
    # A dataclass's methods are compiled from source text as its module is imported (a
    # frozen one of ten fields: 6 M instructions); kgen's made a twentieth of a one-spec
    # validate. The records every run makes are NamedTuples (or plain classes).
    from kgen.commands.options import Options
    from kgen.merge.layers import Layer
    from kgen.merge.provenance import Provenance
    from kgen.output.index import Index
    from kgen.output.safe_paths import Unread
    from kgen.output.scan import Scan
    from kgen.patch.context import Patching, PatchSource
    from kgen.pipeline.records import Render, RenderedJob, RunResult
    from kgen.pipeline.run import _Work
    from kgen.render.base import Environment, Manifest
    from kgen.render.roles import RoleSettings
    from kgen.render.volumes import LogSource
    from kgen.rules.context import RuleContext
    from kgen.rules.info import RuleInfo

    records: list[type] = [Options, _Work, RuleContext, RuleInfo, Environment, Layer]
    records += [Render, RenderedJob, LogSource, PatchSource, RoleSettings, Manifest]
    records += [Index, Unread, RunResult, Patching, Provenance, Scan]
    assert [r.__name__ for r in records if dataclasses.is_dataclass(r)] == []


def test_plugin_discovery_stays_on_where_asked_for(tmp_path: Path):
    # PYDANTIC_DISABLE_PLUGINS set to a plugin's name turns that plugin off, not the
    # lookup: kgen then leaves pydantic's loader alone.
    script = (
        "import os, sys\n"
        "os.environ['PYDANTIC_DISABLE_PLUGINS'] = 'some-plugin'\n"
        "sys.argv = ['kgen', 'validate']\n"
        "from kgen.__main__ import main\n"
        "main()\n"
        "from pydantic.plugin import _loader\n"
        "print(hasattr(_loader, 'PYDANTIC_ENTRY_POINT_GROUP'))\n"
    )
    (tmp_path / "kgen.yaml").write_text("environments: {dev: {overlays: []}}\n")
    (tmp_path / "jobs").mkdir()
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.stdout == "True\n", done.stderr


def test_importing_the_models_builds_no_validator():
    # Each model builds its validator at its first use (defer_build, kgen.spec.base): a
    # default written as a model instance, `Field(Resources())`, would build the
    # model's there and then, in every run that imports it (`model_construct()` makes
    # the same instance without).
    script = (
        "import json, sys\n"
        "from pydantic import BaseModel\n"
        "import kgen.spec.project, kgen.spec.job, kgen.reference.spec\n"
        "from kgen.kinds import ALL_KINDS\n"
        "models = [kind.model() for kind in ALL_KINDS]\n"
        "def every(cls):\n"
        "    for sub in cls.__subclasses__():\n"
        "        yield sub\n"
        "        yield from every(sub)\n"
        "found = {f'{m.__module__}.{m.__qualname__}': m.__pydantic_complete__\n"
        "         for m in every(BaseModel) if m.__module__.startswith('kgen.')}\n"
        "print(json.dumps(found))\n"
    )
    done = _python(script)
    found = json.loads(done.stdout)
    assert "kgen.spec.pod.Resources" in found and len(found) > 40
    assert [name for name, built in found.items() if built] == []


def test_preloading_a_kind_builds_what_its_renders_serialize():
    # A render serializes the resources and the run policy on their own (model_dump),
    # which builds their serializers at first use: in the parent, before workers fork
    # (kgen.kinds.base.Kind.preload), not once in each worker.
    script = (
        "from kgen.kinds import KINDS\n"
        "from kgen.spec.pod import ResourceAmounts, Resources\n"
        "from kgen.spec.policy import RunPolicy\n"
        "parts = (ResourceAmounts, Resources, RunPolicy)\n"
        "assert not any(m.__pydantic_complete__ for m in parts)\n"
        "KINDS['tensorflow'].preload()\n"
        "print(sorted(m.__name__ for m in parts if m.__pydantic_complete__))\n"
    )
    done = _python(script)
    assert done.stdout == "['ResourceAmounts', 'Resources', 'RunPolicy']\n"


def test_version_loads_neither_click_nor_typing():
    """`kgen --version` as the command runs it (kgen.__main__.run, with its standard
    output watched): answered with the interpreter's own modules, no click, no typing."""
    script = (
        "import atexit, json, sys\n"
        "sys.argv = ['kgen', '--version']\n"
        "atexit.register(lambda: sys.stderr.write(json.dumps(sorted(sys.modules))))\n"
        "from kgen.__main__ import run\n"
        "run()\n"
    )
    done = _python(script, check=False)
    assert (done.returncode, done.stdout) == (0, f"kgen, version {__version__}\n")
    modules = set(json.loads(done.stderr))
    assert "kgen.cli_stdout" in modules
    assert not modules & {"click", "typing", "pydantic", "kgen.cli", "kgen.cli_quick"}


def _python(script: str, *, check: bool = True) -> subprocess.CompletedProcess[str]:
    """`script` run by a fresh interpreter, its output as text."""
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=check
    )


def test_an_import_without_a_crd_loads_no_crd_checks(tmp_path: Path):
    """Import looks for CustomResourceDefinitions among its inputs (an object of a
    CRD's kind goes to resources/ with its CRD): the CRD checks, with CEL, a tenth of a
    second, load only when there is one."""
    (tmp_path / "job.yaml").write_text(
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: t}\n"
        "spec:\n  nprocPerNode: '1'\n  pytorchReplicaSpecs:\n    Master:\n"
        "      template: {spec: {containers: [{name: pytorch, image: 'r.io/t:1'}]}}\n"
    )
    code, modules = imported("import", "job.yaml", "--out", "p", cwd=tmp_path)
    assert code == 0
    assert set(CRD_CHECKS) & modules == set()
