"""Benchmark 5 — sweeps: CRM × solver rollouts per second with every artifact written.

Variants, each a real ``silo-run`` subprocess (and ``run_points`` in a fresh process):

* ``fast path``  — ``silo-run env=crm task=TASK-002 runs=N``: one composition, every rollout in
  one process (``silo.sweep.run_points``), then the group summary; pinned to one CPU ("on one
  core"). Reported as N / wall, as the marginal rate (N - n0) / (wall(N) - wall(n0)) against a
  small run timed alongside (start-up and composition cancel out), and as ``run_points`` alone
  in a fresh process (no start-up, no Hydra, no summary). Also unpinned, and ``task=all``.
* ``basic``      — ``silo-run -m env=crm task=TASK-002 '+rep=range(0,M)'``: one Hydra job per
  rollout, run in sequence by Hydra's basic launcher.
* ``joblib x2``  — the same multirun with ``hydra/launcher=joblib hydra.launcher.n_jobs=2``.

Where the artifacts go: ``runs_dir`` is on tmpfs (``/dev/shm``) when there is one, so the
figures are Silo's cost of writing them (every file is still created, written and renamed;
only the disk is taken out), and the fast path is also run on the project disk
(``.silo/bench``) for the record. On the virtual machine these figures come from, the cost of
creating a file on disk varied tenfold within the hour (20 µs to 250 µs), which would make the
disk rows a measure of the disk. Launchers use M = 200 jobs by default (about 25 s each here;
``--launcher-jobs 1000`` for the full size); rates are per second either way.
"""

from __future__ import annotations

import os
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


def silo_run(args: list[str], runs_dir: Path, cpu: int | None = None) -> float:
    return wall(
        [bin_path("silo-run"), *args, f"runs_dir={runs_dir}", "progress=false"],
        cwd=ROOT,
        env=bench_env(),
        cpu=cpu,
    )


def count_runs(runs_dir: Path) -> int:
    return sum(1 for _ in runs_dir.glob("**/result.json"))


IN_PROCESS = r"""
import sys, time
from pathlib import Path
root, n, work = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
from silo.rollout import Budget
from silo.sweep import Point, run_points
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
        assert count_runs(d) == n * (6 if task == "all" else 1), "fast path: wrong run count"
        shutil.rmtree(d, ignore_errors=True)
        d0 = root / f"small{i}"
        walls_0.append(silo_run(["env=crm", f"task={task}", f"runs={n0}"], d0, cpu))
        shutil.rmtree(d0, ignore_errors=True)
    w_n, w_0 = median(walls_n), median(walls_0)
    return w_n, (n - n0) / (w_n - w_0)


def main() -> None:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=1000, help="rollouts of the fast path")
    p.add_argument("--launcher-jobs", type=int, default=200, help="jobs of each multirun")
    p.add_argument("--repeat", type=int, default=3, help="repetitions of each fast-path run")
    args = p.parse_args()
    if args.quick:
        args.runs, args.launcher_jobs, args.repeat = 6, 2, 1
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
    rows = []
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
            per_task = max(1, n // 6)
            w_all, marg_all = fast_path(per_task, max(1, n0 // 6), 1, where, cpu, task="all")
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
        d = where / "basic"
        w_basic = silo_run(sweep, d)
        assert count_runs(d) == m, "basic launcher wrote the wrong number of runs"
        shutil.rmtree(d, ignore_errors=True)
        d = where / "joblib"
        w_joblib = silo_run([*sweep, "hydra/launcher=joblib", "hydra.launcher.n_jobs=2"], d)
        assert count_runs(d) == m, "joblib launcher wrote the wrong number of runs"
        shutil.rmtree(d, ignore_errors=True)
        rows.append(["basic launcher (-m)", m, f"{w_basic:.2f}", f"{m / w_basic:,.1f}", "", ""])
        rows.append(["joblib n_jobs=2 (-m)", m, f"{w_joblib:.2f}", f"{m / w_joblib:,.1f}", "", ""])
    finally:
        shutil.rmtree(disk, ignore_errors=True)
        if memory:
            shutil.rmtree(memory, ignore_errors=True)

    report.print_table(
        ["variant", "rollouts", "wall s", "rollouts/s", "marginal /s", "in-process /s"],
        rows,
        title=f"fast path: median of {args.repeat} runs; marginal = (N - {n0}) / "
        f"(wall(N) - wall({n0})); in-process = run_points alone, no start-up, no summary",
    )
    report.figure("inProcessRate", rate_inproc)
    report.figure("fastPathWallS", w_n)
    report.figure("fastPathRate", fast_e2e)
    report.figure("fastPathMarginalRate", fast_marginal)
    report.figure("basicRate", m / w_basic)
    report.figure("joblibRate", m / w_joblib)
    report.figure("launcherJobs", m)
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
