"""Hostile inputs against what `kgen import` keeps as patches (issue 18): a manifest from
anywhere may carry thousands of fields no spec field says, nest them as deep as the
loader allows, and name them with escapes, slashes and secrets' names. Each is named
(a bounded number of times), never quoted, and kept only where `kgen build` can read
the patch back."""

from __future__ import annotations

from tests.hostile.case import Case

IMPORT = ("import", "manifest.yaml", "--out", "imported")


def _job(pod: str = "", container: str = "") -> str:
    """A PyTorchJob with `pod` lines in its Master's pod spec and `container` lines in
    its trainer (both indented by the caller's lines)."""
    return (
        "apiVersion: kubeflow.org/v1\n"
        "kind: PyTorchJob\n"
        "metadata: {name: left}\n"
        "spec:\n"
        "  pytorchReplicaSpecs:\n"
        "    Master:\n"
        "      replicas: 1\n"
        "      template:\n"
        "        spec:\n"
        f"{pod}"
        "          containers:\n"
        "            - name: pytorch\n"
        "              image: x:1\n"
        f"{container}"
    )


def _nested(depth: int) -> str:
    """An unknown pod field `depth` maps deep, in flow style (one line)."""
    return "          deep: " + "{a: " * depth + "1" + "}" * depth + "\n"


CASES: dict[str, Case] = {
    "import-left-thousands-of-unknown-fields": Case(
        {
            "manifest.yaml": _job(
                "".join(f"          f{i}: {i}\n" for i in range(5_000))
            )
        },
        args=IMPORT,
        expected_exit=0,
        about="kept as one patch, the first 100 named and the rest counted",
    ),
    "import-left-more-fields-than-a-patch-may-add": Case(
        {
            "manifest.yaml": _job(
                "".join(f"          f{i}: {i}\n" for i in range(12_000))
            )
        },
        args=IMPORT,
        about="a patch adds at most 10,000 values when built: refused at import, not kept",
    ),
    "import-left-nested-to-the-loader-limit": Case(
        {"manifest.yaml": _job(_nested(92))},
        args=IMPORT,
        about="loads, but the patch would sit three levels deeper than a spec may nest",
    ),
    "import-left-keys-with-escapes": Case(
        {
            "manifest.yaml": _job(
                '          "a/b~c": 1\n'
                '          "with.dot[0]": 2\n'
                '          "\\e[31mred\\u202e": 3\n',
                "              apiToken: hunter2-not-shown\n"
                "              stdin: true\n",
            )
        },
        args=IMPORT,
        expected_exit=1,
        about="keys named escaped and quoted where they would read as a path; the"
        " value under a secret's name never echoed; a key with an escape and a"
        " bidi override is refused, as kgen validate refuses it in the patch",
    ),
    "import-left-unmounted-claim-named-as-a-path": Case(
        {
            "manifest.yaml": _job()
            + "---\napiVersion: v1\nkind: PersistentVolumeClaim\n"
            + "metadata: {name: ../../../outside/x}\nspec: {}\n"
        },
        args=IMPORT,
        about="a claim no job creates goes to resources/ under its name: never a path",
    ),
}
