"""`make bench`: whole-process timings of kgen on a synthetic project, and kustomize on
the same work. Medians over RUNS counted runs after one warm-up, with peak memory (the
child's own maxrss from wait4). Prints a table; writes benchmarks/out/results.json.

Targets (issue 6, on a 2-core machine): cold build of 1,000 jobs x 4 environments <= 5 s
and >= 15x faster than kustomize; up-to-date `build --check` <= 1.5 s; `validate` of one
changed spec <= 0.6 s; `--version` <= 0.15 s; peak memory <= 400 MB for the cold build;
time per job at 1,000 no more than 1.25x that at 100.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import generate

RUNS = int(os.environ.get("BENCH_RUNS", "5"))
JOBS = int(os.environ.get("BENCH_JOBS", "1000"))
KGEN = [sys.executable, "-m", "kgen"]
OUT = Path(__file__).resolve().parent / "out"


def measure(
    command: list[str], *, cwd: Path, before: Callable[[], None] | None = None
) -> dict[str, float]:
    """Median wall seconds and peak RSS (MB) of RUNS runs after a warm-up."""
    walls, peaks = [], []
    for run in range(RUNS + 1):
        if before is not None:
            before()
        start = time.perf_counter()
        proc = subprocess.Popen(
            command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{' '.join(command)} failed")
        if run:
            walls.append(wall)
            peaks.append(usage.ru_maxrss / 1024)
    return {
        "median_s": round(statistics.median(walls), 3),
        "min_s": round(min(walls), 3),
        "max_s": round(max(walls), 3),
        "peak_mb": round(max(peaks), 1),
    }


def kustomize_setup(project: Path, work: Path) -> list[Path]:
    """Bases from kgen's own output for one environment; one overlay per environment
    setting the namespace, an image tag and a JSON 6902 patch of worker replicas."""
    base = work / "base"
    shutil.copytree(project / "manifests" / "prod-gpu", base)
    jobs = sorted(p.name for p in base.glob("*.pytorchjob.yaml"))
    overlays = []
    for index in range(4):
        overlay = work / f"overlay-{index}"
        overlay.mkdir()
        patches = "".join(
            f"- target: {{group: kubeflow.org, version: v1, kind: PyTorchJob, name: {name.split('.')[0]}}}\n"
            f"  patch: |-\n    - op: replace\n      path: /spec/pytorchReplicaSpecs/Worker/replicas\n      value: {index + 2}\n"
            for name in jobs
        )
        (overlay / "kustomization.yaml").write_text(
            f"resources: [../base]\nnamespace: env-{index}\n"
            f"images:\n- name: registry.example.com/ml/train-1\n  newTag: bench-{index}\n"
            f"patches:\n{patches}"
        )
        overlays.append(overlay)
    return overlays


def main() -> None:
    OUT.mkdir(exist_ok=True)
    results: dict[str, object] = {
        "jobs": JOBS,
        "runs": RUNS,
        "cpus": len(os.sched_getaffinity(0)),
        "python": sys.version.split()[0],
    }
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        generate(project, JOBS)
        cache = Path(tmp) / "cache"
        trash = Path(tmp) / "trash"
        trash.mkdir()
        moved = iter(range(1_000_000))
        os.environ["KGEN_CACHE_DIR"] = str(cache)

        def cold_start(root: Path) -> Callable[[], None]:
            def clean() -> None:
                # Moved aside, not deleted: deleting 12,000 files just before a run
                # would time the disk's catching up, not kgen.
                for folder in (root / "manifests", cache):
                    if folder.exists():
                        folder.rename(trash / f"{next(moved)}")

            return clean

        def no_cache() -> None:
            if cache.exists():
                cache.rename(trash / f"{next(moved)}")

        edits = iter(range(1_000_000))

        def change_one_spec() -> None:
            # A different comment each run: the spec's bytes are new every time.
            with open(project / "jobs" / "job-00007.yaml", "a") as handle:
                handle.write(f"# edit {next(edits)}\n")

        # 1. Cold: empty output root and empty cache.
        cold = measure([*KGEN, "build"], cwd=project, before=cold_start(project))
        results["cold_build"] = cold
        # 2. No-op CI run on an up-to-date tree: with the cache a previous run left
        #    (the incremental path), and from a clean clone without one.
        subprocess.run([*KGEN, "build"], cwd=project, check=True, capture_output=True)
        results["check_up_to_date"] = measure([*KGEN, "build", "--check"], cwd=project)
        results["check_up_to_date_no_cache"] = measure(
            [*KGEN, "build", "--check"], cwd=project, before=no_cache
        )
        # 3. Pre-commit: validate the one spec that changed.
        subprocess.run([*KGEN, "build"], cwd=project, check=True, capture_output=True)
        results["validate_one_spec"] = measure(
            [*KGEN, "validate", "jobs/job-00007.yaml"],
            cwd=project,
            before=change_one_spec,
        )
        # 4. Start-up.
        results["version"] = measure([*KGEN, "--version"], cwd=project)
        # 6. Scaling: the same cold build at a tenth of the jobs.
        small = Path(tmp) / "small"
        generate(small, JOBS // 10)
        tenth = measure([*KGEN, "build"], cwd=small, before=cold_start(small))
        results["cold_build_tenth"] = tenth
        per_job = cold["median_s"] / JOBS
        results["scaling_ratio"] = round(
            per_job / (tenth["median_s"] / (JOBS // 10)), 2
        )
        kubectl = shutil.which("kubectl")
        if kubectl:
            overlays = kustomize_setup(project, Path(tmp) / "kustomize")
            script = " && ".join(
                f"{kubectl} kustomize {o} > /dev/null" for o in overlays
            )
            kustomize = measure(["sh", "-c", script], cwd=project)
            results["kustomize_4_envs"] = kustomize
            results["kustomize_over_kgen"] = round(
                kustomize["median_s"] / cold["median_s"], 1
            )
    (OUT / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    for name, value in results.items():
        print(f"{name:22} {value}")


if __name__ == "__main__":
    main()
