"""What a worker shares between a job's renders keeps every value as rendered
(kgen.pipeline.facts.with_shared_names), and the output check compiles one validator
per core kind, whatever the API target (kgen.check.output)."""

from __future__ import annotations

import pickle

from kgen.check.core import DEFAULT_KUBERNETES_VERSION
from kgen.check.output import CORE_DEFINITIONS, fast_validator
from kgen.load.project import load_project
from kgen.pipeline.facts import with_shared_names
from kgen.pipeline.run import run
from tests.conftest import REPO


def test_shared_facts_keep_every_value_and_share_equal_names():
    project, problems = load_project(REPO, use_cache=False)
    assert project is not None and not problems
    result = run(project, emit=True)
    by_job: dict[str, list[object]] = {}
    for render in result.renders:
        by_job.setdefault(render.job.file, []).append(render.facts)
    job, renders = max(by_job.items(), key=lambda item: len(item[1]))
    assert len(renders) > 1, job
    # Fresh copies, as a worker has them before sharing: equal, nothing shared.
    fresh = pickle.loads(pickle.dumps(renders))
    shared = with_shared_names(fresh)
    assert shared == renders
    assert [type(f) for f in shared] == [type(f) for f in renders]
    first, second = shared[0], shared[1]
    assert first is not None and second is not None
    assert first.job_name is second.job_name
    assert first.files[0].filename is second.files[0].filename
    assert first.files[0].spec_path is second.files[0].spec_path


def test_one_validator_per_core_kind_and_one_per_job_kind_and_target():
    version = DEFAULT_KUBERNETES_VERSION
    for kind in CORE_DEFINITIONS:
        assert fast_validator(kind, "v1", version) is fast_validator(
            kind, "v1beta2", version
        )
    assert fast_validator("PyTorchJob", "v1", version) is not fast_validator(
        "PyTorchJob", "v1beta2", version
    )
