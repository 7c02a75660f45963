"""Benchmark 4 — end to end: ``silo-run`` wall time beside a trivial Hydra app and ``python``.

Three commands, each a fresh subprocess, run round-robin so drift hits all of them alike:

* ``silo-run env=crm task=TASK-002 agent=solver`` (artifacts into a temporary ``runs_dir``);
* ``python benchmarks/_trivial_hydra_app.py`` with the Hydra settings silo-run uses
  (``hydra.output_subdir=null``, ``hydra/job_logging=none``, ``hydra/hydra_logging=none``);
* ``python -c pass``.

Two conditions: ``no bytecode cache`` is the environment as inherited (this sandbox sets
``PYTHONDONTWRITEBYTECODE=1``, so Silo's and the environment's modules are compiled from source
on every start while installed packages use their ``.pyc`` files); ``bytecode cache`` unsets it
and points ``PYTHONPYCACHEPREFIX`` at a temporary folder warmed by one run of each command,
which is what a normal installation gets. Medians of ``--repeat`` runs.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from _common import (
    PYTHON,
    ROOT,
    Report,
    bench_env,
    bin_path,
    header,
    median,
    ms,
    parser,
    scratch,
    wall,
)

APP = Path(__file__).resolve().parent / "_trivial_hydra_app.py"


def commands(tmp: Path) -> dict[str, tuple[list[str], Path]]:
    return {
        "silo-run": (
            [
                bin_path("silo-run"),
                "env=crm",
                "task=TASK-002",
                "agent=solver",
                f"runs_dir={tmp / 'runs'}",
            ],
            ROOT,
        ),
        "trivial @hydra.main": (
            [
                PYTHON,
                str(APP),
                f"hydra.run.dir={tmp / 'out'}",
                "hydra.output_subdir=null",
                "hydra/job_logging=none",
                "hydra/hydra_logging=none",
            ],
            tmp,
        ),
        "python -c pass": ([PYTHON, "-c", "pass"], tmp),
    }


def run_condition(
    label: str, env: dict[str, str], repeat: int, tmp: Path, warm: bool = True
) -> dict[str, float]:
    cmds = commands(tmp)
    for cmd, cwd in cmds.values() if warm else ():  # page cache, and the bytecode cache
        wall(cmd, cwd=cwd, env=env)
    times: dict[str, list[float]] = {name: [] for name in cmds}
    for _ in range(repeat):
        for name, (cmd, cwd) in cmds.items():
            times[name].append(wall(cmd, cwd=cwd, env=env))
        shutil.rmtree(tmp / "runs", ignore_errors=True)
    return {name: median(values) for name, values in times.items()}


def main() -> None:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=15)
    args = p.parse_args()
    if args.quick:
        args.repeat = 1
    header("bench_end_to_end: silo-run vs a trivial @hydra.main app vs python -c pass", args.quick)
    report = Report("end_to_end", args)
    tmp = scratch("e2e-")
    rows = []
    try:
        inherited = bench_env()
        cached = bench_env(PYTHONPYCACHEPREFIX=str(tmp / "pycache"))
        cached.pop("PYTHONDONTWRITEBYTECODE", None)
        conditions = [("bytecode cache", cached)]
        if args.quick:
            conditions = [("as inherited", inherited)]
        elif inherited.get("PYTHONDONTWRITEBYTECODE"):
            conditions.append(("no bytecode cache", inherited))
        else:
            report.note("PYTHONDONTWRITEBYTECODE is not set here: one condition only")
        for label, env in conditions:
            result = run_condition(label, env, args.repeat, tmp, warm=not args.quick)
            silo, trivial, bare = (
                result["silo-run"],
                result["trivial @hydra.main"],
                result["python -c pass"],
            )
            rows.append(
                [
                    label,
                    ms(silo),
                    ms(trivial),
                    ms(bare),
                    ms(silo - trivial),
                    f"{silo / trivial:.3f}",
                ]
            )
            report.figure(
                label,
                {
                    "siloRunMs": silo * 1e3,
                    "trivialHydraMs": trivial * 1e3,
                    "pythonPassMs": bare * 1e3,
                    "ratio": silo / trivial,
                },
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report.print_table(
        [
            "condition",
            "silo-run ms",
            "trivial hydra ms",
            "python -c pass ms",
            "silo extra ms",
            "silo/trivial",
        ],
        rows,
        title=f"wall time of one subprocess, median of {args.repeat} (round-robin)",
    )
    for label, _ in conditions:
        report.ratio(f"silo-run/trivial hydra app [{label}]", report.figures[label]["ratio"], 1.3)
    report.done()


if __name__ == "__main__":
    sys.exit(main())
