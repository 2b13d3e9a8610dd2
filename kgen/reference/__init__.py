"""Reference generated from the code: the spec reference from the models (`spec`), the
rule table from the catalogue (`rules`) and the JSON Schemas for editors (`schemas`).
`make docs` writes them (`python -m kgen.reference`)."""
