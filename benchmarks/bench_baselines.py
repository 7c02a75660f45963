"""Benchmark 7 — baselines: ``silo-baseline check`` over 1,000 goldens vs the rollouts alone.

A temporary project holds a copy of ``environments/crm`` whose ``tasks/`` are 500 copies of the
six CRM tasks (``TASK-1000`` ... ``TASK-1499``, each the same instruction, verifier and
entities as the task it copies, so the scripted solver solves them all) and a
``baselines/silo-baselines.yaml`` with one entry, ``{env: crm, agent: solver}``.
``silo-baseline record`` writes the goldens: 500 tasks x (result, state-diff) = 1,000 files.

Then, timed in the same run:

* in process: ``list(silo.batch.baseline.check_goldens(target, ...))`` against the same 500 rollouts run
  with ``run_task(..., write_artifacts=False)`` and nothing else (medians of ``--repeat``);
* end to end: ``silo-baseline check`` (a subprocess) against a subprocess that imports Silo,
  loads the environment and runs the same 500 rollouts.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
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
    pin_one_cpu,
    scratch,
    wall,
)

SEED = ROOT / "environments" / "crm"
ROLLOUTS_ONLY = r"""
import sys
from pathlib import Path
project = Path(sys.argv[1])
from silo.loading.environment import load_environment
from silo.rollout.run import run_task
env = load_environment("crm", project)
for task_id in env.tasks:
    assert run_task(env, task_id, "solver", project_dir=project, write_artifacts=False).passed
"""


def make_project(root: Path, n_tasks: int) -> Path:
    project = root / "project"
    env_dir = project / "environments" / "crm"
    shutil.copytree(SEED, env_dir, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    seeds = [json.loads(p.read_text()) for p in sorted((SEED / "tasks").glob("*.json"))]
    seeds = [task for task in seeds if "template" not in task]  # fixed tasks: 2 goldens each
    for old in (env_dir / "tasks").glob("*.json"):
        old.unlink()
    for i in range(n_tasks):
        task = dict(seeds[i % len(seeds)])
        task["id"] = f"TASK-{1000 + i}"
        (env_dir / "tasks" / f"{task['id']}.json").write_text(json.dumps(task, indent=2))
    (project / "baselines").mkdir(parents=True)
    (project / "baselines" / "silo-baselines.yaml").write_text(
        # state_changes off: the measured goldens stay result + state-diff, as in process below
        "baselines:\n  - {env: crm, agent: solver, state_changes: false}\n"
    )
    return project


def baseline_cli(project: Path, command: str, cpu: int | None) -> float:
    return wall([bin_path("silo-baseline"), command], cwd=project, env=bench_env(), cpu=cpu)


def main() -> None:
    p = parser(__doc__.splitlines()[0], pin=True)
    p.add_argument("--tasks", type=int, default=500, help="tasks (goldens = 2 per task)")
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    if args.quick:
        args.tasks, args.repeat = 12, 1
    cpu = None if args.no_pin else pin_one_cpu()
    header("bench_baselines: silo-baseline check vs the rollouts it reruns", args.quick, cpu)
    report = Report("baselines", args)
    work = scratch("baselines-")
    try:
        project = make_project(work, args.tasks)
        t_record = baseline_cli(project, "record", cpu)
        goldens = sorted((project / "baselines" / "crm" / "solver").glob("*.json"))
        assert len(goldens) == 2 * args.tasks, len(goldens)

        from silo.batch.baseline import Target, check_goldens
        from silo.batch.sweep import Point
        from silo.loading.environment import load_environment
        from silo.rollout.run import Budget, run_task

        env = load_environment("crm", project)
        points = [Point("crm", t, {"name": "solver"}, "solver", Budget(), 0) for t in env.tasks]
        target = Target("crm", "solver", points)
        base = project / "baselines"

        def rollouts() -> None:
            for point in points:
                run_task(
                    point.env,
                    point.task,
                    point.agent,
                    point.budget,
                    project_dir=project,
                    write_artifacts=False,
                    agent_label=point.agent_label,
                )

        def checked() -> None:
            outcomes = list(check_goldens(target, project, base))
            assert all(o.status == "ok" for o in outcomes), {o.status for o in outcomes}

        rollouts()
        checked()  # warm-up
        t_roll, t_check = [], []
        for _ in range(args.repeat):
            start = time.perf_counter()
            rollouts()
            t_roll.append(time.perf_counter() - start)
            start = time.perf_counter()
            checked()
            t_check.append(time.perf_counter() - start)
        m_roll, m_check = median(t_roll), median(t_check)

        cli_check, cli_roll = [], []
        for _ in range(args.repeat):
            cli_check.append(baseline_cli(project, "check", cpu))
            start = time.perf_counter()
            subprocess.run(
                [PYTHON, "-c", ROLLOUTS_ONLY, str(project)],
                check=True,
                cwd=project,
                env=bench_env(),
                capture_output=True,
                preexec_fn=(lambda: __import__("os").sched_setaffinity(0, {cpu}))
                if cpu is not None
                else None,
            )
            cli_roll.append(time.perf_counter() - start)
        w_check, w_roll = median(cli_check), median(cli_roll)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    n = len(points)
    report.print_table(
        ["measure", "rollouts", "goldens", "rollouts alone s", "check s", "check/rollouts"],
        [
            ["in process", n, 2 * n, f"{m_roll:.3f}", f"{m_check:.3f}", f"{m_check / m_roll:.2f}"],
            [
                "subprocess (end to end)",
                n,
                2 * n,
                f"{w_roll:.3f}",
                f"{w_check:.3f}",
                f"{w_check / w_roll:.2f}",
            ],
        ],
        title=f"medians of {args.repeat}; silo-baseline record took {t_record:.2f} s",
    )
    report.figure("tasks", n)
    report.figure("goldens", 2 * n)
    report.figure("recordS", t_record)
    report.figure("inProcess", {"rolloutsS": m_roll, "checkS": m_check})
    report.figure("endToEnd", {"rolloutsS": w_roll, "checkS": w_check})
    report.ratio("check/rollouts (in process)", m_check / m_roll, 3)
    report.ratio("silo-baseline check / rollouts (end to end)", w_check / w_roll, 3)
    report.done()


if __name__ == "__main__":
    main()
