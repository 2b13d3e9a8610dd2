"""Release targets: each emits exactly the fields its release's CRD has (the "arrived in"
facts of kubeflow-api.md §1, read from manifests/base/crds at each training-operator
tag), names the release in an error about a field it lacks, and `v1` stays the 1.7+ line."""

from __future__ import annotations

from typing import Any

import pytest

from kgen.errors import Problem
from kgen.kinds import kind_for
from kgen.kinds.targets import ARRIVED, TARGETS, arrived_in, target_of_manifest
from kgen.render.base import Environment
from kgen.render.job import render_job
from kgen.spec.job import JobSpec

RELEASES = [f"training-operator-1.{minor}" for minor in range(3, 10)]


def _spec(framework: str = "pytorch", **extra: Any) -> JobSpec:
    roles = (
        {"master": {"replicas": 1}, "worker": {"replicas": 2}}
        if framework == "pytorch"
        else {"worker": {"replicas": 2}}
    )
    data = {"name": "j", "framework": framework, "image": "x:1", "roles": roles}
    return kind_for(framework).model().model_validate(data | extra)


def _render(spec: JobSpec, target: str) -> tuple[dict[str, Any], list[Problem]]:
    manifests, problems = render_job(spec, Environment("e", TARGETS[target], "ns"))
    return manifests[0].body, problems


def _minor(target: str) -> int:
    return int(target.rsplit(".", 1)[1])


@pytest.mark.parametrize("target", RELEASES)
def test_suspend_and_nproc_per_node_only_from_17(target: str):
    # Neither is in the 1.6 CRDs (kubeflow/training-operator@v1.6.0); both from 1.7.
    body, problems = _render(_spec(), target)
    assert problems == []
    current = _minor(target) >= 7
    assert ("suspend" in body["spec"]["runPolicy"]) is current
    assert ("nprocPerNode" in body["spec"]) is current


@pytest.mark.parametrize("target", RELEASES)
def test_nproc_per_node_before_17_names_the_release(target: str):
    _, problems = _render(_spec(nprocPerNode="2"), target)
    if _minor(target) >= 7:
        assert problems == []
        return
    (problem,) = problems
    assert problem.message == (
        f"nprocPerNode cannot be expressed for training-operator 1.{_minor(target)}"
        " (it arrived in 1.7)"
    )
    assert problem.hint == (
        "remove it for this environment in an overlay (`nprocPerNode: null`)"
        " or use target training-operator-1.7 or later"
    )


@pytest.mark.parametrize("target", RELEASES)
def test_elastic_policy_from_14(target: str):
    spec = _spec(
        roles={"worker": {"replicas": 2}},
        elasticPolicy={"minReplicas": 1, "maxReplicas": 3},
    )
    body, problems = _render(spec, target)
    if _minor(target) >= 4:
        assert problems == [] and body["spec"]["elasticPolicy"]["maxReplicas"] == 3
    else:
        assert [p.code for p in problems] == [
            "target-unsupported-field",
            "target-needs-master",
        ]


@pytest.mark.parametrize("target", RELEASES)
def test_schedule_timeout_from_16(target: str):
    spec = _spec(runPolicy={"schedulingPolicy": {"scheduleTimeoutSeconds": 60}})
    body, problems = _render(spec, target)
    scheduling = body["spec"]["runPolicy"]["schedulingPolicy"]
    if _minor(target) >= 6:
        assert problems == [] and scheduling == {"scheduleTimeoutSeconds": 60}
    else:
        (problem,) = problems
        assert problem.path == (
            "runPolicy",
            "schedulingPolicy",
            "scheduleTimeoutSeconds",
        )
        assert problem.hint is not None and (
            "`runPolicy: {schedulingPolicy: {scheduleTimeoutSeconds: null}}`"
            in problem.hint
        )


@pytest.mark.parametrize("target", RELEASES)
def test_tf_clean_pod_policy_default_changed_in_16(target: str):
    # kubeflow/training-operator#1754, shipped in 1.6.0: None; Running before.
    body, _ = _render(_spec("tensorflow"), target)
    expected = "None" if _minor(target) >= 6 else "Running"
    assert body["spec"]["runPolicy"]["cleanPodPolicy"] == expected


@pytest.mark.parametrize("framework", ["pytorch", "tensorflow"])
@pytest.mark.parametrize("target", ["training-operator-1.7", "training-operator-1.9"])
def test_v1_is_the_17_and_later_line(framework: str, target: str):
    spec = _spec(framework)
    assert _render(spec, "v1") == _render(spec, target)
    assert TARGETS["v1"].description.endswith("training-operator 1.7 and later")


def test_the_arrival_table():
    assert arrived_in("nprocPerNode") == "1.7"
    assert arrived_in("runPolicy.suspend") == "1.7"
    assert arrived_in("runPolicy.managedBy") == "1.9"
    assert ARRIVED["kind:JAXJob"] == (1, 9)
    assert not TARGETS["training-operator-1.8"].has("runPolicy.managedBy")
    assert TARGETS["training-operator-1.9"].has("runPolicy.managedBy")
    assert not TARGETS["v1-legacy"].has("runPolicy.suspend")


def test_import_reads_the_release_from_the_object():
    assert (
        target_of_manifest("kubeflow.org/v1", {"cleanPodPolicy": "All"}) == "v1-legacy"
    )
    assert target_of_manifest("kubeflow.org/v1", {}) == "v1"
    suspended: dict[str, object] = {"runPolicy": {"suspend": False}}
    assert target_of_manifest("kubeflow.org/v1", suspended) == "v1"
    old: dict[str, object] = {"runPolicy": {"cleanPodPolicy": "None"}}
    assert target_of_manifest("kubeflow.org/v1", old) == "training-operator-1.6"
    assert target_of_manifest("kubeflow.org/v1beta1", {}) == "v1beta1"


def test_messages_name_an_unbroken_run_of_releases_as_a_range():
    from kgen.kinds.target_names import named_targets

    assert (
        named_targets(
            {f"training-operator-1.{m}" for m in range(4, 10)} | {"v1", "mpi-operator"}
        )
        == "mpi-operator, training-operator-1.4 to training-operator-1.9, v1"
    )
    # A gap, or fewer than three, is listed release by release.
    assert named_targets(
        {"training-operator-1.3", "training-operator-1.5", "training-operator-1.6"}
    ) == ("training-operator-1.3, training-operator-1.5, training-operator-1.6")
    assert (
        named_targets({"trainer-v2.2", "trainer-v2.3"}) == "trainer-v2.2, trainer-v2.3"
    )
