"""Where user input enters: the pydantic models of job specs, overlays and kgen.yaml,
and validation that turns their errors into located problems.

`job.JobSpec` is what every kind's spec shares; each kind's own model is the spec.py of
its package under kgen/kinds. Modules are imported where they are used, never from
here: building the job models is a fifth of kgen's start-up, and a run whose renders
all come from the cache never needs them.
"""
