"""Benchmark — what computing ``state-changes.json`` adds to a CRM TASK-002 rollout.

Per sample, interleaved so both arms see the same machine load: one whole in-process rollout
(``run_task(..., write_artifacts=False)``, which computes the field-level changes), and the
same rollout's parts on this thread with the ``state_changes`` call timed on its own (fresh
world, solver through the bridge, diff, changes, grade). Prints what the ``state_changes``
median adds to the rest of the rollout's median (target: at most 10 %). Flatness with world
size is bench_world_size's (its 1x / 10x rollouts compute the changes too). Usage::

    nice -n 10 .venv/bin/python benchmarks/state_changes_cost.py
"""

from __future__ import annotations

from _common import ROOT, Report, act, header, median, parser, perf_counter, us

TASK = "TASK-002"


def main() -> None:
    """Time rollouts and their state_changes call, interleaved; print the ratio line."""
    args = parser(__doc__.splitlines()[0]).parse_args()
    header("state_changes_cost: field-level changes vs a TASK-002 rollout", args.quick)
    report = Report("state_changes", args)
    n = 20 if args.quick else 1000

    from silo.agents.resolve import resolve_agent
    from silo.loading.environment import load_environment
    from silo.rollout.core import SHARED_WORLDS
    from silo.rollout.grading import grade
    from silo.rollout.run import run_task
    from silo.world.changes import state_changes

    env = load_environment("crm", ROOT)
    agent_fn = resolve_agent("solver", env, ROOT).fn
    task = env.task(TASK)
    rollouts, changes = [], []
    for index in range(n + min(50, n)):
        started = perf_counter()
        run_task(env, TASK, "solver", project_dir=ROOT, write_artifacts=False)
        rollout = perf_counter() - started
        world, output = act(env, task, agent_fn)
        diff = world.diff()
        started = perf_counter()
        state_changes(world.initial(), world.state, diff)
        spent = perf_counter() - started
        graded, _error, _ = grade(env.verifier_for(task), world, output, task, diff)
        SHARED_WORLDS.pool(env).release(world)
        assert graded is not None and graded.passed
        if index >= min(50, n):  # the first samples warm caches and pools
            rollouts.append(rollout)
            changes.append(spent)
    # run_task includes the changes, so what they add is measured against the rest of it
    share = median(changes) / (median(rollouts) - median(changes))
    report.figure("rolloutMedianUs", median(rollouts) * 1e6)
    report.figure("stateChangesMedianUs", median(changes) * 1e6)
    print(
        f"{TASK} rollout median {us(median(rollouts))} µs, state_changes median {us(median(changes))} µs"
    )
    report.ratio("state_changes/rollout", share, 0.10)
    report.done()


if __name__ == "__main__":
    main()
