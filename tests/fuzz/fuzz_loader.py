"""Coverage-guided fuzzing of kgen's loader and spec validation (`make fuzz`).

Any input must come back as a document or as located problems: an exception escaping
load_bytes, or validation of what it loaded, is a crash. atheris writes the input that
caused it to crash-<hash>; turn it into a case in tests/hostile/corpus.py (its bytes as
the job file), fix kgen, and `make golden`.

Run: `make fuzz` (FUZZ_SECONDS, default 60), seeded with the repo's job specs.
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports():
    from kgen.kinds import KINDS
    from kgen.load.yaml import load_bytes
    from kgen.spec.validate import validate_model


def one_input(data: bytes) -> None:
    doc, problems = load_bytes(data, "jobs/fuzz.yaml")
    if doc is None:
        assert problems and all(p.line and p.column for p in problems), problems
        return
    if isinstance(doc.data, dict):
        framework = doc.data.get("framework")
        kind = KINDS.get(framework) if isinstance(framework, str) else None
        validate_model((kind or KINDS["pytorch"]).model(), doc.data)


def main() -> None:
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
