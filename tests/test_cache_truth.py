"""A damaged or forged cache never changes an answer (kgen.commands.build_truth).

On CI the cache folder is restored from a cache that earlier runs wrote, some of them
perhaps a pull request's. Each case builds a small project (the cache warm), damages
the cache one way and, perhaps, the committed tree, then runs `build --check`, `build`
or `diff` twice: with that cache, and with none. Exit code, drift, errors and the
files left in the output folder must be the same, and so on the run after.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kgen.errors import Problem
from kgen.output.record_store import load_record, record_file, save_record
from kgen.pipeline import cache as kgen_cache
from kgen.pipeline import run as pipeline
from tests.conftest import RunKgen, files_below, write_tree

PROJECT = {
    "kgen.yaml": """
        environments:
          dev: [v1]
          prod:
            overlays: [v1]
            jobs: {names: [alpha]}
    """,
    "overlays/v1.yaml": "target: v1\n",
    "jobs/alpha.yaml": """
        framework: pytorch
        image: docker.io/example/alpha:v1
        roles:
          master: {replicas: 1}
          worker: {replicas: 2}
    """,
    "jobs/beta.yaml": """
        framework: pytorch
        image: docker.io/example/beta:v1
        roles:
          master: {replicas: 1}
          worker: {replicas: 2}
    """,
}
ALPHA = "manifests/dev/alpha.pytorchjob.yaml"
# Valid YAML, and what a cluster would accept: nothing but the cache says it is wrong.
OTHER = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: planted\n"


def _folder(root: Path) -> Path:
    folder = kgen_cache.cache_folder(root)
    assert folder is not None
    return folder


def _edit_table(root: Path, prefix: str, change: Callable[[dict[str, Any]], None]):
    """Apply `change` to every table of the cache whose file starts with `prefix`,
    written back as kgen writes it (so it reads as kgen's own)."""
    for path in sorted(_folder(root).glob(f"{prefix}*.pickle")):
        salt, table = pickle.loads(path.read_bytes())
        change(table)
        path.write_bytes(pickle.dumps((salt, table), protocol=5))


def _key(root: Path, job: str, env: str) -> str:
    """The render key of `job` (by its file's stem) in `env`."""
    found: list[str] = []

    def look(table: dict[str, Any]) -> None:
        for key, (facts, _problems) in table.items():
            name = facts.files[0].filename if facts is not None else ""
            if key.endswith(f"/{env}") and name.startswith(f"{job}."):
                found.append(key)

    _edit_table(root, "renders-", look)
    assert len(found) == 1, (job, env, found)
    return found[0]


def _identity_keys(root: Path) -> dict[str, str]:
    keys: dict[str, str] = {}
    _edit_table(
        root, "identities", lambda t: keys.update({v[0]: k for k, v in t.items()})
    )
    return keys


def _forge_text(root: Path, *, digest: bool) -> None:
    """alpha's text in dev is other YAML; with `digest`, its entry says so too."""
    key = _key(root, "alpha", "dev")
    sizes: dict[str, int] = {}

    def texts(table: dict[str, Any]) -> None:
        if key in table:
            text = table[key][0]
            header = text.encode()[: len(text.encode()) - sizes["size"]].decode()
            table[key] = (header + OTHER, *table[key][1:])

    def renders(table: dict[str, Any]) -> None:
        if key in table:
            facts, problems = table[key]
            out = facts.files[0]
            sizes["size"] = out.size
            if digest:
                body = OTHER.encode()
                out = out._replace(
                    digest=hashlib.sha256(body).hexdigest(), size=len(body)
                )
            table[key] = (facts._replace(files=(out, *facts.files[1:])), problems)

    _edit_table(root, "renders-", renders)
    _edit_table(root, "texts-", texts)


def _swap_identities(root: Path) -> None:
    keys = _identity_keys(root)

    def swap(table: dict[str, Any]) -> None:
        a, b = keys["alpha"], keys["beta"]
        table[a], table[b] = table[b], table[a]

    _edit_table(root, "identities", swap)


def _rename(root: Path) -> None:
    """alpha's identity names it gamma: the name of the job a-new-job adds."""
    key = _identity_keys(root)["alpha"]

    def rename(table: dict[str, Any]) -> None:
        table[key] = ("gamma", *table[key][1:])

    _edit_table(root, "identities", rename)


def _swap_renders(root: Path) -> None:
    """alpha's render in dev stands under beta's key, and beta's under alpha's."""
    a, b = _key(root, "alpha", "dev"), _key(root, "beta", "dev")
    for prefix in ("renders-", "texts-"):
        _swap_entries(root, prefix, a, b)


def _swap_entries(root: Path, prefix: str, a: str, b: str) -> None:
    """The entries at `a` and `b` (in different files) swapped."""
    entries: dict[str, Any] = {}
    _edit_table(root, prefix, entries.update)

    def swap(table: dict[str, Any]) -> None:
        for mine, theirs in ((a, b), (b, a)):
            if mine in table:
                table[mine] = entries[theirs]

    _edit_table(root, prefix, swap)


def _extra_file(root: Path) -> None:
    """alpha's render in dev claims a second file, of a job that does not exist."""
    key = _key(root, "alpha", "dev")

    def add(table: dict[str, Any]) -> None:
        if key in table:
            facts, problems = table[key]
            out = facts.files[0]._replace(filename="gamma.pytorchjob.yaml")
            table[key] = (facts._replace(files=(*facts.files, out)), problems)

    def text(table: dict[str, Any]) -> None:
        if key in table:
            table[key] = (*table[key], table[key][0])

    _edit_table(root, "renders-", add)
    _edit_table(root, "texts-", text)


def _problem(root: Path, file: str = "jobs/alpha.yaml") -> None:
    """alpha's render in dev comes with an error it does not have, in `file`."""
    key = _key(root, "alpha", "dev")
    planted = Problem("planted", "planted-error", file=file, line=1)

    def add(table: dict[str, Any]) -> None:
        if key in table:
            table[key] = (table[key][0], [*table[key][1], planted])

    _edit_table(root, "renders-", add)


def _truncate(root: Path) -> None:
    for path in sorted(_folder(root).iterdir()):
        if path.is_file() and path.suffix in (".pickle", ".record"):
            data = path.read_bytes()
            path.write_bytes(data[: len(data) // 2])


def _vouch(root: Path) -> None:
    """The tree record says every file holds what alpha's holds."""
    where = record_file(root, "manifests")
    record = load_record(where)
    assert record.stats, "no tree record to forge"
    mark = record.held[ALPHA]
    record = dataclasses.replace(record, held=dict.fromkeys(record.stats, mark))
    save_record(where, record)


FORGERIES: dict[str, Callable[[Path], None]] = {
    "text-other-yaml": lambda root: _forge_text(root, digest=False),
    "text-and-digest-other-yaml": lambda root: _forge_text(root, digest=True),
    "identities-swapped": _swap_identities,
    "identity-renamed": _rename,
    "renders-swapped-between-jobs": _swap_renders,
    "entry-claims-a-missing-job": _extra_file,
    "entry-with-a-planted-error": _problem,
    # gamma is no job, or one the cache has nothing of (a-new-job adds it).
    "entry-with-an-error-in-another-job": lambda root: _problem(
        root, "jobs/gamma.yaml"
    ),
    "every-file-truncated": _truncate,
    "tree-record-vouches-for-others": _vouch,
}


def _edit_alpha(root: Path) -> None:
    path = root / ALPHA
    path.write_text(path.read_text().replace("alpha:v1", "alpha:v0"))


def _remove_alpha(root: Path) -> None:
    (root / ALPHA).unlink()


def _new_job(root: Path) -> None:
    shutil.copy(root / "jobs/beta.yaml", root / "jobs/gamma.yaml")


TREES: dict[str, Callable[[Path], None]] = {
    "as-built": lambda root: None,
    "a-file-edited": _edit_alpha,
    "a-file-removed": _remove_alpha,
    "a-new-job": _new_job,
}
COMMANDS = {
    "check": ("build", "--check"),
    "build": ("build",),
    "diff": ("diff",),
    "validate": ("validate",),
    "validate-strict": ("validate", "--strict"),
}


def _warm(root: Path, run_kgen: RunKgen) -> Path:
    write_tree(root, PROJECT)
    assert run_kgen("build", "-C", str(root)).code == 0
    # Files written a moment ago are not recorded (kgen.output.racy): older ones are.
    for path in (root / "manifests").rglob("*"):
        os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns - 10**10))
    # A build keeps no texts (it stages them); a diff after it does.
    assert run_kgen("diff", "-C", str(root)).code == 0
    return root


def _answer(
    run_kgen: RunKgen, root: Path, command: tuple[str, ...]
) -> tuple[int, list[str], dict[str, bytes]]:
    """What the promise covers: exit code, drift and errors reported, files left.
    Not warnings: a render's are served as the cache has them (docs/guarantees.md)."""
    result = run_kgen(*command, "-C", str(root))
    lines = (result.out + result.err).replace(str(root), "<root>").splitlines()
    shown = [line for line in lines if "warning" not in line]
    shown = [line for line in shown if not line.startswith("    ")]
    return result.code, shown, files_below(root / "manifests")


# The limit docs/guarantees.md states: a validate that passes rests on the identities
# the cache served (checking them means parsing every job, the work the cache saves);
# one renamed out of an environment's selection is not validated there. A failure,
# though, never rests on the cache.
_VALIDATE_PASS_LIMIT = pytest.mark.xfail(
    strict=True, reason="a passing validate rests on the served identities"
)


def _cases() -> list[Any]:
    return [
        pytest.param(
            command,
            forgery,
            tree,
            marks=_VALIDATE_PASS_LIMIT
            if (command, forgery) == ("validate", "identity-renamed")
            and tree != "a-new-job"
            else (),
        )
        for command in COMMANDS
        for forgery in FORGERIES
        for tree in TREES
    ]


@pytest.mark.parametrize(("command", "forgery", "tree"), _cases())
def test_a_forged_cache_changes_no_answer(
    command: str,
    forgery: str,
    tree: str,
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
):
    root = _warm(tmp_path / "project", run_kgen)
    TREES[tree](root)
    cold_root = tmp_path / "cold"
    shutil.copytree(root, cold_root)
    FORGERIES[forgery](root)
    for record in _folder(root).glob("run-*.pickle"):
        record.unlink()  # a replayed run: kgen.commands.up_to_date
    argv = COMMANDS[command]
    forged = _answer(run_kgen, root, argv)
    after = _answer(run_kgen, root, argv)
    monkeypatch.setenv("KGEN_NO_CACHE", "1")
    cold = _answer(run_kgen, cold_root, argv)
    cold_after = _answer(run_kgen, cold_root, argv)
    assert forged == cold
    assert after == cold_after


def _renders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    rendered: list[str] = []
    real = pipeline.render_one

    def counted(job: Any, env: Any, *args: Any) -> Any:
        rendered.append(f"{env.name}/{job.file}")
        return real(job, env, *args)

    monkeypatch.setattr(pipeline, "render_one", counted)
    return rendered


def test_a_run_after_the_cache_disagreed_finds_it_mended(
    tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    root = _warm(tmp_path / "project", run_kgen)
    _forge_text(root, digest=True)
    rendered = _renders(monkeypatch)
    check = run_kgen("build", "--check", "-C", str(root))
    assert (check.code, check.err.splitlines()[-1]) == (
        0,
        "kgen: manifests/ is up to date (6 files)",
    )
    assert len(rendered) > 3  # the check ran again without the cache
    del rendered[:]
    for record in _folder(root).glob("run-*.pickle"):
        record.unlink()
    assert run_kgen("build", "--check", "-C", str(root)).code == 0
    assert rendered == []  # every render from the cache, which holds the truth again


def test_a_file_changed_by_hand_renders_its_job_again_only(
    tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    root = _warm(tmp_path / "project", run_kgen)
    _edit_alpha(root)
    rendered = _renders(monkeypatch)
    check = run_kgen("build", "--check", "-C", str(root))
    assert check.code == 1
    assert f"modified: {ALPHA}\n" in check.err
    # Its job in each of its environments, to see the cache's answer hold.
    assert sorted(rendered) == ["dev/jobs/alpha.yaml", "prod/jobs/alpha.yaml"]
    del rendered[:]
    build = run_kgen("build", "-C", str(root))
    assert build.code == 0
    assert sorted(rendered) == ["dev/jobs/alpha.yaml", "prod/jobs/alpha.yaml"]
    assert "alpha:v1" in (root / ALPHA).read_text()
