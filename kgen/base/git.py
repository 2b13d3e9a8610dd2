"""Read a project's files at a commit through git, into a temporary folder.

REF is user input: an option-looking ref is refused, and git is asked with
`--end-of-options` so nothing in it is read as an option. The base tree is as untrusted
as the working tree: only regular files are taken (no links, no submodules), each at most
the loader's size limit, and the whole within a bound; the same loaders read them.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from kgen.errors import UsageError, printable, shortened
from kgen.load.files import MAX_FILE_BYTES

# The base of a project holds specs, not output; more than this is not a kgen project.
MAX_FILES = 20_000
MAX_TOTAL_BYTES = 64 * 1024 * 1024
TIMEOUT_SECONDS = 60
FETCH_HINT = (
    "fetch it first: in GitHub Actions, actions/checkout with `fetch-depth: 0`;"
    " elsewhere `git fetch origin <branch>`"
)


def git(root: Path, *args: str, data: bytes | None = None) -> bytes:
    """Run git in `root`; its output, or UsageError with what went wrong."""
    try:
        done = subprocess.run(
            ["git", "-C", os.fspath(root), *args],
            input=data,
            capture_output=True,
            timeout=TIMEOUT_SECONDS,
            check=False,
            env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"},
        )
    except FileNotFoundError:
        raise UsageError("--base needs git, which is not installed") from None
    except subprocess.TimeoutExpired:
        raise UsageError(f"git {args[0]} took more than {TIMEOUT_SECONDS} s") from None
    if done.returncode != 0:
        raise GitFailed(done.stderr.decode(errors="replace").strip())
    return done.stdout


class GitFailed(UsageError):
    """git exited non-zero."""


def resolve(root: Path, ref: str) -> str:
    """The commit `ref` names, or a usage error with a hint."""
    if not ref or ref.startswith("-") or not ref.isprintable():
        raise UsageError(f"--base '{printable(ref)}' is not a git revision")
    try:
        git(root, "rev-parse", "--is-inside-work-tree")
    except GitFailed:
        raise UsageError("--base needs a git repository; this is not one") from None
    try:
        out = git(
            root,
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            f"{ref}^{{commit}}",
        )
    except GitFailed:
        raise UsageError(
            f"--base '{printable(ref)}' is not a commit in this clone; {FETCH_HINT}"
        ) from None
    return out.decode().strip()


def merge_base(root: Path, branch: str) -> str:
    """The merge base of HEAD with `branch` (as the remote has it), for a pull request."""
    for candidate in (f"origin/{branch}", branch):
        try:
            commit = resolve(root, candidate)
            out = git(root, "merge-base", "--end-of-options", "HEAD", commit)
        except UsageError:
            continue
        return out.decode().strip()
    raise UsageError(
        f"cannot find the merge base with the target branch '{printable(branch)}';"
        f" {FETCH_HINT}"
    )


def export(root: Path, commit: str, *, skip: str) -> tempfile.TemporaryDirectory[str]:
    """The project folder at `commit` (the same path below the repository's top), as a
    temporary folder outside the project; `skip` (the output folder) is left out."""
    prefix = git(root, "rev-parse", "--show-prefix").decode().strip()
    # Only the project's folder: a monorepo's other trees are never listed.
    where = ["--", f":(literal){prefix}"] if prefix else []
    listing = git(
        root,
        "ls-tree",
        "-r",
        "-z",
        "-l",
        "--full-tree",
        "--end-of-options",
        commit,
        *where,
    )
    blobs = _regular_blobs(listing, prefix, skip)
    folder = tempfile.TemporaryDirectory(prefix="kgen-base-")
    try:
        _write(root, Path(folder.name), blobs)
    except BaseException:
        folder.cleanup()
        raise
    return folder


def _regular_blobs(
    listing: bytes, prefix: str, skip: str
) -> list[tuple[str, str, int]]:
    """(object id, path inside the project, size) of each regular file."""
    blobs, total = [], 0
    skipped = f"{skip.strip('/')}/"
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, _, raw_path = entry.partition(b"\t")
        mode, kind, oid, size = meta.split()
        path = raw_path.decode("utf-8", errors="surrogateescape")
        if kind != b"blob" or mode not in (b"100644", b"100755"):
            continue  # links, submodules: never followed in the base either
        if not path.startswith(prefix):
            continue
        inner = path.removeprefix(prefix)
        if inner.startswith((skipped, ".git/")) or not _plain(inner):
            continue
        if not size.isdigit():  # `git ls-tree -l` says BAD of a blob it lacks
            raise _missing(inner)
        total += min(int(size), MAX_FILE_BYTES + 1)
        blobs.append((oid.decode(), inner, int(size)))
        if len(blobs) > MAX_FILES or total > MAX_TOTAL_BYTES:
            raise UsageError(
                f"the base commit holds more than {MAX_FILES} files or"
                f" {MAX_TOTAL_BYTES >> 20} MiB beside the output folder"
            )
    return blobs


def _plain(path: str) -> bool:
    parts = path.split("/")
    return path.isprintable() and all(p not in ("", ".", "..") for p in parts)


def _write(root: Path, folder: Path, blobs: list[tuple[str, str, int]]) -> None:
    # A file over the loader's limit is written cut just past it, so the loader refuses
    # it as it would in the working tree, without reading it whole.
    contents = _cat(root, [oid for oid, _, size in blobs if size <= MAX_FILE_BYTES])
    too_large = b"#" * (MAX_FILE_BYTES + 1)
    for oid, inner, size in blobs:
        data = contents.get(oid, too_large if size > MAX_FILE_BYTES else None)
        if data is None:
            raise _missing(inner)
        target = folder / inner
        # A tree git holds need not fit this file system: a name over 255 bytes, a
        # file and a folder of one name in a hand-made tree.
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        except OSError as error:
            raise UsageError(
                f"the base commit holds '{shortened(printable(inner), 200)}', which"
                f" cannot be written here ({error.strerror}); compare with another base"
            ) from None


def _missing(inner: str) -> UsageError:
    return UsageError(
        f"the base commit's '{shortened(printable(inner), 200)}' is missing from this"
        f" clone (a partial or damaged clone); {FETCH_HINT}"
    )


def _cat(root: Path, oids: list[str]) -> dict[str, bytes]:
    """The contents of the blobs, in one `git cat-file --batch`."""
    if not oids:
        return {}
    out = git(
        root, "cat-file", "--batch", data="".join(f"{o}\n" for o in oids).encode()
    )
    contents, at = {}, 0
    for oid in oids:
        end = out.index(b"\n", at)
        header = out[at:end].split()
        if len(header) != 3 or not header[2].isdigit():  # `<oid> missing`
            at = end + 1
            continue
        size = int(header[2])
        contents[oid] = out[end + 1 : end + 1 + size]
        at = end + 1 + size + 1
    return contents
