"""`patches:` applied to the rendered objects (after render, before the output check):
RFC 6902 operations (`ops`) and strategic merges (`merge`), each change remembered with
the patch line that made it, so an output error, a host-access rule and `kgen explain`
point at that line."""
