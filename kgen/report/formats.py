"""Every output format by the name `--format` takes (the CLI's choices come from here).

Reporters write to an injected stream and never decide exit codes. `text` goes to stderr;
the machine formats go to stdout so they can be redirected into a file.
"""

from __future__ import annotations

import os

from kgen.report.base import Reporter
from kgen.report.ci import GithubReporter, JsonReporter, JunitReporter, SarifReporter
from kgen.report.text import ParsableReporter, TextReporter

REPORTERS: dict[str, type[Reporter]] = {
    "text": TextReporter,
    "parsable": ParsableReporter,
    "json": JsonReporter,
    "github": GithubReporter,
    "sarif": SarifReporter,
    "junit": JunitReporter,
}


def pick_format(name: str) -> str:
    """`auto` is `github` under GitHub Actions, else `text`."""
    if name != "auto":
        return name
    return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
