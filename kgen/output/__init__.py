"""The output tree: laid out (`tree`) and emitted as deterministic YAML (`emitter`),
listed in the index kgen owns (`index`), compared with what is on disk (`compare`) and
written atomically (`writer`, `atomic`, `lock`), never through a link (`safe_paths`)."""
