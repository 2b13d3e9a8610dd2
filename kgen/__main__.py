"""`python -m kgen` and the `kgen` command.

`kgen --version` is answered before the command line is imported: scripts call it to
find kgen, and start-up is a benchmark target (click alone is a third of it).
"""

from __future__ import annotations

import gc
import os
import sys

from kgen import __version__

VERSION_FLAGS = (["--version"], ["-V"])


def main() -> int:
    if sys.argv[1:] in VERSION_FLAGS:
        # Exactly what click's version option prints.
        sys.stdout.write(f"kgen, version {__version__}\n")
        return 0
    # A run allocates millions of short-lived objects and few cycles: collecting after
    # every 700 allocations costs 5% of a build for nothing.
    gc.set_threshold(50_000, 20, 20)
    # No pydantic plugins: what else is installed must not change how a spec validates,
    # and looking for them reads every installed package's metadata (8-12 ms a run).
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    from kgen.cli import main as cli_main

    code = cli_main()
    # Everything still alive is about to be freed anyway: the collection the interpreter
    # runs on exit would walk all of it (a tenth of a second for one `validate`).
    gc.freeze()
    return code


if __name__ == "__main__":
    raise SystemExit(main())
