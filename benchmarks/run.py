"""`make bench`: kgen timed as whole processes on a generated project, each figure set
against floors measured in the same run (writing the same files from memory; a bare
`python -c pass`), and kustomize timed on the same work after its output was found
equal to kgen's, object by object. Prints the table of goals; writes
benchmarks/out/results.json.

Settings (environment variables):
  BENCH_JOBS=1000           jobs in the generated project (x 4 environments)
  BENCH_RUNS=5              counted runs per figure, after one warm-up; the median counts
  BENCH_SCALE=0             also run at this many jobs (10000 for the scaling goals; long)
  BENCH_SCALE_RUNS=3        counted runs per figure at BENCH_SCALE
  BENCH_KUSTOMIZE_JOBS=200  jobs for the kustomize comparison; 0 skips it (so does no
                            kubectl); kustomize takes about a minute per environment at
                            1,000 jobs, hence the smaller default
  BENCH_KUSTOMIZE_RUNS=1    counted kustomize runs (the comparison run is the warm-up)
  BENCH_DIR                 where the projects go (default: the system's temp folder)
  BENCH_STRICT=1            exit 1 when a goal fails
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import goals
import kustomize_side
from floors import Floors, python_floor, snapshot, write_floor
from generate import generate
from goals import Row
from scenarios import Project, kgen_figures, workers_beside_neighbour
from timing import Figure, Trash, measure

OUT = Path(__file__).resolve().parent / "out"


def setting(name: str, default: int) -> int:
    return int(os.environ.get(name, str(default)))


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def new_project(work: Path, name: str, jobs: int, trash: Trash) -> Project:
    generate(work / name, jobs)
    project = Project(work / name, jobs=jobs, trash=trash)
    project.build()
    return project


def floors_of(project: Project, work: Path, *, runs: int) -> Floors:
    """The write floor for this project's output tree, and the interpreter floor."""
    blob = work / f"{project.root.name}.tree"
    files, size = snapshot(project.manifests, blob)
    dest = work / f"{project.root.name}-floor"
    dest.mkdir()
    return Floors(
        files=files,
        size=size,
        write=write_floor(blob, dest / "out", runs=runs, trash=project.trash),
        python=python_floor(work, runs=runs),
    )


def core_rows(prefix: str, kgen: dict[str, Figure], floors: Floors) -> list[Row]:
    write, python = floors.write, floors.python
    return [
        goals.against_floor(
            f"{prefix}write floor ({floors.files:,} files, {floors.size / 1e6:.0f} MB)",
            write,
            "python -c pass",
            python,
            at_most=None,
        ),
        goals.against_floor(
            f"{prefix}kgen build, cold", kgen["cold build"], "write", write, at_most=3
        ),
        goals.within_seconds(
            f"{prefix}kgen build, one spec edited",
            kgen["rebuild, one spec edited"],
            "write",
            write,
            at_most=0.4,
            note="AMD EPYC kind",
        ),
        goals.against_floor(
            f"{prefix}kgen build --check, up to date, cache",
            kgen["build --check, cache"],
            "write",
            write,
            at_most=0.5,
        ),
        goals.against_floor(
            f"{prefix}kgen build --check, up to date, no cache",
            kgen["build --check, no cache"],
            "write",
            write,
            at_most=1.5,
        ),
        goals.against_floor(
            f"{prefix}kgen validate, one changed spec",
            kgen["validate one changed spec"],
            "python",
            python,
            at_most=6,
        ),
        goals.against_floor(
            f"{prefix}kgen --version", kgen["--version"], "python", python, at_most=None
        ),
        goals.memory(f"{prefix}peak memory, every command", kgen),
    ]


def kustomize_row(
    work: Path, base: Project, base_cold: Figure, *, runs: int
) -> tuple[list[Row], dict[str, object]]:
    """kustomize's 4 overlays against kgen's cold build of the same jobs."""
    kubectl = shutil.which("kubectl")
    jobs = setting("BENCH_KUSTOMIZE_JOBS", 200)
    if kubectl is None or jobs <= 0:
        reason = "no kubectl" if kubectl is None else "BENCH_KUSTOMIZE_JOBS=0"
        return [], {"skipped": reason}
    project, cold = base, base_cold
    if jobs != base.jobs:
        project = new_project(work, "kustomize-project", jobs, base.trash)
        cold = project.time("build", runs=runs, before=project.cold)
    folders = kustomize_side.set_up(project.manifests, work / "kustomize")
    compared = kustomize_side.check_same_objects(kubectl, project.manifests, folders)
    kustomize = measure(
        kustomize_side.command(kubectl, folders),
        cwd=work,
        runs=setting("BENCH_KUSTOMIZE_RUNS", 1),
        warm_up=False,
    )
    name = f"kubectl kustomize, 4 overlays ({jobs:,} jobs, {compared:,} objects equal)"
    row = goals.against_floor(name, kustomize, "kgen cold", cold, at_most=None)
    info = {
        "jobs": jobs,
        "objects_compared": compared,
        "kustomize": kustomize.as_json(),
        "kgen_cold_build": cold.as_json(),
    }
    return [row], info


def main() -> int:
    jobs, runs = setting("BENCH_JOBS", 1000), setting("BENCH_RUNS", 5)
    scale = setting("BENCH_SCALE", 0)
    OUT.mkdir(exist_ok=True)
    results: dict[str, object] = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "cpu": cpu_model(),
        "cpus": len(os.sched_getaffinity(0)),
        "python": sys.version.split()[0],
        "jobs": jobs,
        "runs": runs,
    }
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as tmp:
        work = Path(tmp)
        trash = Trash(work / "trash")
        base = new_project(work, "project", jobs, trash)
        floors = floors_of(base, work, runs=runs)
        kgen = kgen_figures(base, runs=runs)
        rows += core_rows("", kgen, floors)
        workers = workers_beside_neighbour(base, runs=runs)
        rows.append(
            goals.not_slower(
                "cold build beside a CPU-bound neighbour",
                workers["2 workers"],
                workers["1 worker"],
            )
        )
        k_rows, k_info = kustomize_row(work, base, kgen["cold build"], runs=runs)
        rows += k_rows
        results["kustomize"] = k_info
        results["floors"] = floors.as_json()
        results["kgen"] = {name: fig.as_json() for name, fig in kgen.items()}
        results["workers_beside_neighbour"] = {
            name: fig.as_json() for name, fig in workers.items()
        }
        if scale:
            large = new_project(work, "scale", scale, trash)
            scale_runs = setting("BENCH_SCALE_RUNS", 3)
            large_floors = floors_of(large, work, runs=scale_runs)
            large_kgen = kgen_figures(large, runs=scale_runs)
            rows += core_rows(f"{scale:,}: ", large_kgen, large_floors)
            rows.append(
                goals.per_job(
                    "time per job, cold build",
                    large_kgen["cold build"],
                    scale,
                    kgen["cold build"],
                    jobs,
                )
            )
            checks = ("build --check, cache", "build --check, no cache")
            rows.append(
                goals.memory(
                    f"{scale:,}: build --check memory",
                    {name: large_kgen[name] for name in checks},
                )
            )
            results["scale"] = {
                "jobs": scale,
                "runs": scale_runs,
                "floors": large_floors.as_json(),
                "kgen": {name: fig.as_json() for name, fig in large_kgen.items()},
            }
    results["goals"] = [row.as_json() for row in rows]
    (OUT / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    print(
        f"{jobs:,} jobs x 4 environments, medians of {runs} runs, {results['cpus']} CPUs"
        f" ({results['cpu']}), Python {results['python']}"
    )
    print(goals.table(rows))
    failed = [row.name for row in rows if row.passed is False]
    print(
        f"{len(failed)} of {sum(row.passed is not None for row in rows)} goals failed"
    )
    return 1 if failed and os.environ.get("BENCH_STRICT") == "1" else 0


if __name__ == "__main__":
    sys.exit(main())
