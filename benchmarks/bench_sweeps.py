"""Benchmark 5 — sweeps: CRM × solver rollouts per second with every artifact written.

Variants, each a real ``silo-run`` subprocess (and ``run_points`` in a fresh process):

* ``fast path``  — ``silo-run env=crm task=TASK-002 runs=N``: one composition, every rollout in
  one process (``silo.batch.sweep.run_points``), then the group summary; pinned to one CPU ("on one
  core"). Reported as N / wall, as the marginal rate (N - n0) / (wall(N) - wall(n0)) against a
  small run timed alongside (start-up and composition cancel out), and as ``run_points`` alone
  in a fresh process (no start-up, no Hydra, no summary). Also unpinned, and ``task=all``.
* ``basic``      — ``silo-run -m env=crm task=TASK-002 '+rep=range(0,M)'``: one Hydra job per
  rollout, run in sequence by Hydra's basic launcher, swept by silo-run's default sweeper
  (``hydra/sweeper=silo``: one composition per job, in the launcher).
* ``joblib x2``  — the same multirun with ``hydra/launcher=joblib hydra.launcher.n_jobs=2``
  (the hydra-joblib-launcher plugin as it is; Silo's sweeper sets its ``batch_size: auto`` to
  8 jobs a joblib batch here, see ``silo/cli/hydra/launchers.py``). ``--one-job-batches`` also
  runs it with ``hydra.launcher.batch_size=1``, which is what joblib's own adaptive batching
  gave for these jobs (the before/after comparison of that choice).
  ``--launcher-repeat R`` runs each launcher R times, alternating them, and reports medians;
  ``--hydra-sweeper`` also runs both with Hydra's own ``hydra/sweeper=basic`` (which composes
  every job once more, serially, in the parent) for the before/after comparison. Each launcher
  row gives the CPU time of the run (all its processes) per rollout, and the load average is
  printed before and after: the machine is shared, and a busy neighbour takes a core from the
  two workers, not from the basic launcher.

Where the artifacts go: ``runs_dir`` is on tmpfs (``/dev/shm``) when there is one, so the
figures are Silo's cost of writing them (every file is still created, written and renamed;
only the disk is taken out), and the fast path is also run on the project disk
(``.silo/bench``) for the record. On the virtual machine these figures come from, the cost of
creating a file on disk varied tenfold within the hour (20 µs to 250 µs), which would make the
disk rows a measure of the disk. Launchers use M = 1,000 jobs by default, the issue's size
(about 40-70 s each here; ``--launcher-jobs 200`` for a quicker look); rates are per second
either way.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
from pathlib import Path

from _common import (
    PYTHON,
    ROOT,
    Report,
    bench_env,
    bin_path,
    header,
    median,
    parser,
    pinned_preexec,
    scratch,
    wall,
)

CRM_TASKS = len(list((ROOT / "environments" / "crm" / "tasks").glob("*.json")))


def silo_run(args: list[str], runs_dir: Path, cpu: int | None = None) -> float:
    return wall(
        [bin_path("silo-run"), *args, f"runs_dir={runs_dir}", "progress=false"],
        cwd=ROOT,
        env=bench_env(),
        cpu=cpu,
    )


def timed_sweep(args: list[str], runs_dir: Path, jobs: int) -> tuple[float, float]:
    """Wall seconds and CPU seconds (this multirun's processes, workers included) of a sweep."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = silo_run(args, runs_dir)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert count_runs(runs_dir) == jobs, f"{' '.join(args)}: wrong number of runs"
    shutil.rmtree(runs_dir, ignore_errors=True)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu


def count_runs(runs_dir: Path) -> int:
    return sum(1 for _ in runs_dir.glob("**/result.json"))


IN_PROCESS = r"""
import sys, time
from pathlib import Path
root, n, work = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
from silo.rollout.run import Budget
from silo.batch.sweep import Point, run_points
point = Point("crm", "TASK-002", {"name": "solver"}, "solver", Budget(), 0)
run_points([point], 20, project_dir=root, group_dir=work / "warm", group_id="w", progress=False)
start = time.perf_counter()
outcomes = run_points([point], n, project_dir=root, group_dir=work / "g", group_id="g",
                      progress=False)
elapsed = time.perf_counter() - start
assert all(o.passed for o in outcomes)
print(n / elapsed)
"""


def in_process_rate(n: int, workdir: Path, cpu: int | None) -> float:
    """``run_points`` throughput in a fresh process (pinned to ``cpu``), summary excluded."""
    workdir.mkdir(parents=True, exist_ok=True)
    out = subprocess.run(
        [PYTHON, "-c", IN_PROCESS, str(ROOT), str(n), str(workdir)],
        capture_output=True,
        text=True,
        env=bench_env(),
        cwd=ROOT,
        check=True,
        preexec_fn=pinned_preexec(cpu),
    )
    return float(out.stdout.strip().splitlines()[-1])


def fast_path(
    n: int, n0: int, repeat: int, root: Path, cpu: int | None, task: str = "TASK-002"
) -> tuple[float, float]:
    """Median wall of ``silo-run ... runs=n`` and the marginal rate against ``runs=n0``."""
    walls_n, walls_0 = [], []
    for i in range(repeat):
        d = root / f"fast{i}"
        walls_n.append(silo_run(["env=crm", f"task={task}", f"runs={n}"], d, cpu))
        assert count_runs(d) == n * (CRM_TASKS if task == "all" else 1), (
            "fast path: wrong run count"
        )
        shutil.rmtree(d, ignore_errors=True)
        d0 = root / f"small{i}"
        walls_0.append(silo_run(["env=crm", f"task={task}", f"runs={n0}"], d0, cpu))
        shutil.rmtree(d0, ignore_errors=True)
    w_n, w_0 = median(walls_n), median(walls_0)
    return w_n, (n - n0) / (w_n - w_0)


def main() -> None:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=1000, help="rollouts of the fast path")
    p.add_argument("--launcher-jobs", type=int, default=1000, help="jobs of each multirun")
    p.add_argument("--repeat", type=int, default=3, help="repetitions of each fast-path run")
    p.add_argument(
        "--launcher-repeat", type=int, default=1, help="runs of each launcher, alternated"
    )
    p.add_argument(
        "--one-job-batches",
        action="store_true",
        help="also run joblib with 1 job a batch (joblib's adaptive batching for these jobs)",
    )
    p.add_argument(
        "--hydra-sweeper",
        action="store_true",
        help="also run both launchers with Hydra's basic sweeper (the former default)",
    )
    args = p.parse_args()
    if args.quick:
        args.runs, args.launcher_jobs, args.repeat, args.launcher_repeat = 6, 2, 1, 1
    header("bench_sweeps: rollouts per second with all four artifacts written", args.quick)
    cpu = max(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    report = Report("sweeps", args)
    n, m, n0 = args.runs, args.launcher_jobs, max(2, min(20, args.runs // 10))
    disk = scratch("sweeps-")
    memory = tmpfs_scratch()
    where = memory or disk
    print(
        f"fast path: pinned to CPU {cpu} (one core); launchers: unpinned (2 cores)\n"
        f"runs_dir: {where} ({'tmpfs' if memory else 'project disk'})"
        + (f"; and {disk} (project disk) for the disk rows" if memory else "")
        + "\n"
    )
    rows: list[list[object]] = []
    try:
        rate_inproc = in_process_rate(n, where / "inproc", cpu)
        shutil.rmtree(where / "inproc", ignore_errors=True)
        w_n, fast_marginal = fast_path(n, n0, args.repeat, where, cpu)
        fast_e2e = n / w_n
        label = "tmpfs" if memory else "disk"
        rows.append(
            [
                f"fast path, {label}",
                n,
                f"{w_n:.2f}",
                f"{fast_e2e:,.0f}",
                f"{fast_marginal:,.0f}",
                f"{rate_inproc:,.0f}",
            ]
        )
        extra: dict[str, float] = {}
        if not args.quick:  # more variants for the record, not for the smoke test
            if memory:
                r_disk = in_process_rate(n, disk / "inproc", cpu)
                shutil.rmtree(disk / "inproc", ignore_errors=True)
                w_disk, marg_disk = fast_path(n, n0, 1, disk, cpu)
                rows.append(
                    [
                        "fast path, project disk",
                        n,
                        f"{w_disk:.2f}",
                        f"{n / w_disk:,.0f}",
                        f"{marg_disk:,.0f}",
                        f"{r_disk:,.0f}",
                    ]
                )
                extra.update(diskRate=n / w_disk, diskMarginal=marg_disk, diskInProcess=r_disk)
            r_free = in_process_rate(n, where / "inproc", None)
            shutil.rmtree(where / "inproc", ignore_errors=True)
            d = where / "unpinned"
            w_free = silo_run(["env=crm", "task=TASK-002", f"runs={n}"], d)
            shutil.rmtree(d, ignore_errors=True)
            rows.append(
                [
                    f"fast path, {label}, unpinned",
                    n,
                    f"{w_free:.2f}",
                    f"{n / w_free:,.0f}",
                    "",
                    f"{r_free:,.0f}",
                ]
            )
            per_task = max(1, n // CRM_TASKS)
            w_all, marg_all = fast_path(
                per_task, max(1, n0 // CRM_TASKS), 1, where, cpu, task="all"
            )
            rows.append(
                [
                    f"fast path task=all, {label}",
                    6 * per_task,
                    f"{w_all:.2f}",
                    f"{6 * per_task / w_all:,.0f}",
                    f"{6 * marg_all:,.0f}",
                    "",
                ]
            )
            extra.update(
                unpinnedRate=n / w_free, unpinnedInProcess=r_free, allTasksRate=6 * per_task / w_all
            )

        sweep = ["-m", "env=crm", "task=TASK-002", f"+rep=range(0,{m})"]
        joblib = ["hydra/launcher=joblib", "hydra.launcher.n_jobs=2"]
        variants = {"basic": [], "joblib": joblib}
        if args.one_job_batches:
            variants["joblib, 1 job a batch"] = [*joblib, "hydra.launcher.batch_size=1"]
        if args.hydra_sweeper:
            variants["basic, hydra sweeper"] = ["hydra/sweeper=basic"]
            variants["joblib, hydra sweeper"] = [*joblib, "hydra/sweeper=basic"]
        timings: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
        load_before = os.getloadavg()
        for i in range(args.launcher_repeat):
            order = list(variants) if i % 2 == 0 else list(reversed(variants))
            for name in order:
                timings[name].append(timed_sweep([*sweep, *variants[name]], where / "m", m))
        load_after = os.getloadavg()
        w = {name: median([t[0] for t in runs]) for name, runs in timings.items()}
        for name, runs in timings.items():
            row_label = {"basic": "basic launcher (-m)", "joblib": "joblib n_jobs=2 (-m)"}.get(
                name, f"{name} (-m)"
            )
            cpu_ms = 1000 * median([t[1] for t in runs]) / m
            rows.append(
                [row_label, m, f"{w[name]:.2f}", f"{m / w[name]:,.1f}", "", "", f"{cpu_ms:.0f}"]
            )
        w_basic, w_joblib = w["basic"], w["joblib"]
    finally:
        shutil.rmtree(disk, ignore_errors=True)
        if memory:
            shutil.rmtree(memory, ignore_errors=True)

    for row in rows:
        row.extend([""] * (7 - len(row)))
    report.print_table(
        [
            "variant",
            "rollouts",
            "wall s",
            "rollouts/s",
            "marginal /s",
            "in-process /s",
            "cpu ms/run",
        ],
        rows,
        title=f"fast path: median of {args.repeat} runs; marginal = (N - {n0}) / "
        f"(wall(N) - wall({n0})); in-process = run_points alone, no start-up, no summary; "
        f"launchers: median of {args.launcher_repeat} alternated runs, cpu = all processes",
    )
    report.note(
        "load average (1, 5, 15 min) before the launcher runs "
        + ", ".join(f"{x:.2f}" for x in load_before)
        + "; after "
        + ", ".join(f"{x:.2f}" for x in load_after)
    )
    report.figure("inProcessRate", rate_inproc)
    report.figure("fastPathWallS", w_n)
    report.figure("fastPathRate", fast_e2e)
    report.figure("fastPathMarginalRate", fast_marginal)
    report.figure("basicRate", m / w_basic)
    report.figure("joblibRate", m / w_joblib)
    report.figure("launcherJobs", m)
    report.figure("launcherRepeat", args.launcher_repeat)
    report.figure("loadAverageBefore", list(load_before))
    report.figure("loadAverageAfter", list(load_after))
    for name, runs in timings.items():
        key = name.replace(",", "").replace(" ", "_")
        report.figure(f"cpuMsPerRun_{key}", 1000 * median([t[1] for t in runs]) / m)
        if name not in ("basic", "joblib"):
            report.figure(f"rate_{key}", m / w[name])
    for key, value in extra.items():
        report.figure(key, value)
    report.ratio(f"fast path in-process rollouts/s, one core, {label}", rate_inproc, 1000, ">=")
    report.ratio(
        f"fast path silo-run marginal rollouts/s, one core, {label}", fast_marginal, 1000, ">="
    )
    report.ratio("joblib(2)/basic launcher rate", (m / w_joblib) / (m / w_basic), 1.7, ">=")
    report.done()


def tmpfs_scratch() -> Path | None:
    """A scratch folder in /dev/shm (memory), or None where there is none."""
    import tempfile

    shm = Path("/dev/shm")
    if not shm.is_dir() or not os.access(shm, os.W_OK):
        return None
    return Path(tempfile.mkdtemp(prefix="silo-bench-sweeps-", dir=shm))


if __name__ == "__main__":
    main()
