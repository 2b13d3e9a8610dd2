"""A time field (metav1.Time and MicroTime, `format: date-time` in the core
definitions) is held to what the API server decodes: Time.UnmarshalJSON parses
time.RFC3339 (a date, 'T', a time, an optional fraction and a time zone), MicroTime's
RFC3339Micro takes exactly six digits of fraction, and null leaves either unset (what
`kubectl create --dry-run -o yaml` writes). Neither jsonschema nor jsonschema-rs checks
a format, so `creationTimestamp: yesterday` passed and the API server refused the object
at sync."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgen.check.core import DEFAULT_KUBERNETES_VERSION
from kgen.check.core_formats import format_places
from kgen.check.core_times import time_problem
from tests.conftest import RunKgen, write_tree
from tests.test_patches import _project, _validate


@pytest.mark.parametrize(
    "text",
    [
        "2026-01-02T03:04:05Z",
        "2026-01-02T03:04:05+01:00",
        "2026-01-02T03:04:05-23:59",
        "2026-01-02T03:04:05.5Z",
        "2026-01-02T03:04:05.123456789+05:30",
        "2024-02-29T23:59:59Z",
        "0000-01-01T00:00:00Z",
    ],
)
def test_rfc_3339_times_with_a_zone_are_times(text: str):
    assert time_problem(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("yesterday", "expected a date, 'T', a time and a time zone"),
        ("", "expected a date, 'T', a time and a time zone"),
        ("2026-01-02", "a date without a time"),
        ("2026-01-02T03:04:05", "no time zone (Z, or an offset such as +01:00)"),
        ("2026-01-02T03:04:05.5", "no time zone (Z, or an offset such as +01:00)"),
        ("2026-01-02 03:04:05Z", "expected a date, 'T', a time and a time zone"),
        ("2026-01-02t03:04:05z", "expected a date, 'T', a time and a time zone"),
        ("2026-01-02T03:04:05+0100", "expected a date, 'T', a time and a time zone"),
        ("2026-01-02T3:04:05Z", "expected a date, 'T', a time and a time zone"),
        ("2026-01-02T03:04:05,5Z", "expected a date, 'T', a time and a time zone"),
        (" 2026-01-02T03:04:05Z", "expected a date, 'T', a time and a time zone"),
        ("2026-13-02T03:04:05Z", "month 13 is out of range"),
        ("2026-00-02T03:04:05Z", "month 00 is out of range"),
        ("2026-02-29T03:04:05Z", "February 2026 has 28 days"),
        ("2026-04-31T03:04:05Z", "April 2026 has 30 days"),
        ("2026-01-00T03:04:05Z", "day 00 is out of range"),
        ("2026-01-02T24:00:00Z", "hour 24 is out of range"),
        ("2026-01-02T03:60:05Z", "minute 60 is out of range"),
        ("2026-01-02T23:59:60Z", "second 60 is out of range (no leap second)"),
        ("2026-01-02T03:04:05+24:00", "the offset +24:00 is out of range"),
        ("2026-01-02T03:04:05-01:60", "the offset -01:60 is out of range"),
        ("２０２６-01-02T03:04:05Z", "expected a date, 'T', a time and a time zone"),
    ],
)
def test_what_the_api_server_refuses_is_said(text: str, expected: str):
    assert time_problem(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-01-02T03:04:05.000000Z", None),
        ("2026-01-02T03:04:05.123456+01:00", None),
        ("2026-01-02T03:04:05Z", "six digits of fraction, not none"),
        ("2026-01-02T03:04:05.5Z", "six digits of fraction, not 1"),
        ("2026-01-02T03:04:05.1234567Z", "six digits of fraction, not 7"),
        ("2026-02-30T03:04:05.000000Z", "February 2026 has 28 days"),
    ],
)
def test_a_micro_time_has_six_digits_of_fraction(text: str, expected: str | None):
    assert time_problem(text, micro=True) == expected


def test_the_time_fields_are_found_through_the_definitions():
    version = DEFAULT_KUBERNETES_VERSION
    config = format_places("io.k8s.api.core.v1.ConfigMap", version)
    assert (("metadata", "creationTimestamp"), "time") in config
    assert (("metadata", "deletionTimestamp"), "time") in config
    assert (("metadata", "managedFields", "*", "time"), "time") in config
    event = format_places("io.k8s.api.events.v1.Event", version)
    assert (("eventTime",), "micro-time") in event
    assert (("deprecatedFirstTimestamp",), "time") in event
    lease = format_places("io.k8s.api.coordination.v1.Lease", version)
    assert (("spec", "renewTime"), "micro-time") in lease


_CONFIG = "apiVersion: v1\nkind: ConfigMap\ndata: {a: b}\nmetadata:\n  name: {name}\n"


def test_a_team_objects_times_are_what_the_api_server_reads(
    tmp_path: Path, run_kgen: RunKgen
):
    root = tmp_path / "project"
    write_tree(
        root,
        {
            "kgen.yaml": "environments:\n  dev: [v1]\n",
            "overlays/v1.yaml": "target: v1\n",
            "jobs/train.yaml": "framework: pytorch\n"
            "image: registry.example.com/train:1.0\n"
            "roles:\n  master: {replicas: 1}\n",
            "resources/dev/a.yaml": _CONFIG.replace("{name}", "a")
            + "  creationTimestamp: yesterday\n",
            # Unquoted, as a YAML 1.1 timestamp: read as the text it is.
            "resources/dev/b.yaml": _CONFIG.replace("{name}", "b")
            + "  creationTimestamp: 2026-01-02 03:04:05\n",
            "resources/dev/c.yaml": _CONFIG.replace("{name}", "c")
            + "  creationTimestamp: null\n",
            "resources/dev/d.yaml": _CONFIG.replace("{name}", "d")
            + "  creationTimestamp: 2026-01-02T03:04:05Z\n",
            "resources/dev/e.yaml": "apiVersion: events.k8s.io/v1\nkind: Event\n"
            "metadata: {name: e}\n"
            "eventTime: 2026-01-02T03:04:05Z\n"
            "reportingController: example.com/x\nreportingInstance: x\n"
            "action: Ran\nreason: Ran\n"
            "regarding: {kind: Pod, name: p}\n",
        },
    )
    result = run_kgen("validate", cwd=root)
    assert result.code == 1
    output = (result.out + result.err).splitlines()
    assert [line for line in output if ": error: " in line] == [
        "resources/dev/a.yaml:6:22: error: invalid ConfigMap:"
        " metadata.creationTimestamp: 'yesterday' is not an RFC 3339 date-time:"
        " expected a date, 'T', a time and a time zone (invalid-value)",
        "resources/dev/b.yaml:6:22: error: invalid ConfigMap:"
        " metadata.creationTimestamp: '2026-01-02 03:04:05' is not an RFC 3339"
        " date-time: expected a date, 'T', a time and a time zone (invalid-value)",
        "resources/dev/e.yaml:4:12: error: invalid Event: eventTime:"
        " '2026-01-02T03:04:05Z' is not an RFC 3339 date-time: six digits of"
        " fraction, not none (invalid-value)",
    ]
    hints = [
        output[i + 1].strip() for i, line in enumerate(output) if ": error: " in line
    ]
    assert hints[0] == (
        "hint: a date, 'T', a time and a time zone, as the API server parses it"
        " (RFC 3339): 2026-01-02T03:04:05Z or 2026-01-02T04:04:05.5+01:00;"
        " null leaves it unset"
    )
    assert hints[2] == (
        "hint: a MicroTime has six digits of fraction, as the API server parses it:"
        " 2026-01-02T03:04:05.000000Z; null leaves it unset"
    )
    assert run_kgen("build", cwd=root).code == 1
    assert not (root / "manifests").exists()


def test_the_specs_own_core_objects_times_are_checked(
    tmp_path: Path, run_kgen: RunKgen
):
    # An ephemeral volume's claim template embeds an ObjectMeta.
    root = tmp_path / "project"
    write_tree(
        root,
        {
            "kgen.yaml": "environments:\n  dev: [v1]\n",
            "overlays/v1.yaml": "target: v1\n",
            "jobs/train.yaml": "framework: pytorch\n"
            "image: registry.example.com/train:1.0\n"
            "roles:\n  master: {replicas: 1}\n"
            "volumes:\n"
            "  - name: scratch\n"
            "    mountPath: /scratch\n"
            "    ephemeral:\n"
            "      volumeClaimTemplate:\n"
            "        metadata: {creationTimestamp: today}\n"
            "        spec:\n"
            "          accessModes: [ReadWriteOnce]\n"
            "          resources: {requests: {storage: 1Gi}}\n",
        },
    )
    result = run_kgen("validate", cwd=root)
    assert result.code == 1
    output = (result.out + result.err).splitlines()
    assert [line for line in output if ": error: " in line] == [
        "jobs/train.yaml:10:39: error: invalid EphemeralVolumeSource:"
        " volumeClaimTemplate.metadata.creationTimestamp: 'today' is not an RFC 3339"
        " date-time: expected a date, 'T', a time and a time zone (invalid-value)",
    ]


def test_a_time_a_patch_writes_is_one_the_api_server_reads(
    tmp_path: Path, run_kgen: RunKgen
):
    patches = (
        "  - ops:\n"
        "      - {op: add, path: /metadata/creationTimestamp, value: yesterday}\n"
        "      - {op: add, path: /metadata/annotations, value: {when: today}}\n"
        "  - merge:\n"
        "      metadata: {deletionTimestamp: '2026-01-02T03:04:05'}\n"
    )
    code, output = _validate(run_kgen, _project(tmp_path, patches))
    assert code == 1
    assert [line for line in output.splitlines() if ": error: " in line] == [
        "jobs/train.yaml:8:61: error: the rendered PyTorchJob 'train' is invalid at"
        " metadata.creationTimestamp: 'yesterday' is not an RFC 3339 date-time:"
        " expected a date, 'T', a time and a time zone (output-schema)",
        "jobs/train.yaml:11:37: error: the rendered PyTorchJob 'train' is invalid at"
        " metadata.deletionTimestamp: '2026-01-02T03:04:05' is not an RFC 3339"
        " date-time: no time zone (Z, or an offset such as +01:00) (output-schema)",
    ]
