"""Problems in specs and across jobs: the catalogue of every code (`catalog`), the rules
over one validated spec (`spec`, `values`, `secrets`, `policy`), and those across jobs
and environments (`project`, `quota`, `in_place`)."""
