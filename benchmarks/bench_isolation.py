"""CPU-looping agents in a sweep, on threads and in processes (issue 38 item 7); per-call cost.

A sweep of ``--rollouts`` CRM solver rollouts (TASK-002) at ``--concurrency`` in flight, each
with a ``--timeout-ms`` budget, the first ``--loopers`` of them replaced by an agent that
computes forever (``isolation_agents.looper``). Each case runs with every agent on a thread
(``isolation: thread``) and every agent in a process (``isolation: process``). For each case:
the sweep's wall time, the longest looper's ``durationMs`` (target: the budget + 10 % + 0.5 s),
the longest other rollout's, and whether all the others passed. Then the cost of process
isolation: a rollout of 200 CRM reads (``isolation_agents.caller``) in memory on a thread and
in a process, median of several, and the difference per call.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from _common import PYTHON, ROOT, Report, bench_env, header, median, parser, scratch

AGENTS = str(Path(__file__).resolve().parent / "isolation_agents.py")


def _agent(spec: dict[str, Any], isolation: str) -> dict[str, Any]:
    return {**spec, "isolation": isolation}


def sweep_case(
    rollouts: int, concurrency: int, loopers: int, timeout_ms: int, isolation: str
) -> tuple[float, float, float, int, int]:
    """One sweep: (wall s, longest looper ms, longest other ms, others passed, others)."""
    from silo.batch.point import Point
    from silo.batch.sweep import run_points
    from silo.rollout.run import Budget

    budget = Budget(timeout_ms=timeout_ms)
    looper = _agent({"path": AGENTS, "attr": "looper"}, isolation)
    solver = _agent({"name": "solver"}, isolation)
    points = [Point("crm", "TASK-002", looper, "looper", budget, seed=i) for i in range(loopers)]
    points += [
        Point("crm", "TASK-002", solver, "solver", budget, seed=i)
        for i in range(rollouts - loopers)
    ]
    group = scratch(f"isolation-{isolation}-{loopers}-")
    try:
        started = time.perf_counter()
        run_points(
            points, 1, project_dir=ROOT, group_dir=group, group_id="bench",
            progress=False, max_concurrency=concurrency,
        )  # fmt: skip
        wall = time.perf_counter() - started
        runs = [json.loads(p.read_text()) for p in group.glob("*/run.json")]
    finally:
        shutil.rmtree(group, ignore_errors=True)
    looped = [r["durationMs"] for r in runs if r["agent"] == "looper"]
    others = [r for r in runs if r["agent"] == "solver"]
    passed = sum(1 for r in others if r["terminationReason"] == "completed")
    longest_other = max((r["durationMs"] for r in others), default=0.0)
    return wall, max(looped, default=0.0), longest_other, passed, len(others)


def in_fresh_process(args: Any, isolation: str, loopers: int) -> list[Any]:
    """:func:`sweep_case` in a process of its own: a looping thread outlives its sweep."""
    case = [str(v) for v in (args.rollouts, args.concurrency, loopers, args.timeout_ms)]
    proc = subprocess.run(
        [PYTHON, __file__, "--case", isolation, *case],
        cwd=Path(__file__).parent, env=bench_env(), capture_output=True, text=True, check=True,
    )  # fmt: skip
    return list(json.loads(proc.stdout.splitlines()[-1]))


def per_call(repeats: int) -> tuple[float, float]:
    """Median ms of a 200-call rollout in memory: (on a thread, in a process)."""
    from silo.rollout.run import run_task

    medians = []
    for isolation in ("thread", "process"):
        agent = _agent({"path": AGENTS, "attr": "caller"}, isolation)
        run_task("crm", "TASK-002", agent, project_dir=ROOT, write_artifacts=False)  # warm
        times = []
        for _ in range(repeats):
            started = time.perf_counter()
            run_task("crm", "TASK-002", agent, project_dir=ROOT, write_artifacts=False)
            times.append(time.perf_counter() - started)
        medians.append(median(times) * 1000)
    return medians[0], medians[1]


def main() -> None:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--rollouts", type=int, default=400)
    p.add_argument("--concurrency", type=int, default=32)
    p.add_argument("--loopers", type=int, default=16)
    p.add_argument("--timeout-ms", type=int, default=2000)
    p.add_argument("--case", nargs=5, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.case:  # one sweep in this process (see in_fresh_process)
        isolation, *numbers = args.case
        print(json.dumps(sweep_case(*map(int, numbers), isolation)))
        return
    if args.quick:
        args.rollouts, args.concurrency, args.loopers, args.timeout_ms = 12, 4, 2, 500
    header("bench_isolation: CPU-looping agents on threads and in processes", args.quick)
    report = Report("isolation", args)
    allowed_ms = args.timeout_ms * 1.1 + 500
    rows = []
    for isolation in ("thread", "process"):
        for loopers in (0, args.loopers):
            wall, looped, other, passed, others = in_fresh_process(args, isolation, loopers)
            key = f"{isolation}, {loopers} loopers"
            report.figure(key, {"wallS": wall, "longestLooperMs": looped,
                                "longestOtherMs": other, "othersPassed": passed})  # fmt: skip
            rows.append([isolation, loopers, f"{wall:.2f}", f"{looped:.0f}" if loopers else "-",
                         f"{other:.0f}", f"{passed}/{others}"])  # fmt: skip
            if loopers and isolation == "process":
                report.ratio("process: longest looper ms / allowed", looped / allowed_ms, 1.0)
                report.ratio("process: longest other ms / budget", other / args.timeout_ms, 1.0)
                report.ratio("process: others passed", passed / others, 1.0, ">=")
    report.print_table(
        ["isolation", "loopers", "wall s", "longest looper ms", "longest other ms", "passed"],
        rows,
        title=f"{args.rollouts} rollouts, {args.concurrency} in flight, budget "
        f"{args.timeout_ms} ms (allowed for a looper: {allowed_ms:.0f} ms)",
    )
    on_thread, in_process = per_call(3 if args.quick else 15)
    from isolation_agents import CALLS

    extra_us = (in_process - on_thread) * 1000 / CALLS
    report.figure("200-call rollout ms (thread, process)", [on_thread, in_process])
    report.figure("process isolation us per call", extra_us)
    report.print_table(
        ["isolation", f"{CALLS}-call rollout ms (median)"],
        [["thread", f"{on_thread:.2f}"], ["process", f"{in_process:.2f}"]],
    )
    print(f"process isolation: {extra_us:.1f} us more per tool call")
    report.done()


if __name__ == "__main__":
    main()
