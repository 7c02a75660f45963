"""Benchmark 1 — the rollout core, in process, without artifact I/O.

For each CRM task: a fresh world, the scripted solver's tool calls, the verifier and the state
diff, timed two ways:

* ``run_task``  — ``run_task(env, task, "solver", write_artifacts=False)``: the public engine,
  agent on its worker thread, trace kept in memory;
* ``core loop`` — the same steps without the engine's thread and bookkeeping: acquire a world,
  call the solver on this thread through the engine's tool bridge, verify, diff, release.

Prints µs per rollout (median, p90) and µs per tool call (rollout median / tool calls).
"""

from __future__ import annotations

from _common import ROOT, Report, act, header, median, p90, parser, pin_one_cpu, samples, us


def core_loop(env, task, agent_fn):  # type: ignore[no-untyped-def]
    """One rollout through the engine's parts, on this thread."""
    from silo.rollout.core import SHARED_WORLDS
    from silo.rollout.grading import grade

    world, output = act(env, task, agent_fn)
    diff = world.diff()
    graded, error, _ = grade(env.verifier_for(task), world, output, task, diff)
    SHARED_WORLDS.pool(env).release(world)
    assert graded is not None and graded.passed, error
    return diff


def main() -> None:
    args = parser(__doc__.splitlines()[0], pin=True).parse_args()
    cpu = None if args.no_pin else pin_one_cpu()
    header(
        "bench_rollout_core: fresh world + scripted tool calls + verifier + diff", args.quick, cpu
    )
    report = Report("rollout_core", args)
    n = 20 if args.quick else 2000

    from silo.agents.resolve import resolve_agent
    from silo.loading.environment import load_environment
    from silo.rollout.run import run_task

    env = load_environment("crm", ROOT)
    agent_fn = resolve_agent("solver", env, ROOT).fn
    rows = []
    for task_id in env.tasks:
        task = env.task(task_id)
        if task.user is not None:  # the core loop has no simulated user: the first six tasks
            continue
        result = run_task(env, task_id, "solver", project_dir=ROOT, write_artifacts=False)
        assert result.passed, result.result
        calls = result.tool_calls

        def engine(task_id: str = task_id) -> None:
            run_task(env, task_id, "solver", project_dir=ROOT, write_artifacts=False)

        t_engine = samples(engine, n, warmup=min(50, n))
        t_core = samples(lambda task=task: core_loop(env, task, agent_fn), n, warmup=min(50, n))
        m_e, m_c = median(t_engine), median(t_core)
        rows.append(
            [task_id, calls, us(m_e), us(p90(t_engine)), us(m_e / calls), us(m_c), us(p90(t_core))]
        )
        report.figure(
            task_id,
            {
                "toolCalls": calls,
                "runTaskMedianUs": m_e * 1e6,
                "runTaskP90Us": p90(t_engine) * 1e6,
                "perToolCallUs": m_e / calls * 1e6,
                "coreLoopMedianUs": m_c * 1e6,
            },
        )
    report.print_table(
        ["task", "calls", "run_task µs", "p90 µs", "µs/call", "core loop µs", "p90 µs"],
        rows,
        title=f"rollouts per task: {n} (median of per-rollout samples)",
    )
    worst = max(r["runTaskMedianUs"] for r in report.figures.values())
    report.figure("worstRunTaskMedianUs", worst)
    print(f"worst task median: {worst:,.1f} µs per rollout ({1e6 / worst:,.0f} rollouts/s)")
    report.done()


if __name__ == "__main__":
    main()
