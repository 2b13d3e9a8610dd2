"""A quantity a patch writes is held to the API server's grammar
(kgen.patch.quantities), at the patch value."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import RunKgen
from tests.test_patches import MASTER, _project, _validate


def test_a_quantity_a_patch_writes_is_one_by_the_api_servers_grammar(
    tmp_path: Path, run_kgen: RunKgen
):
    # The core definitions take a Quantity as any string; the API server parses it
    # (resource.ParseQuantity) and refuses the job. The spec's own are checked.
    patches = (
        "  - ops:\n"
        f"      - {{op: add, path: {MASTER}/containers/0/resources,"
        " value: {limits: {memory: 4GB, cpu: ' 2 '}}}\n"
        f"      - {{op: add, path: {MASTER}/volumes,"
        " value: [{name: shm, emptyDir: {sizeLimit: 1 Gi}}]}\n"
    )
    code, output = _validate(run_kgen, _project(tmp_path, patches))
    assert code == 1
    assert output.splitlines()[:2] == [
        "jobs/train.yaml:8:121: error: the rendered PyTorchJob 'train' is invalid at"
        " spec.pytorchReplicaSpecs.Master.template.spec.containers[0].resources.limits"
        ".memory: '4GB' is not a Kubernetes quantity (output-schema)",
        "jobs/train.yaml:9:123: error: the rendered PyTorchJob 'train' is invalid at"
        " spec.pytorchReplicaSpecs.Master.template.spec.volumes[0].emptyDir.sizeLimit:"
        " '1 Gi' is not a Kubernetes quantity (output-schema)",
    ]
