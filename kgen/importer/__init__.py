"""`kgen import`: existing job manifests become a kgen project. `read` reads the files
(bounded like any input), `jobs` turns each job object into a spec (the kind's own
fields through the kind registry) once `refused` and `shape` found nothing that stops it, `pods` reads a role's pod template, and `project`
writes the specs, overlays and kgen.yaml."""
