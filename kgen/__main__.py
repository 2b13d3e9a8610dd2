from __future__ import annotations

from kgen.cli import main

raise SystemExit(main())
