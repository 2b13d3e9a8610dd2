"""Read the project's files safely and parse them as YAML with the position of every
value: `files` (the one safe reader), `yaml` and `quick` (the full and the fast
loader), `project` and `jobs` (kgen.yaml, its overlays, and jobs/)."""
