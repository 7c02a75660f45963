"""Benchmark 6 — memory: peak RSS of 100 vs 10,000 in-process rollouts.

Each measurement is a fresh subprocess that runs N rollouts and reports its peak resident set
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``), so nothing carries over between sizes. Two
workloads:

* ``core``  — ``run_task(env, task, "solver", write_artifacts=False)`` cycling over the six CRM
  tasks (results dropped as they come, as a training loop would);
* ``sweep`` — ``silo.batch.sweep.run_points`` for TASK-002 with every artifact written to a temporary
  folder (the in-process fast path ``silo-run ... runs=N`` uses).

The baseline RSS of a process that only imported the engine and loaded the environment is
printed too, so growth can be told apart from the fixed cost.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from _common import PYTHON, ROOT, Report, bench_env, header, parser, scratch

CHILD = r"""
import json, resource, sys, tempfile
from pathlib import Path
root = Path(sys.argv[1]); n = int(sys.argv[2]); mode = sys.argv[3]
sys.path.insert(0, str(root))
from silo.loading.environment import load_environment
from silo.rollout.run import run_task
env = load_environment("crm", root)
run_task(env, "TASK-002", "solver", project_dir=root, write_artifacts=False)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if mode == "core":
    tasks = list(env.tasks)
    for i in range(n):
        result = run_task(env, tasks[i % len(tasks)], "solver", project_dir=root,
                          write_artifacts=False)
        assert result.passed
elif mode == "sweep":
    from silo.rollout.run import Budget
    from silo.batch.sweep import Point, run_points
    point = Point("crm", "TASK-002", {"name": "solver"}, "solver", Budget(), 0)
    with tempfile.TemporaryDirectory(dir=sys.argv[4]) as tmp:
        outcomes = run_points([point], n, project_dir=root, group_dir=Path(tmp) / "g",
                              group_id="g", progress=False)
        assert all(o.passed for o in outcomes)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # before the folder is removed
if mode == "core":
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"baseKiB": base, "peakKiB": peak}))
"""


def measure(n: int, mode: str, work: Path) -> dict[str, int]:
    out = subprocess.run(
        [PYTHON, "-c", CHILD, str(ROOT), str(n), mode, str(work)],
        capture_output=True,
        text=True,
        env=bench_env(),
        cwd=ROOT,
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    args = parser(__doc__.splitlines()[0]).parse_args()
    header("bench_memory: peak RSS of 100 vs 10,000 in-process rollouts", args.quick)
    report = Report("memory", args)
    small, large = (10, 100) if args.quick else (100, 10_000)
    rows = []
    work = scratch("memory-")
    for mode in ("core", "sweep"):
        a, b = measure(small, mode, work), measure(large, mode, work)
        ratio = b["peakKiB"] / a["peakKiB"]
        rows.append(
            [
                mode,
                f"{a['baseKiB'] / 1024:.1f}",
                f"{a['peakKiB'] / 1024:.1f}",
                f"{b['peakKiB'] / 1024:.1f}",
                f"{ratio:.3f}",
            ]
        )
        report.figure(
            mode,
            {
                "small": small,
                "large": large,
                **{
                    "baseMiB": a["baseKiB"] / 1024,
                    "peakSmallMiB": a["peakKiB"] / 1024,
                    "peakLargeMiB": b["peakKiB"] / 1024,
                    "ratio": ratio,
                },
            },
        )
    shutil.rmtree(work, ignore_errors=True)
    report.print_table(
        ["workload", "after setup MiB", f"peak {small} MiB", f"peak {large:,} MiB", "ratio"],
        rows,
        title="peak RSS (ru_maxrss), one fresh process per cell",
    )
    for mode in ("core", "sweep"):
        report.ratio(
            f"peak_rss({large})/peak_rss({small}) [{mode}]", report.figures[mode]["ratio"], 1.2
        )
    report.done()


if __name__ == "__main__":
    sys.exit(main())
