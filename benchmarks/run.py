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
from floors import PYTHON, WRITE, Floors, floors_for
from generate import generate
from goals import Row
from scenarios import Paired, Project, kgen_figures, workers_beside_neighbour
from timing import Figure, Trash, Variant, alternate, measure

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


def load() -> str:
    """The load average: a busy machine shows here, and in every figure."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def core_rows(
    prefix: str,
    kgen: dict[str, Paired],
    floors: Floors,
    floor_figures: dict[str, Figure],
) -> list[Row]:
    def row(name: str, figure: str, at_most: float | None) -> Row:
        paired = kgen[figure]
        found = goals.against_floor(
            prefix + name,
            paired.figure,
            paired.floor_name,
            paired.floor,
            at_most=at_most,
        )
        return found._replace(figure=f"{found.figure}, {paired.peak_mb():.0f} MB")

    rebuild = kgen["rebuild, one spec edited"]
    return [
        goals.against_floor(
            f"{prefix}write floor ({floors.files:,} files, {floors.size / 1e6:.0f} MB)",
            floor_figures[WRITE],
            PYTHON,
            floor_figures[PYTHON],
            at_most=None,
        ),
        row("kgen build, cold", "cold build", 3),
        goals.within_seconds(
            f"{prefix}kgen build, one spec edited",
            rebuild.figure,
            rebuild.floor_name,
            rebuild.floor,
            at_most=0.4,
            note="AMD EPYC kind",
        )._replace(
            figure=f"{rebuild.figure.median_s:.3f} s, {rebuild.peak_mb():.0f} MB"
        ),
        row("kgen build --check, up to date, cache", "build --check, cache", 0.5),
        row("kgen build --check, up to date, no cache", "build --check, no cache", 1.5),
        row("kgen validate, one changed spec", "validate one changed spec", 6),
        row("kgen --version", "--version", None),
        goals.memory(
            f"{prefix}peak memory, every command",
            {name: paired.peak_mb() for name, paired in kgen.items()},
        ),
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
        cold = measure(
            project.kgen("build", before=project.cold),
            runs=runs,
            after=base.trash.empty,
        )
    folders = kustomize_side.set_up(project.manifests, work / "kustomize")
    compared = kustomize_side.check_same_objects(kubectl, project.manifests, folders)
    kustomize = measure(
        Variant(kustomize_side.command(kubectl, folders), cwd=work),
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


def project_figures(
    work: Path, name: str, jobs: int, trash: Trash, *, runs: int
) -> tuple[Project, Floors, dict[str, Figure], dict[str, Paired]]:
    """A project of `jobs` jobs, its floors alone, and every kgen figure with its floor."""
    project = new_project(work, name, jobs, trash)
    floor_work = work / f"{name}-floor"
    floor_work.mkdir()
    floors = floors_for(project.manifests, floor_work, trash=trash)
    alone = alternate(
        {WRITE: floors.write, PYTHON: floors.python}, runs=runs, after=trash.empty
    )
    return project, floors, alone, kgen_figures(project, floors, runs=runs)


def as_json(
    floors: Floors, alone: dict[str, Figure], kgen: dict[str, Paired]
) -> dict[str, object]:
    return {
        "files": floors.files,
        "bytes": floors.size,
        "floors": {name: figure.as_json() for name, figure in alone.items()},
        "kgen": {name: paired.as_json() for name, paired in kgen.items()},
    }


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
        "load before": load(),
    }
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as tmp:
        work = Path(tmp)
        trash = Trash(work / "trash")
        base, floors, alone, kgen = project_figures(
            work, "project", jobs, trash, runs=runs
        )
        rows += core_rows("", kgen, floors, alone)
        results[f"at {jobs}"] = as_json(floors, alone, kgen)
        workers = workers_beside_neighbour(base, runs=runs)
        rows.append(
            goals.not_slower(
                "cold build beside a CPU-bound neighbour",
                workers["2 workers"],
                workers["1 worker"],
            )
        )
        results["workers_beside_neighbour"] = {
            name: fig.as_json() for name, fig in workers.items()
        }
        k_rows, results["kustomize"] = kustomize_row(
            work, base, kgen["cold build"].figure, runs=runs
        )
        rows += k_rows
        if scale:
            scale_runs = setting("BENCH_SCALE_RUNS", 3)
            _, large_floors, large_alone, large = project_figures(
                work, "scale", scale, trash, runs=scale_runs
            )
            rows += core_rows(f"{scale:,}: ", large, large_floors, large_alone)
            rows.append(
                goals.per_job(
                    "time per job, cold build",
                    large["cold build"].figure,
                    scale,
                    kgen["cold build"].figure,
                    jobs,
                )
            )
            checks = ("build --check, cache", "build --check, no cache")
            rows.append(
                goals.memory(
                    f"{scale:,}: build --check memory",
                    {name: large[name].peak_mb() for name in checks},
                )
            )
            results[f"at {scale}"] = as_json(large_floors, large_alone, large)
        results["load after"] = load()
        failed = report(results, rows)
        print(f"removing what the runs wrote under {work} ...", flush=True)
    return 1 if failed and os.environ.get("BENCH_STRICT") == "1" else 0


def report(results: dict[str, object], rows: list[Row]) -> int:
    """Write results.json, print the table; the number of goals failed."""
    results["goals"] = [row.as_json() for row in rows]
    (OUT / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    print(
        f"{results['jobs']:,} jobs x 4 environments, medians of {results['runs']} runs,"
        f" {results['cpus']} CPUs ({results['cpu']}), Python {results['python']};"
        f" load average {results['load before']} before, {results['load after']} after"
    )
    print(goals.table(rows))
    failed = sum(row.passed is False for row in rows)
    print(f"{failed} of {sum(row.passed is not None for row in rows)} goals failed")
    return failed


if __name__ == "__main__":
    sys.exit(main())
