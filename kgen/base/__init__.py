"""`--base REF`: the project as it is at a base commit, read through git into a
temporary folder outside the project and rendered by the same kgen, so a pull request
can be compared with what it changes."""
