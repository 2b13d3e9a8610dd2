"""The rendered output against schemas: each job against its API target's envelope,
core objects against the Kubernetes definitions (`core`), and anything with a CRD of
the project against that CRD; errors traced back to the spec (`trace`)."""
