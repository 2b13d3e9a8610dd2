"""Hostile inputs of the eighth round: values of a type the schema refuses, reached by a
rule that runs beside the schema check and read them as the type they should be."""

from __future__ import annotations

from tests.hostile.case import VALID_JOB, Case, job

_SIDECAR = """\
  - name: side
    image: registry.example.com/side:1
    restartPolicy: Always
"""

CASES: dict[str, Case] = {
    # A sidecar's volumeMounts were walked as a list whenever they were not empty: a
    # number (1, .nan, true) ended the run as an internal error, exit 3.
    "attack8-init-container-mounts-a-number": Case(
        job(VALID_JOB + "initContainers:\n" + _SIDECAR + "    volumeMounts: .nan\n"),
        about="an init container's volumeMounts written as a number",
    ),
    "attack8-sidecar-mounts-a-boolean": Case(
        job(VALID_JOB + "containers:\n" + _SIDECAR + "    volumeMounts: true\n"),
        about="a sidecar's volumeMounts written as a boolean",
    ),
    "attack8-role-sidecar-mounts-an-integer": Case(
        job(
            VALID_JOB.replace(
                "  worker: {replicas: 2}\n",
                "  worker:\n    replicas: 2\n    containers:\n"
                + _SIDECAR.replace("  ", "      ", 1).replace("\n    ", "\n        ")
                + "        volumeMounts: 1\n",
            )
        ),
        about="a role's sidecar's volumeMounts written as an integer",
    ),
}
