from __future__ import annotations

import contextlib
import multiprocessing
import os
import shutil
import signal
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from kgen.cli import main

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "reference"


def pytest_configure(config: pytest.Config) -> None:
    # kgen's cache lives in the user's cache folder; tests keep theirs to themselves.
    os.environ["KGEN_CACHE_DIR"] = tempfile.mkdtemp(prefix="kgen-test-cache-")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite expected outputs instead of comparing (review the diff!)",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


@dataclass
class Result:
    code: int
    out: str
    err: str

    def __str__(self) -> str:
        return f"exit {self.code}\n--- stdout\n{self.out}\n--- stderr\n{self.err}"


RunKgen = Callable[..., Result]


@pytest.fixture
def run_kgen(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> RunKgen:
    """Run the kgen CLI in-process through main(), so exit codes are the real ones."""
    monkeypatch.setenv("NO_COLOR", "1")
    # `--format auto` would pick github annotations when the suite runs in Actions.
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)

    def run(*args: str, cwd: Path | None = None) -> Result:
        if cwd is not None:
            monkeypatch.chdir(cwd)
        capsys.readouterr()
        code = main(list(args))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


# The repository's example project: kgen.yaml and the folders it reads.
EXAMPLE_INPUTS = ("jobs", "overlays", "resources", "crds")


@pytest.fixture
def forked_pools(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The start method of every pool the test's runs fork, in order (kgen's pools
    all ask multiprocessing.get_context for one)."""
    pools: list[str] = []
    real = multiprocessing.get_context

    def spy(method: str) -> object:
        pools.append(method)
        return real(method)

    monkeypatch.setattr(multiprocessing, "get_context", spy)
    return pools


def copy_example(dest: Path, *, extra: tuple[str, ...] = ()) -> Path:
    """A copy of the repository's example project at `dest` (created), with the
    `extra` folders (committed output) too; returns `dest`."""
    dest.mkdir(parents=True)
    shutil.copy(REPO / "kgen.yaml", dest / "kgen.yaml")
    for folder in (*EXAMPLE_INPUTS, *extra):
        shutil.copytree(REPO / folder, dest / folder)
    return dest


def files_below(folder: Path) -> dict[str, bytes]:
    """Every file below `folder` by its path relative to it, with its bytes."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Create files (dedented) under root; returns root."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


MINIMAL_PROJECT = {
    "kgen.yaml": """
        environments:
          dev: [v1]
    """,
    "overlays/v1.yaml": "target: v1\n",
}


@pytest.fixture
def project(tmp_path: Path) -> Callable[..., Path]:
    """A throwaway project: the minimal kgen.yaml and v1 overlay plus the given files."""

    def make(files: dict[str, str], *, base: dict[str, str] | None = None) -> Path:
        return write_tree(
            tmp_path, {**(MINIMAL_PROJECT if base is None else base), **files}
        )

    return make


@pytest.fixture
def early_scans(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Early scans (kgen.output.early_scan) on for any tree with a record, whatever
    the machine's load, and whether each build took its child's scan (True) or
    scanned for itself; every child reaped at the end (asserted)."""
    from kgen.output import early_scan
    from kgen.pipeline import parallel

    monkeypatch.setenv("KGEN_WORKERS", "2")
    monkeypatch.setattr(parallel, "SPARE_CORE", True)
    monkeypatch.setattr(early_scan, "MIN_FILES", 1)
    monkeypatch.setattr(early_scan, "WAIT_S", 60)  # however busy the machine is
    taken: list[bool] = []
    original = early_scan._fill

    def spy(*args: object) -> bool:
        found = original(*args)  # type: ignore[arg-type]
        taken.append(found)
        return found

    monkeypatch.setattr(early_scan, "_fill", spy)
    yield taken
    assert early_scan._pending is None
    with pytest.raises(ChildProcessError):  # every child reaped: no zombie left
        os.waitpid(-1, os.WNOHANG)


class Hung(BaseException):
    """What `no_hang` raises: not an OSError (kgen takes a cache file it cannot read
    for a miss, and would go on to block on the next one), nor any Exception."""


@contextlib.contextmanager
def no_hang(what: str, seconds: float = 60) -> Iterator[None]:
    """Fail with Hung, naming `what`, if the block is still running after `seconds`
    (and every second after that, till it ends): a test of a hang fails, never waits
    for the suite's time limit."""

    def hang(signum: int, frame: object) -> None:
        raise Hung(what)

    previous = signal.signal(signal.SIGALRM, hang)
    signal.setitimer(signal.ITIMER_REAL, seconds, 1)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
