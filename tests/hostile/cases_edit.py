"""Hostile journals: what a pull request can plant where a build that writes a few
files in place keeps its journal (kgen.output.journal), beside the output root.

A journal only says which staged files to rename into the output root; recovery
trusts an entry only if the staged file's lstat is the journal's to the nanosecond,
which nobody can plant. tests/test_journal.py checks for every case here that nothing
outside the project changed and no planted text reached the output.
"""

from __future__ import annotations

from tests.hostile.case import OUTSIDE_DIR, OUTSIDE_FILE, Case, Content, Fifo, Link

BUILD = ("build",)
STAGING = ".manifests.kgen-new-1"
# An lstat as kgen packs it (kgen.output.scan): 44 bytes, here all zero.
A_STAT = "00" * 44
PLANTED = "planted: 1\n"


def _journal(*paths: str, kind: str = "put") -> str:
    return "[" + ", ".join(f'["{kind}", "{path}", "{A_STAT}"]' for path in paths) + "]"


def _staged(journal: Content, **more: Content) -> dict[str, Content]:
    """A marked staging folder holding `journal`, a staged file for it, and the
    user's own file in the output root that the journal would replace."""
    return {
        "manifests/dev/notes.yaml": "mine: 1\n",
        f"{STAGING}/kgen-staging": "x\n",
        f"{STAGING}/journal": journal,
        f"{STAGING}/tree/dev/notes.yaml": PLANTED,
        **{f"{STAGING}/{name}": content for name, content in more.items()},
    }


CASES: dict[str, Case] = {
    "planted-journal": Case(
        _staged(_journal("dev/notes.yaml", "dev/train.pytorchjob.yaml")),
        args=BUILD,
        expected_exit=0,
        about="its entries match no staged file kgen made: ignored, the folder removed",
    ),
    "planted-journal-removes": Case(
        _staged(_journal("dev/notes.yaml", "dev/kustomization.yaml", kind="remove")),
        args=BUILD,
        expected_exit=0,
        about="its entries match no file of the tree: nothing removed",
    ),
    "journal-points-outside-the-output": Case(
        _staged(
            _journal(
                "../outside/secret.yaml",
                "/etc/passwd",
                "dev/../../outside/x.yaml",
                "dev/a/b.yaml",
                "",
            )
        ),
        args=BUILD,
        expected_exit=0,
    ),
    "journal-staged-tree-is-a-link-out": Case(
        {
            "manifests/dev/notes.yaml": "mine: 1\n",
            f"{STAGING}/kgen-staging": "x\n",
            f"{STAGING}/journal": _journal("dev/secret.yaml"),
            f"{STAGING}/tree": Link(OUTSIDE_DIR),
        },
        args=BUILD,
        expected_exit=0,
        about="never followed: the folder is removed, the link with it",
    ),
    "journal-is-a-link-out": Case(
        _staged(Link(OUTSIDE_FILE)), args=BUILD, expected_exit=0
    ),
    "journal-is-a-fifo": Case(
        _staged(Fifo()), args=BUILD, expected_exit=0, about="never opened blocking"
    ),
    "journal-is-not-a-list": Case(
        _staged('{"dev/notes.yaml": 1}'), args=BUILD, expected_exit=0
    ),
    "journal-entry-of-another-kind": Case(
        _staged(_journal("dev/notes.yaml", kind="link")), args=BUILD, expected_exit=0
    ),
    "journal-is-garbage": Case(_staged(b"\xff\xfe[[\x00"), args=BUILD, expected_exit=0),
}
