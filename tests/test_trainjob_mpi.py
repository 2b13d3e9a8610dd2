"""TrainJobs on an MPI runtime (issue 19): what `kgen explain` shows, which torch rules
stay quiet, and the policy kgen knows per runtime name.

Facts: kubeflow/trainer@v2.3.0
- manifests/base/runtimes/*.yaml: each installed runtime's mlPolicy (read below);
  deepspeed-distributed: mpi, OpenMPI, numProcPerNode 1, runLauncherAsNode, jobs
  `node` (sshd) then `launcher` (the trainer), both with a container `node`;
- pkg/runtime/framework/plugins/mpi/mpi.go: the `node` job gets max(numNodes - 1, 1)
  pods when the launcher is a node; the hostfile (`{host} slots={numProcPerNode}`, one
  line per node-job pod, then the launcher) is mounted on the launcher only, at
  /etc/mpi/hostfile, whose `node` container alone gets OMPI_MCA_orte_default_hostfile,
  OMPI_MCA_orte_keep_fqdn_hostnames=true, OMPI_MCA_orte_set_default_slots and
  OMPI_MCA_plm_rsh_args="-o ConnectionAttempts=10" (pkg/constants/constants.go);
- pkg/runtime/framework/plugins/jobset/jobset.go: hosts `{job}-{rjob}-0-{i}.{job}`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kgen.kinds.trainer import INSTALLED_RUNTIMES
from kgen.kinds.trainer.policy import INSTALLED_POLICIES
from tests.conftest import SHARED, RunKgen, write_tree

RUNTIMES = SHARED / "crds" / "trainer-runtimes-v2.3.0"


def _upstream_policies() -> dict[str, str]:
    found = {}
    for path in sorted(RUNTIMES.glob("*.yaml")):
        if "-v2." in path.name:  # an older release's copy of the same runtime
            continue
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        policy = doc["spec"]["mlPolicy"]
        (kind,) = [key for key in policy if key != "numNodes"]
        found[doc["metadata"]["name"]] = kind
    return found


def test_the_policy_table_is_the_upstream_runtimes_mlpolicy():
    upstream = _upstream_policies()
    assert upstream == INSTALLED_POLICIES
    assert set(upstream) == INSTALLED_RUNTIMES


def test_kubeflows_mpi_runtimes_have_the_layout_explain_shows():
    for name in ("deepspeed_distributed.yaml", "mlx_distributed.yaml"):
        spec = yaml.safe_load((RUNTIMES / name).read_text(encoding="utf-8"))["spec"]
        mpi = spec["mlPolicy"]["mpi"]
        assert mpi["mpiImplementation"] == "OpenMPI"
        assert mpi["runLauncherAsNode"] is True
        jobs = spec["template"]["spec"]["replicatedJobs"]
        assert [j["name"] for j in jobs] == ["node", "launcher"]
        for job in jobs:
            containers = job["template"]["spec"]["template"]["spec"]["containers"]
            assert [c["name"] for c in containers] == ["node"]
        step = jobs[1]["template"]["metadata"]["labels"]
        assert step == {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}


_PROJECT = {
    "kgen.yaml": """
        environments:
          ai:
            overlays: [trainer]
            namespace: ml
        lint:
          ignore:
            resources-missing: the specs are minimal
    """,
    "overlays/trainer.yaml": "target: trainer-v2.3\n",
}
_DS = """
    framework: pytorch
    image: registry.example.com/ds:1.0
    command: [deepspeed, --hostfile, /etc/mpi/hostfile, train.py]
    resources: {gpu: 4}
    roles:
      master: {replicas: 1}
      worker: {replicas: 2}
    trainJob:
      runtimeRef: {name: deepspeed-distributed}
"""


def _project(tmp_path: Path, job: str, **extra: str) -> Path:
    return write_tree(tmp_path, {**_PROJECT, "jobs/ds.yaml": job, **extra})


def test_explain_shows_the_hostfile_launcher_and_ompi_env(
    tmp_path: Path, run_kgen: RunKgen
):
    result = run_kgen("explain", "ds", "--env", "ai", cwd=_project(tmp_path, _DS))
    assert result.code == 0, result
    contract = result.out.split("\n\n")[2]
    assert contract == (
        "runtime deepspeed-distributed: mlPolicy mpi (OpenMPI, the launcher is a node)."
        " The launcher runs the trainer's command (mpirun or deepspeed over ssh);"
        " torchrun's PET_* variables are not set.\n"
        "set by the operator in each pod (container node):\n"
        "  ds-node-0-0\n"
        "    (nothing: a node runs the runtime's sshd; mpirun on the launcher starts its processes)\n"
        "  ds-node-0-1\n"
        "    (nothing: a node runs the runtime's sshd; mpirun on the launcher starts its processes)\n"
        "  ds-launcher-0-0\n"
        "    OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile\n"
        "    OMPI_MCA_orte_keep_fqdn_hostnames=true\n"
        "    OMPI_MCA_orte_set_default_slots=4\n"
        "    OMPI_MCA_plm_rsh_args=-o ConnectionAttempts=10\n"
        "    file /etc/mpi/hostfile:\n"
        "      ds-node-0-0.ds slots=4\n"
        "      ds-node-0-1.ds slots=4\n"
        "      ds-launcher-0-0.ds slots=4"
    )
    assert "PET_" not in contract.replace("PET_* variables are not set", "")


def test_a_thousand_nodes_stay_short_in_the_hostfile(tmp_path: Path, run_kgen: RunKgen):
    job = _DS.replace("worker: {replicas: 2}", "worker: {replicas: 999}")
    result = run_kgen("explain", "ds", "--env", "ai", cwd=_project(tmp_path, job))
    assert result.code == 0, result
    assert "      # ... 991 more lines like these\n" in result.out
    assert "      ds-node-0-998.ds slots=4\n" in result.out
    assert "ds-node-0-999" not in result.out
    assert result.out.count(" slots=4\n") == 9


def test_no_torchrun_warning_and_no_reserved_pet_on_an_mpi_runtime(
    tmp_path: Path, run_kgen: RunKgen
):
    job = _DS + "    env: [{name: PET_NNODES, value: '3'}]\n"
    result = run_kgen("validate", cwd=_project(tmp_path, job))
    assert result.code == 0, result
    assert "trainjob-needs-torchrun" not in result.out + result.err
    assert "trainjob-reserved-env" not in result.out + result.err


def test_the_torch_runtime_still_warns_without_torchrun(
    tmp_path: Path, run_kgen: RunKgen
):
    job = _DS.replace("{name: deepspeed-distributed}", "{name: torch-distributed}")
    result = run_kgen("validate", cwd=_project(tmp_path, job))
    assert "jobs/ds.yaml:3:1: warning: " in result.err, result
    assert "(trainjob-needs-torchrun)" in result.err


def test_an_unknown_runtime_says_so_and_a_declared_policy_is_shown(
    tmp_path: Path, run_kgen: RunKgen
):
    job = _DS.replace(
        "{name: deepspeed-distributed}", "{name: team-mpi, kind: TrainingRuntime}"
    )
    root = _project(tmp_path, job)
    result = run_kgen("explain", "ds", "--env", "ai", cwd=root)
    assert result.code == 0, result
    assert (
        "  every pod\n"
        "    (nothing: kgen does not know the mlPolicy of the runtime team-mpi"
        " (TrainingRuntime); declare it in trainJob.runtimePolicy (torch or mpi))\n"
    ) in result.out
    assert "trainjob-needs-torchrun" not in result.err
    declared = job + "      runtimePolicy: mpi\n"
    (root / "jobs/ds.yaml").write_text(declared, encoding="utf-8")
    result = run_kgen("explain", "ds", "--env", "ai", cwd=root)
    assert "mlPolicy mpi as trainJob.runtimePolicy declares" in result.out, result
    assert "      ds-launcher-0-0.ds slots=4\n" in result.out


def test_explain_offers_the_runtime_a_misspelled_one_is_a_slip_of(
    tmp_path: Path, run_kgen: RunKgen
):
    # As trainjob-runtime-misspelled does at validate; explain shows no warning.
    job = _DS.replace("{name: deepspeed-distributed}", "{name: deepspeed-distributd}")
    result = run_kgen("explain", "ds", "--env", "ai", cwd=_project(tmp_path, job))
    assert result.code == 0, result
    assert (
        "  every pod\n"
        "    (nothing: kgen does not know the mlPolicy of the runtime"
        " deepspeed-distributd (ClusterTrainingRuntime): did you mean"
        " 'deepspeed-distributed'? (a runtime of your own by this name: declare it in"
        " trainJob.runtimePolicy, torch or mpi))\n"
    ) in result.out
    # A name of the team's own is not taken for a slip.
    own = _DS.replace("{name: deepspeed-distributed}", "{name: ray-distributed}")
    result = run_kgen("explain", "ds", "--env", "ai", cwd=_project(tmp_path, own))
    assert "did you mean" not in result.out, result


def test_a_policy_that_contradicts_a_known_runtime_is_an_error(
    tmp_path: Path, run_kgen: RunKgen
):
    job = _DS + "      runtimePolicy: torch\n"
    result = run_kgen("validate", cwd=_project(tmp_path, job))
    assert result.code == 1, result
    assert (
        "jobs/ds.yaml:10:18: error: runtimePolicy torch contradicts the runtime"
        " deepspeed-distributed, whose mlPolicy is mpi (trainjob-runtime-policy)"
    ) in result.err


def test_the_launchers_hostname_must_fit(tmp_path: Path, run_kgen: RunKgen):
    # 51 characters: `-node-0-2` fits in 63, `-launcher-0-0` (64) does not.
    job = "name: " + "d" * 51 + "\n" + _DS.lstrip("\n").replace("    ", "", 1)
    job = "\n".join(line.removeprefix("    ") for line in job.splitlines())
    result = run_kgen("validate", cwd=_project(tmp_path, job + "\n"))
    assert result.code == 1, result
    assert (
        "jobs/ds.yaml:1:7: error: job name is too long: the MPI runtime's launcher"
        in result.err
    )
    assert "(64 characters, limit 63)" in result.err
    assert "shorten the name to at most 50 characters" in result.err


@pytest.mark.parametrize("target", ["trainer-v2.1", "trainer-v2.3"])
def test_the_pod_override_reaches_the_launcher_too(
    tmp_path: Path, run_kgen: RunKgen, target: str
):
    job = _DS + "    nodeSelector: {pool: gpu}\n"
    root = _project(tmp_path, job, **{"overlays/trainer.yaml": f"target: {target}\n"})
    result = run_kgen("build", cwd=root)
    assert result.code == 0, result
    text = (root / "manifests/ai/ds.trainjob.yaml").read_text(encoding="utf-8")
    spec: dict[str, Any] = yaml.safe_load(text.split("---\n", 1)[1])["spec"]
    if target == "trainer-v2.1":
        (override,) = spec["podTemplateOverrides"]
        assert override["targetJobs"] == [{"name": "node"}, {"name": "launcher"}]
        assert override["spec"]["nodeSelector"] == {"pool": "gpu"}
        return
    (patch,) = spec["runtimePatches"]
    jobs = patch["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"]
    assert [j["name"] for j in jobs] == ["node", "launcher"]
    for j in jobs:
        assert j["template"]["spec"]["template"]["spec"]["nodeSelector"] == {
            "pool": "gpu"
        }
