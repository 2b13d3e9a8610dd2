"""Where user input enters: the pydantic models of job specs, overlays and kgen.yaml,
and validation that turns their errors into located problems.

Modules are imported where they are used, never from here: building the job models is
a fifth of kgen's start-up, and a run whose renders all come from the cache never needs
them.
"""
