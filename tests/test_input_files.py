"""Reading input: regular files only, inside the project, bounded, never a hang; and
what a CRD may make kgen fetch (nothing).

The hostile corpus (tests/hostile/cases_input.py) holds the exact messages per case;
these tests cover what a case cannot set up: special files other than FIFOs, folders
and files kgen may not read (the suite runs as root, which reads everything), and proof
that a CRD's `$ref` opens no connection and no file.
"""

from __future__ import annotations

import errno
import os
import socket
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kgen.check.crds import CrdValidator
from kgen.load.files import MAX_FILE_BYTES, Reading, list_folder, read_input
from tests.conftest import RunKgen, write_tree
from tests.hostile.case import OUTSIDE_SECRET
from tests.hostile.cases_input import CASES, _crd

EXPECTED = Path(__file__).parent / "hostile" / "expected"
JOB = """\
framework: pytorch
image: registry.example.com/train:1.0
resources: {requests: {cpu: "1", memory: 1Gi}, limits: {memory: 1Gi}}
roles: {master: {replicas: 1}}
"""


def _read(path: Path, root: Path | None = None) -> Reading:
    """read_input on a thread: a read that blocks fails the test instead of hanging it."""
    found: list[Reading] = []
    reader = threading.Thread(
        target=lambda: found.append(read_input(path, path.name, root=root)),
        daemon=True,
    )
    reader.start()
    reader.join(timeout=10)
    assert found, f"reading {path} blocked"
    return found[0]


def _message(reading: Reading) -> str:
    assert reading.raw is None and reading.problem is not None
    return reading.problem.message


def test_a_regular_file_is_read_whole(tmp_path: Path):
    (tmp_path / "a.yaml").write_bytes(b"a: 1\n")
    assert _read(tmp_path / "a.yaml", tmp_path) == Reading(b"a: 1\n")


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path):
    os.mkfifo(tmp_path / "a.yaml")
    assert (
        _message(_read(tmp_path / "a.yaml", tmp_path))
        == "a.yaml is a named pipe (FIFO); kgen reads regular files only"
    )


def test_a_socket_is_refused(tmp_path: Path):
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "a.yaml"))
        reading = _read(tmp_path / "a.yaml", tmp_path)
    # Opening a socket fails (ENXIO) before fstat could say what it is: said all the same.
    assert _message(reading) == "a.yaml is a socket; kgen reads regular files only"


def test_a_device_is_refused_unread(tmp_path: Path):
    try:
        os.mknod(tmp_path / "a.yaml", stat.S_IFCHR | 0o600, os.makedev(1, 5))
    except PermissionError:
        pytest.skip("creating a device needs root")
    # /dev/zero: read, it would never end; the limit would stop it, fstat stops first.
    assert (
        _message(_read(tmp_path / "a.yaml", tmp_path))
        == "a.yaml is a character device; kgen reads regular files only"
    )


def test_a_folder_is_refused(tmp_path: Path):
    (tmp_path / "a.yaml").mkdir()
    assert (
        _message(_read(tmp_path / "a.yaml", tmp_path))
        == "a.yaml is a folder; kgen reads regular files only"
    )


def test_links_are_followed_only_inside_the_root(tmp_path: Path):
    root = tmp_path / "project"
    root.mkdir()
    (tmp_path / "secret.yaml").write_text(OUTSIDE_SECRET)
    (root / "real.yaml").write_text("a: 1\n")
    (root / "inside.yaml").symlink_to("real.yaml")
    (root / "outside.yaml").symlink_to("../secret.yaml")
    (root / "detour.yaml").symlink_to("../project/real.yaml")
    assert _read(root / "inside.yaml", root).raw == b"a: 1\n"
    assert _read(root / "detour.yaml", root).raw == b"a: 1\n"
    assert _message(_read(root / "outside.yaml", root)) == (
        "outside.yaml links to a file outside the project; kgen reads only files inside it"
    )
    # Without a root, the caller has vouched the path is no link: a link is refused.
    assert _message(_read(root / "inside.yaml")).startswith("cannot read file: ")


def test_a_link_loop_is_an_io_problem_with_a_hint(tmp_path: Path):
    (tmp_path / "a.yaml").symlink_to("b.yaml")
    (tmp_path / "b.yaml").symlink_to("a.yaml")
    reading = _read(tmp_path / "a.yaml", tmp_path)
    assert reading.problem is not None and not reading.missing
    assert (
        reading.problem.message == "cannot read file: Too many levels of symbolic links"
    )
    assert reading.problem.hint == (
        "a symbolic link that leads back to itself; point it at the file"
    )


def test_a_missing_file_says_so(tmp_path: Path):
    (tmp_path / "file").write_text("x")
    assert _read(tmp_path / "none.yaml", tmp_path).missing
    assert _read(tmp_path / "file" / "none.yaml", tmp_path).missing  # ENOTDIR


def test_reading_stops_one_byte_past_the_limit(tmp_path: Path):
    (tmp_path / "a.yaml").write_bytes(b"#" * (MAX_FILE_BYTES + 10))
    reading = _read(tmp_path / "a.yaml", tmp_path)
    assert reading.problem is not None
    assert reading.problem.code == "file-too-large"
    assert reading.problem.message == (
        f"file is {MAX_FILE_BYTES + 10} bytes, more than the limit of {MAX_FILE_BYTES}"
    )


def test_an_unreadable_file_is_an_io_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    (tmp_path / "a.yaml").write_text("a: 1\n")

    def refuse(path: object, flags: int, *args: object) -> int:
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(os, "open", refuse)
    reading = read_input(tmp_path / "a.yaml", "a.yaml", root=tmp_path)
    assert reading.problem is not None and not reading.missing
    assert (reading.problem.message, reading.problem.hint) == (
        "cannot read file: Permission denied",
        "make the file (and its folders) readable by the user running kgen",
    )


def test_folder_listing_refuses_names_it_cannot_print(tmp_path: Path):
    for name in (b"good.yaml", b"bad\xff.yaml", b"bell\x07.yaml", b"skipped.txt"):
        with open(os.fsencode(tmp_path) + b"/" + name, "wb"):
            pass
    entries, problems = list_folder(tmp_path, "jobs", (".yaml",))
    assert [e.name for e in entries] == ["good.yaml"]
    assert [(p.file, p.message) for p in problems] == [
        (
            "jobs/bad\\udcff.yaml",
            "the file name is not valid UTF-8; kgen reads only files it can name in its output",
        ),
        (
            "jobs/bell\\x07.yaml",
            "the file name has control or invisible characters; kgen reads only files it can name in its output",
        ),
    ]


def _refuse_listing(monkeypatch: pytest.MonkeyPatch, folder: str) -> None:
    listing = os.scandir

    def scandir(path: os.PathLike[str]) -> Iterator[os.DirEntry[str]]:
        if Path(path).name == folder:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return listing(path)

    monkeypatch.setattr(os, "scandir", scandir)


def test_an_unreadable_jobs_folder_is_a_located_error(
    project: Callable[..., Path], run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    root = project({"jobs/train.yaml": "framework: pytorch\n"})
    _refuse_listing(monkeypatch, "jobs")
    result = run_kgen("validate", cwd=root)
    assert (result.code, result.out + result.err) == (
        1,
        "jobs: error: cannot read the folder jobs: Permission denied (io)\n"
        "    hint: make the folder readable (and searchable) by the user running kgen\n"
        "kgen: 1 error in 1 file\n",
    )


def test_an_unreadable_overlays_folder_is_a_located_error(
    project: Callable[..., Path], run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    root = project({"jobs/train.yaml": JOB})
    opening = os.open

    def open_(path: str, flags: int, *args: int) -> int:
        if Path(path).parent.name == "overlays":
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return opening(path, flags, *args)

    monkeypatch.setattr(os, "open", open_)
    result = run_kgen("validate", cwd=root)
    assert (result.code, result.out + result.err) == (
        1,
        "overlays/v1.yaml: error: cannot read file: Permission denied (io)\n"
        "    hint: make the file (and its folders) readable by the user running kgen\n"
        "kgen: 1 error in 1 file\n",
    )


def _as_nobody() -> None:
    os.setgid(65534)
    os.setuid(65534)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run kgen as nobody")
@pytest.mark.parametrize("folder", ["jobs", "overlays"])
def test_folders_nobody_may_read_are_clean_errors(folder: str):
    """The real permission check, not a stand-in: kgen run as nobody on a project
    whose jobs/ or overlays/ it may not read."""
    with tempfile.TemporaryDirectory() as tmp:
        root = write_tree(
            Path(tmp),
            {
                "kgen.yaml": "environments:\n  dev: [v1]\n",
                "overlays/v1.yaml": "target: v1\n",
                "jobs/train.yaml": JOB,
            },
        )
        os.chmod(tmp, 0o755)
        os.chmod(root / folder, 0o000)
        try:
            done = subprocess.run(
                [sys.executable, "-m", "kgen", "validate"],
                cwd=root,
                capture_output=True,
                text=True,
                env={**os.environ, "KGEN_NO_CACHE": "1", "NO_COLOR": "1"},
                preexec_fn=_as_nobody,
                timeout=60,
                check=False,
            )
        except PermissionError:
            pytest.skip("nobody may not run this interpreter here")
    if "No module named kgen" in done.stderr:
        pytest.skip("nobody may not read kgen's sources here")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    first = (done.stdout + done.stderr).splitlines()[0]
    assert (
        first
        == {
            "jobs": "jobs: error: cannot read the folder jobs: Permission denied (io)",
            "overlays": "overlays/v1.yaml: error: cannot read file: Permission denied (io)",
        }[folder]
    )


def test_a_crd_reference_opens_no_connection_and_no_file(tmp_path: Path):
    """Run in a process of its own, as a user would: whatever library resolves the
    schema, nothing connects to a listening socket, and a FIFO named by file:// is
    never opened (opening one for reading would block the run)."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        port = listener.getsockname()[1]
        fifo = tmp_path / "schema.json"
        os.mkfifo(fifo)
        for ref in (f"http://127.0.0.1:{port}/spec.json", fifo.as_uri()):
            root = write_tree(
                tmp_path / f"project-{ref[:4]}",
                {
                    "kgen.yaml": "crds: [crd.yaml]\nenvironments:\n  dev: [v1]\n",
                    "overlays/v1.yaml": "target: v1\n",
                    "jobs/train.yaml": JOB,
                    "crd.yaml": _crd(f'{{$ref: "{ref}"}}'),
                },
            )
            done = subprocess.run(
                [sys.executable, "-m", "kgen", "validate"],
                cwd=root,
                capture_output=True,
                text=True,
                env={**os.environ, "KGEN_NO_CACHE": "1", "NO_COLOR": "1"},
                timeout=60,
                check=False,
            )
            assert done.returncode == 1
            assert f"crd.yaml:22:26: error: $ref '{ref}' points outside this CRD" in (
                done.stdout + done.stderr
            )
        with pytest.raises(BlockingIOError):
            listener.accept()


def test_no_input_case_shows_what_lies_outside_the_project():
    secret = OUTSIDE_SECRET.split(":")[1].strip()
    for name in CASES:
        assert secret not in (EXPECTED / f"{name}.txt").read_text(), name


def test_crd_schemas_compile_offline_even_past_the_reference_check(tmp_path: Path):
    """Defence in depth: the compiler itself retrieves nothing."""
    from kgen.check.crds import _compile
    from kgen.load.document import Document

    doc = Document("crd.yaml", {})
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        port = listener.getsockname()[1]
        problem = _compile({"$ref": f"http://127.0.0.1:{port}/x"}, (), doc)
        with pytest.raises(BlockingIOError):
            listener.accept()
    assert not isinstance(problem, CrdValidator)
    assert problem.message.startswith("this CRD's schema cannot be used: Resource ")


@pytest.mark.parametrize(
    ("scope", "quoted"),
    [
        ("Galaxy", "'Galaxy'"),
        ("namespaced", "'namespaced'"),
        ("''", "''"),
        ("[Cluster]", "[Cluster]"),
    ],
)
def test_a_crd_scope_the_api_server_refuses_is_refused_at_scope(
    tmp_path: Path, run_kgen: RunKgen, scope: str, quoted: str
):
    """apiextensions' validation takes only `Namespaced` or `Cluster` (k8s.io/
    apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go, v1.31:
    `spec.scope: Unsupported value`); kgen checked the CRD's objects as namespaced."""
    crd = _crd("{type: object}").replace("scope: Namespaced", f"scope: {scope}")
    root = write_tree(
        tmp_path,
        {
            "kgen.yaml": "crds: [crd.yaml]\nenvironments:\n  dev: [v1]\n",
            "overlays/v1.yaml": "target: v1\n",
            "jobs/train.yaml": JOB,
            "crd.yaml": crd,
        },
    )
    result = run_kgen("validate", cwd=root)
    assert result.code == 1
    assert (result.out + result.err).splitlines()[0] == (
        f"crd.yaml:7:10: error: scope {quoted} is no CRD scope:"
        " the API server takes Namespaced or Cluster (invalid-value)"
    )
