"""A core definition's byte fields (`format: byte`) and quantities are held to what the
API server decodes: Go's encoding/json reads a []byte with base64.StdEncoding (padding
required, line breaks skipped, nothing else), and a Quantity with
resource.ParseQuantity. The located messages are the hostile cases
resources-configmap-binary-data-not-base64 and
resources-quantities-the-api-server-refuses."""

from __future__ import annotations

import base64
import binascii
from pathlib import Path

import pytest

from kgen.check.core import DEFAULT_KUBERNETES_VERSION
from kgen.check.core_formats import base64_problem, format_places
from tests.conftest import RunKgen, write_tree


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", None),
        ("aGk=", None),
        ("aGVsbG8h\naGk=\n", None),
        ("aGVsbG8g\r\nd29ybGQ=", None),
        ("aGk", "3 characters, not a multiple of 4 (pad the end with '=')"),
        ("aGk==", "5 characters, not a multiple of 4 (pad the end with '=')"),
        ("a===", "it ends in 3 '=': padding is one or two"),
        ("aG=kaGk=", "'=' at character 3 pads only the end"),
        ("aGk gaGk=", "character 4 is none of A-Z, a-z, 0-9, '+', '/' and '='"),
        ("aGk_", "character 4 is none of A-Z, a-z, 0-9, '+', '/' and '='"),
    ],
)
def test_base64_as_the_api_server_decodes_it(text: str, expected: str | None):
    assert base64_problem(text) == expected


@pytest.mark.parametrize("size", range(12))
def test_every_encoding_is_base64_and_its_cuts_are_not(size: int):
    encoded = base64.b64encode(bytes(range(200, 200 + size))).decode()
    assert base64_problem(encoded) is None
    for cut in range(1, min(len(encoded), 4)):
        shorter = encoded[:-cut]
        # Python's strict decoder agrees where the two read one grammar.
        with pytest.raises(binascii.Error):
            binascii.a2b_base64(shorter, strict_mode=True)
        assert base64_problem(shorter) is not None


def test_the_places_are_found_through_the_definitions():
    version = DEFAULT_KUBERNETES_VERSION

    def places(definition: str) -> tuple[tuple[tuple[str, ...], str], ...]:
        # Every object's metadata holds times (tests/test_core_times.py).
        found = format_places(definition, version)
        return tuple(p for p in found if p[1] not in ("time", "micro-time"))

    assert places("io.k8s.api.core.v1.ConfigMap") == ((("binaryData", "*"), "byte"),)
    assert places(
        "io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration"
    ) == ((("webhooks", "*", "clientConfig", "caBundle"), "byte"),)
    deployment = format_places("io.k8s.api.apps.v1.Deployment", version)
    containers = ("spec", "template", "spec", "containers", "*")
    assert ((*containers, "resources", "limits", "*"), "quantity") in deployment
    assert (("spec", "hard", "*"), "quantity") in format_places(
        "io.k8s.api.core.v1.ResourceQuota", version
    )
    assert places("io.k8s.api.core.v1.Service") == ()


def test_the_specs_own_core_objects_are_held_to_them(tmp_path: Path, run_kgen: RunKgen):
    # A sidecar's resources and a volume source are core objects the spec takes as
    # written: checked by core.check_object, which the formats follow.
    root = tmp_path / "project"
    write_tree(
        root,
        {
            "kgen.yaml": "environments:\n  dev: [v1]\n",
            "overlays/v1.yaml": "target: v1\n",
            "jobs/train.yaml": "framework: pytorch\n"
            "image: registry.example.com/train:1.0\n"
            "roles:\n  master: {replicas: 1}\n"
            "initContainers:\n"
            "  - {name: fetch, image: 'busybox:1.36', resources: {limits: {memory: 4GB}}}\n"
            "volumes:\n  - {name: shm, emptyDir: {sizeLimit: 1 Gi}}\n",
        },
    )
    result = run_kgen("validate", cwd=root)
    assert result.code == 1
    output = (result.out + result.err).splitlines()
    errors = [line for line in output if ": error: " in line]
    assert errors == [
        "jobs/train.yaml:6:71: error: invalid Container: resources.limits.memory:"
        " '4GB' is not a Kubernetes quantity (invalid-value)",
        "jobs/train.yaml:8:39: error: invalid EmptyDirVolumeSource: sizeLimit:"
        " '1 Gi' is not a Kubernetes quantity (invalid-value)",
    ]


def test_a_whole_float_where_an_integer_goes_is_refused_as_the_spec_refuses_one(
    tmp_path: Path, run_kgen: RunKgen
):
    # The spec's own fields refuse `terminationGracePeriodSeconds: 30.0` (pydantic,
    # wrong-type); its core objects went out as 8080.0 where the cluster holds 8080.
    # A quantity takes any number: `cpu: 2.0` is one.
    root = tmp_path / "project"
    write_tree(
        root,
        {
            "kgen.yaml": "environments:\n  dev: [v1]\n",
            "overlays/v1.yaml": "target: v1\n",
            "jobs/train.yaml": "framework: pytorch\n"
            "image: registry.example.com/train:1.0\n"
            "roles:\n  master: {replicas: 1}\n"
            "initContainers:\n"
            "  - name: fetch\n"
            "    image: busybox:1.36\n"
            "    ports: [{containerPort: 8080.0}]\n"
            "    resources: {limits: {cpu: 2.0, memory: 1Gi}}\n"
            "    readinessProbe: {tcpSocket: {port: 8080.0}}\n",
        },
    )
    result = run_kgen("validate", cwd=root)
    assert result.code == 1
    output = (result.out + result.err).splitlines()
    assert [line for line in output if ": error: " in line] == [
        "jobs/train.yaml:8:29: error: invalid Container: ports[0].containerPort:"
        " expected a whole number, got the number 8080.0 (wrong-type)",
        "jobs/train.yaml:10:40: error: invalid Container: readinessProbe.tcpSocket.port:"
        " expected a whole number, got the number 8080.0 (wrong-type)",
    ]
