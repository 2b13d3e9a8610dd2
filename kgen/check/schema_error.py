"""One error of a rendered object against a schema that is not jsonschema's own (a CRD's,
or a CEL rule of kgen's envelopes), in the terms kgen.check.output reads. Its own module:
the envelopes' rules need it in every run that checks a job, the CRD checks
(kgen.check.crds) only in a project that has CRDs."""

from __future__ import annotations

from typing import Any, NamedTuple

from kgen.errors import DataPath


class SchemaError(NamedTuple):
    """One error of a rendered object, in the terms kgen.check.output reads."""

    absolute_path: DataPath
    validator: str
    instance: Any
    schema: Any
    message: str
