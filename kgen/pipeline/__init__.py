"""One run over environments x jobs: merge, validate, check and render each pair (on
every core, or from the cache), then the rules across jobs; problems located and
de-duplicated. `run.run` is the entry; `records` holds what it returns."""
