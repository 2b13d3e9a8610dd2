"""The README and docs/ hold together: every relative link and #anchor resolves, the
architecture page names every package of kgen/ (the same names `ls kgen/` shows), and
the kinds page names the targets the kind registry serves."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```.*?^```", re.M | re.S)
_CODE = re.compile(r"`[^`\n]*`")


def _prose(text: str) -> str:
    """`text` without code blocks and code spans, where brackets are not links."""
    return _CODE.sub("", _FENCE.sub("", text))


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation but `-` and `_`
    dropped, spaces as `-`."""
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    seen: Counter[str] = Counter()
    found = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.M):
        slug = _slug(heading)
        found.add(f"{slug}-{seen[slug]}" if seen[slug] else slug)
        seen[slug] += 1
    return found


def broken_links(page: Path) -> list[str]:
    broken = []
    for target in _LINK.findall(_prose(page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists() or (
            anchor and (linked.suffix != ".md" or anchor not in anchors(linked))
        ):
            broken.append(target)
    return broken


@pytest.mark.parametrize(
    "page", PAGES, ids=[p.relative_to(REPO).as_posix() for p in PAGES]
)
def test_every_relative_link_resolves(page: Path):
    assert broken_links(page) == []


def test_a_broken_link_or_anchor_is_found(tmp_path: Path):
    (tmp_path / "other.md").write_text("# Other page\n\n## A `code` heading, too\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](other.md) [ok](other.md#a-code-heading-too) [ok](#here)\n"
        "[gone](missing.md) [no anchor](other.md#nowhere) [web](https://example.com)\n"
        "`[not a link](nowhere.md)`\n\n## Here\n"
    )
    assert broken_links(page) == ["missing.md", "other.md#nowhere"]


def test_the_readme_is_a_short_front_door():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    # The two set-up commands come first.
    assert readme.split("```sh\n", 1)[1].startswith("make build ")
    assert "\nmake test " in readme.split("```", 3)[1]


def test_the_architecture_names_every_package():
    page = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    packages = sorted(
        p.name for p in (REPO / "kgen").iterdir() if (p / "__init__.py").exists()
    )
    assert packages  # the check can fail
    assert [p for p in packages if f"`kgen/{p}/`" not in page] == []


def _kind_rows() -> dict[str, str]:
    """docs/kinds.md's table: each kind's targets cell as written, without the
    parenthesised remarks and the code marks."""
    page = (REPO / "docs" / "kinds.md").read_text(encoding="utf-8")
    rows = {}
    for line in page.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 6 and cells[1] and cells[1][0].isupper():
            targets = re.sub(r"\s*\([^)]*\)", "", cells[5]).replace("`", "")
            rows[cells[1].split()[0]] = targets
    return rows


def test_the_kinds_page_names_the_targets_the_registry_serves():
    from kgen.kinds import ALL_KINDS
    from kgen.kinds.target_names import named_targets

    rows = _kind_rows()
    assert rows == {kind.kind: named_targets(kind.targets) for kind in ALL_KINDS}


def _check_jsonschema_command() -> list[str]:
    page = (REPO / "docs" / "linting.md").read_text(encoding="utf-8")
    (command,) = re.findall(r"`(check-jsonschema [^`]*)`", page)
    return command.split()


def _target_of(env: str) -> str:
    """The target of a kgen.yaml environment: the last of its overlays that sets one."""
    project = yaml.safe_load((REPO / "kgen.yaml").read_text(encoding="utf-8"))
    settings = project["environments"][env]
    overlays = settings["overlays"] if isinstance(settings, dict) else settings
    target = "v1"
    for name in overlays:
        overlay = yaml.safe_load((REPO / "overlays" / f"{name}.yaml").read_text())
        target = overlay.get("target", target)
    return str(target)


def test_the_linting_page_checks_an_environment_with_its_target_schema():
    _, option, schema, pattern = _check_jsonschema_command()
    assert option == "--schemafile"
    _, env, files = pattern.split("/")
    kind = files.removeprefix("*.").removesuffix(".yaml")
    assert schema == f"schemas/{kind}-{_target_of(env)}.schema.json"
    assert (REPO / schema).is_file()
    assert list(REPO.glob(pattern))


@pytest.mark.skipif(
    shutil.which("check-jsonschema") is None, reason="check-jsonschema not installed"
)
def test_the_linting_page_check_jsonschema_command_passes():
    *command, pattern = _check_jsonschema_command()
    files = sorted(str(p.relative_to(REPO)) for p in REPO.glob(pattern))
    done = subprocess.run(
        [*command, *files], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


# The Kubeflow Trainer release each Kubeflow release installs (kubeflow-api.md §1 and
# §9: manifests@v1.11.0 example/kustomization.yaml installs Trainer 2.1).
TRAINER_OF_KUBEFLOW = {"1.11": "2.1"}


@pytest.mark.parametrize(
    "overlay",
    sorted((REPO / "overlays").glob("trainer-v*.yaml")),
    ids=lambda p: p.name,
)
def test_a_trainer_overlay_names_the_kubeflow_release_that_installs_it(overlay: Path):
    data = yaml.safe_load(overlay.read_text(encoding="utf-8"))
    version = data["target"].removeprefix("trainer-v")
    said = data["description"]
    assert said.startswith(f"Kubeflow Trainer {version}")
    for release in re.findall(r"Kubeflow (1\.\d+) and later", said):
        assert TRAINER_OF_KUBEFLOW[release] == version, said
    for release in re.findall(r"what Kubeflow (1\.\d+) installs", said):
        assert TRAINER_OF_KUBEFLOW[release] == version, said
    for release, installed in re.findall(r"Kubeflow (1\.\d+) installs (\d\.\d+)", said):
        assert TRAINER_OF_KUBEFLOW[release] == installed, said
