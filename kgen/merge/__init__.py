"""Overlays onto job specs: `layers` merges them (named lists by key, `null` deletes),
`select` says which jobs an overlay applies to, and `origins` finds which file and line
set a merged value, to locate a problem in it."""
