"""Property tests: random valid specs and overlays always build, and what they build
passes the conformance oracle and keeps every value as written; builds are identical
bytes under another file order, hash seed, locale and working folder; random mutations
of a valid spec never crash kgen.

Example counts are small for `make test`; `make hardening` runs the `hardening`
profile (HYPOTHESIS_PROFILE=hardening) with many more.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgen.cli import main
from kgen.rules.credentials import leaks
from kgen.rules.secret_names import secret_name
from tests.conftest import SHARED
from tests.test_conformance import check_job

settings.register_profile(
    "default",
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "hardening",
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

KGEN_YAML = """\
environments:
  dev: {overlays: [cpu, tweak, v1], namespace: dev}
  prod: {overlays: [gpu, tweak, v1], namespace: prod}
  kf12: {overlays: [gpu, legacy], namespace: kubeflow}
  kf06: {overlays: [cpu, beta2]}
"""
FIXED_OVERLAYS = {
    "cpu": "patch:\n  resources: {gpu: null}\n",
    "gpu": "patch:\n  nodeSelector: {accelerator: l4}\n",
    "v1": "target: v1\n",
    "legacy": "target: v1-legacy\n",
    "beta2": "target: v1beta2\n",
}
# What kgen refuses in a value that reaches the output (kgen.rules.values).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _renderable(text: str) -> bool:
    """Text kgen renders as written: no control character but tab and line breaks, and
    nothing that reads as a credential."""
    return not _CONTROL.search(text) and not leaks(text)


names = st.from_regex(r"[a-z][a-z0-9]{0,10}", fullmatch=True)
env_names = st.from_regex(r"[A-Z][A-Z0-9_]{0,10}", fullmatch=True).filter(
    lambda n: not secret_name(n)
)
# Any text but what kgen refuses: values must reach the output unchanged, whatever
# their characters (quotes, unicode, line breaks, YAML syntax).
env_values = st.text(max_size=30).filter(_renderable)
label_values = st.from_regex(r"([a-z0-9]([-a-z0-9]{0,8}[a-z0-9])?)?", fullmatch=True)
cpu = st.sampled_from(["100m", "500m", "1", "2", "4"])
memory = st.sampled_from(["256Mi", "1Gi", "4Gi", "16Gi"])


@st.composite
def resources(draw: st.DrawFn) -> dict[str, Any]:
    mem = draw(memory)
    out: dict[str, Any] = {
        "requests": {"cpu": draw(cpu), "memory": mem},
        "limits": {"memory": mem},
    }
    gpu = draw(st.integers(0, 4))
    if gpu:
        out["gpu"] = gpu
    return out


@st.composite
def env_list(draw: st.DrawFn) -> list[dict[str, str]]:
    chosen = draw(st.lists(env_names, max_size=4, unique=True))
    return [{"name": n, "value": draw(env_values)} for n in chosen]


@st.composite
def specs(draw: st.DrawFn) -> dict[str, Any]:
    framework = draw(st.sampled_from(["pytorch", "tensorflow"]))
    spec: dict[str, Any] = {
        "framework": framework,
        "image": f"registry.example.com/{draw(names)}:{draw(st.sampled_from(['1.0', 'v2', 'rc-3']))}",
        "resources": draw(resources()),
    }
    if framework == "pytorch":
        roles: dict[str, Any] = {"master": {"replicas": 1}}
        if draw(st.booleans()):
            roles["worker"] = {"replicas": draw(st.integers(1, 16))}
    else:
        roles = {"worker": {"replicas": draw(st.integers(1, 16))}}
        if draw(st.booleans()):
            roles["ps"] = {"replicas": draw(st.integers(1, 4))}
        if draw(st.booleans()):
            roles["chief"] = {"replicas": 1}
    spec["roles"] = roles
    if draw(st.booleans()):
        spec["env"] = draw(env_list())
    if draw(st.booleans()):
        spec["labels"] = draw(st.dictionaries(names, label_values, max_size=3))
    if draw(st.booleans()):
        command = st.text(max_size=12).filter(lambda t: _renderable(t) and t[:1] != "-")
        spec["command"] = draw(st.lists(command, min_size=1, max_size=3))
    return spec


@st.composite
def tweaks(draw: st.DrawFn) -> dict[str, Any]:
    """An overlay that every environment applies after its own."""
    patch: dict[str, Any] = {}
    if draw(st.booleans()):
        patch["labels"] = draw(st.dictionaries(names, label_values, max_size=2))
    if draw(st.booleans()):
        patch["env"] = draw(env_list())
    if draw(st.booleans()):
        patch["resources"] = {"requests": {"cpu": draw(cpu)}}
    return {"patch": patch} if patch else {}


@st.composite
def projects(draw: st.DrawFn) -> dict[str, str]:
    files = {"kgen.yaml": KGEN_YAML}
    files |= {f"overlays/{name}.yaml": text for name, text in FIXED_OVERLAYS.items()}
    files["overlays/tweak.yaml"] = _as_yaml(draw(tweaks()))
    jobs = draw(st.lists(names, min_size=1, max_size=3, unique=True))
    for job in jobs:
        files[f"jobs/{job}.yaml"] = _as_yaml(draw(specs()))
    return files


def _as_yaml(data: Any) -> str:
    # JSON is YAML too, and says exactly which scalars are strings. Characters YAML
    # does not allow raw (DEL, C1 controls, U+FFFE) become \\u escapes, which both read.
    text = json.dumps(data, ensure_ascii=False)
    return "".join(c if _yaml_printable(c) else f"\\u{ord(c):04x}" for c in text)


def _yaml_printable(char: str) -> bool:
    code = ord(char)
    return (
        code in (0x09, 0x0A, 0x0D, 0x85)
        or 0x20 <= code <= 0x7E
        or 0xA0 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or code >= 0x10000
    )


def _write(root: Path, files: dict[str, str], *, reverse: bool = False) -> Path:
    for name in sorted(files, reverse=reverse):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(files[name], encoding="utf-8")
    return root


def _kgen(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue() + err.getvalue()


def _outputs(root: Path) -> dict[str, bytes]:
    out = root / "manifests"
    return {
        p.relative_to(out).as_posix(): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file()
    }


def _expected_env(files: dict[str, str], env: str, job: str) -> dict[str, str]:
    spec = yaml.safe_load(files[f"jobs/{job}.yaml"])
    tweak = yaml.safe_load(files["overlays/tweak.yaml"]).get("patch", {})
    if env not in ("dev", "prod"):  # the environments that apply the tweak overlay
        tweak = {}
    values = {v["name"]: v["value"] for v in spec.get("env", [])}
    values |= {v["name"]: v["value"] for v in tweak.get("env", [])}
    return values


@pytest.mark.skipif(not (SHARED / "crds").is_dir(), reason="needs ../shared CRDs")
@given(files=projects())
def test_random_valid_projects_build_and_conform(files: dict[str, str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = _write(Path(tmp), files)
        code, output = _kgen("--no-cache", "build", "-C", str(root))
        assert code == 0, output
        assert "Traceback" not in output
        built = _outputs(root)
        jobs = 0
        for name, data in built.items():
            if not name.endswith(".yaml"):
                continue  # the index
            doc = yaml.safe_load(data)
            if doc["kind"] not in ("PyTorchJob", "TFJob"):
                continue
            jobs += 1
            check_job(name, doc)
            # Every env value arrives exactly as written, whatever its characters.
            env, filename = name.split("/")
            job = filename.split(".")[0]
            replicas = next(
                v for k, v in doc["spec"].items() if k.endswith("ReplicaSpecs")
            )
            for role in replicas.values():
                container = role["template"]["spec"]["containers"][0]
                got = {e["name"]: e.get("value") for e in container.get("env", [])}
                for key, value in _expected_env(files, env, job).items():
                    assert got.get(key) == value, (name, key)
        assert jobs == 4 * sum(1 for f in files if f.startswith("jobs/"))


def _build_in_process(
    root: Path, *, cwd: Path, hash_seed: str, locale: str
) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-m", "kgen", "--no-cache", "build", "-C", str(root)],
        cwd=cwd,
        env={
            **os.environ,
            "PYTHONHASHSEED": hash_seed,
            "LC_ALL": locale,
            "LANG": locale,
        },
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, done.stderr


@settings(max_examples=4)
@given(files=projects())
def test_builds_are_identical_bytes_everywhere(files: dict[str, str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        first = _write(Path(tmp) / "a", files)
        second = _write(Path(tmp) / "b", files, reverse=True)
        one = _build_in_process(first, cwd=first, hash_seed="0", locale="C")
        two = _build_in_process(
            second, cwd=Path(tmp), hash_seed="4242", locale="C.UTF-8"
        )
        assert one[0] == two[0] == 0, one[1] + two[1]
        assert _outputs(first) == _outputs(second)


VALID = json.loads(
    json.dumps(
        {
            "framework": "pytorch",
            "image": "registry.example.com/train:1.0",
            "resources": {
                "requests": {"cpu": "1", "memory": "1Gi"},
                "limits": {"memory": "1Gi"},
            },
            "env": [{"name": "MODE", "value": "fast"}],
            "roles": {"master": {"replicas": 1}, "worker": {"replicas": 2}},
        }
    )
)
VALID_TEXT = yaml.safe_dump(VALID, sort_keys=False)


@st.composite
def mutations(draw: st.DrawFn) -> bytes:
    """The valid spec with a few random edits: bytes, lines, or values replaced."""
    data = bytearray(VALID_TEXT.encode())
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["insert", "delete", "replace", "line", "yaml"]))
        at = draw(st.integers(0, max(0, len(data) - 1)))
        if kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=4))
        elif kind == "delete" and data:
            del data[at : at + draw(st.integers(1, 8))]
        elif kind == "replace" and data:
            data[at] = draw(st.integers(0, 255))
        elif kind == "line":
            lines = bytes(data).split(b"\n")
            i, j = (
                draw(st.integers(0, len(lines) - 1)),
                draw(st.integers(0, len(lines) - 1)),
            )
            lines[i], lines[j] = lines[j], lines[i]
            data = bytearray(b"\n".join(lines))
        else:
            snippet = draw(
                st.sampled_from(
                    [
                        b"[",
                        b"{",
                        b"&a ",
                        b"*a",
                        b"!!str ",
                        b"~",
                        b"- ",
                        b": ",
                        b"\t",
                        b"'",
                        b'"',
                        b"---\n",
                        b"1e999",
                        b"-0",
                        b"0x10",
                        b".nan",
                        b"null",
                    ]
                )
            )
            data[at:at] = snippet
    return bytes(data)


@given(spec=mutations())
def test_mutated_specs_never_crash(spec: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = _write(
            Path(tmp),
            {
                "kgen.yaml": KGEN_YAML,
                **{f"overlays/{n}.yaml": t for n, t in FIXED_OVERLAYS.items()},
                "overlays/tweak.yaml": "{}",
            },
        )
        (root / "jobs").mkdir()
        (root / "jobs" / "train.yaml").write_bytes(spec)
        code, output = _kgen("--no-cache", "validate", "-C", str(root))
        assert code in (0, 1), output
        assert "Traceback" not in output and "internal error" not in output
        if code == 1:
            assert re.search(
                r"^jobs/train\.yaml:\d+:\d+: error: ", output, re.MULTILINE
            ), output
