"""Deep validation: run the environment and prove its tasks are sound.

Contract: :func:`run_deep_checks` adds these findings (errors but one) to a report:

* ``solver_failed`` — the environment's ``solver.py`` does not pass a task (named, with its
  failed required checks or error); a solver that cannot load is one finding.
* ``verifier_crashed`` — the task's verifier raised while grading the solver's run (file:line).
* ``validation_timeout`` — the time limit for all the rollouts ran out (the rest not run).
* ``noop_passes`` — the built-in no-op agent passes a task: a task an idle agent passes is broken
  (``noop_failed`` if that rollout could not even run).
* ``noop_rewarded`` (a warning) — the no-op agent earns a reward above 0 on a task it fails,
  named with the checks that give it: for RL, a floor an idle policy collects (make those checks
  depend on the change, or choose ``reward: binary``); once per task or template.
* ``nondeterministic`` — two solver runs of a task give different ``result.json`` or
  ``state-diff.json`` (skipped for a solver that declares ``deterministic = False``).
* ``create_state_shared`` — two ``create_state()`` calls return worlds that share a mutable
  object (dict, list, set), so changing one world changes the next.
* ``tool_leaks_state`` — a tool's ``run`` returns an object that is part of the live state.
  Tools are called on a fresh state with the inputs the solver used (replayed in order, task by
  task), and with ``{}`` when that is valid input for a tool the solver never called.
* the instances ``#0`` to ``#instance_sample-1`` of every task template are checked like tasks
  (and compared, see :mod:`silo.validate.templates`).
* ``world_not_reset`` — after the rollouts, the pooled world differs from a fresh
  ``create_state()`` (the rollback missed a change).

Rollouts run in memory (``write_artifacts=False``); nothing is written to the project.
:class:`DeepOptions` gives them a budget (``budget.*`` on the command line), a time limit for the
whole validation (``validation_timeout`` when it runs out; the rollouts left are not started and
each one's own timeout is cut to the time left) and a progress callback, told before each one.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from silo.agents.contract import Agent
from silo.agents.resolve import AgentChoice
from silo.errors import SiloError
from silo.json_types import JSON
from silo.jsonio import canonical
from silo.loading.environment import Environment
from silo.loading.modules import describe_exception, load_file
from silo.rollout.core import SHARED_WORLDS
from silo.rollout.run import Budget, RolloutResult, run_task
from silo.schema.validator import validator_for
from silo.tasks import Task
from silo.validate.rubrics import check_rubrics
from silo.validate.static import short_paths
from silo.validate.templates import sample_instances

if TYPE_CHECKING:
    from silo.validate.report import Report

__all__ = ["DeepOptions", "run_deep_checks", "shared_object", "leaked_object"]

Calls = list[tuple[str, Any]]
_MUTABLE = (dict, list, set, bytearray)


@dataclass
class DeepOptions:
    """How deep checks run: each rollout's budget, a limit for them all, progress lines."""

    budget: Budget = field(default_factory=Budget)
    time_limit_s: float | None = None
    progress: Callable[[str], None] | None = None
    deadline: float = float("inf")  # set when the checks start (monotonic seconds)
    instance_sample: int = 5  # instances #0..#n-1 of each task template are checked like tasks

    def start(self) -> None:
        """Start the clock of :attr:`time_limit_s` (once: one limit for the whole validation)."""
        if self.time_limit_s is not None and self.deadline == float("inf"):
            self.deadline = time.monotonic() + self.time_limit_s

    def budget_now(self) -> Budget | None:
        """The budget of the next rollout, its timeout cut to the time left; None: no time left."""
        if self.deadline == float("inf"):
            return self.budget
        left_ms = int((self.deadline - time.monotonic()) * 1000)
        if left_ms <= 0:
            return None
        return replace(self.budget, timeout_ms=min(self.budget.timeout_ms, left_ms))


class _OutOfTime(Exception):
    """The validation's time limit ran out (reported once, as ``validation_timeout``)."""


def run_deep_checks(
    env: Environment, project: Path, report: Report, options: DeepOptions | None = None
) -> None:
    """Run the solver and the no-op agent on every task in memory and add what they show."""
    options = options or DeepOptions()
    options.start()
    _check_independent_states(env, report)
    recorded: list[Calls] = []
    solver = _load_solver(env, report)
    try:
        _run_tasks(env, project, report, options, solver, recorded)
    except _OutOfTime as stop:
        report.error(
            "validation_timeout",
            f"the validation time limit ({options.time_limit_s:g} s) ran out before {stop}; "
            "raise time_limit_s=, lower budget.timeout_ms= or fix the agent that hangs",
        )
        return
    _check_reset(env, report)
    _check_leaks(env, recorded, report)


def _run_tasks(
    env: Environment,
    project: Path,
    report: Report,
    options: DeepOptions,
    solver: Any,
    recorded: list[Calls],
) -> None:
    instances = sample_instances(env, report, options.instance_sample)
    check_rubrics(instances, env.manifest, env.root, report)
    rollout = _Rollouts(env, project, report, options, len(env.tasks) + len(instances))
    rewarded: set[str] = set()  # tasks and templates already warned of: one warning each
    for task in [*env.tasks.values(), *instances]:
        if solver is not None:
            first = rollout(task, solver, "solver")
            if first is not None:
                recorded.append(_calls(first))
                _check_solver_run(env, task, first, report)
                if getattr(solver, "deterministic", True):
                    second = rollout(task, solver, "solver again")
                    if second is not None:
                        _check_same(task, first, second, report)
        idle = rollout(task, "noop", "noop")
        if idle is not None and idle.passed:
            report.error(
                "noop_passes",
                f'task "{task.id}" is passed by the no-op agent, which does nothing; a task an '
                "idle agent passes is broken — require the change or answer the task asks for",
            )
        elif idle is not None and idle.reward > 0 and task.id.partition("#")[0] not in rewarded:
            rewarded.add(task.id.partition("#")[0])  # a template's instances share its checks
            report.warn("noop_rewarded", _noop_rewarded(task, idle))


def _noop_rewarded(task: Task, idle: RolloutResult) -> str:
    """Why the idle agent's reward is above 0: the checks it passes, by label."""
    labels = [c["label"] for c in idle.result["checks"] if c["passed"]]
    return (
        f'task "{task.id}" gives the no-op agent, which does nothing, reward {idle.reward:g} '
        f"from {len(labels)} passed check(s): {'; '.join(labels)}. An RL policy collects this "
        'for doing nothing: make these checks depend on the change, or set "reward": "binary"'
    )


class _Rollouts:
    """Runs the deep checks' rollouts one by one under the options' budget and time limit."""

    def __init__(
        self, env: Environment, project: Path, report: Report, options: DeepOptions, tasks: int
    ) -> None:
        self.env, self.project, self.report, self.options = env, project, report, options
        self.total = tasks * 3
        self.started = 0

    def __call__(self, task: Task, agent: AgentChoice, label: str) -> RolloutResult | None:
        budget = self.options.budget_now()
        if budget is None:
            raise _OutOfTime(f'task "{task.id}" ({label})')
        self.started += 1
        if self.options.progress is not None:
            self.options.progress(
                f"environments/{self.env.root.name}: {task.id} {label} "
                f"({self.started}/{self.total} at most)"
            )
        return _rollout(self.env, task, agent, self.project, self.report, budget)


def _load_solver(env: Environment, report: Report) -> Agent | None:
    if not env.solver_path.is_file():
        return None
    where = env.solver_path.relative_to(env.root).as_posix()
    try:
        module = load_file(env.solver_path, env.solver_module, reload=True)
    except SiloError as exc:
        report.error(
            "solver_failed", f"{where} failed to load: {short_paths(exc.message, env.root)}"
        )
        return None
    agent: object = getattr(module, "agent", None)
    if not callable(agent):
        report.error("solver_failed", f"environments/{env.root.name}/{where} has no agent(inp)")
        return None
    return cast(Agent, agent)  # a callable the solver file exports as agent(inp)


def _rollout(
    env: Environment, task: Task, agent: AgentChoice, project: Path, report: Report, budget: Budget
) -> RolloutResult | None:
    """The rollout, or None after reporting why it could not run (never raises)."""
    code = "noop_failed" if agent == "noop" else "solver_failed"
    try:
        return run_task(env, task, agent, budget, project_dir=project, write_artifacts=False)
    except SiloError as exc:
        report.error(code, f'task "{task.id}" could not run: {short_paths(exc.message, env.root)}')
    except Exception as exc:
        why = short_paths(describe_exception(exc), env.root)
        report.error(code, f'task "{task.id}" crashed the engine: {why}')
    return None


def _calls(run: RolloutResult) -> Calls:
    events = (json.loads(line) for line in run.trace_lines)
    return [(e["tool"], e["input"]) for e in events if e.get("type") == "tool_call"]


def _check_solver_run(env: Environment, task: Task, run: RolloutResult, report: Report) -> None:
    if run.passed:
        return
    if run.environment_error:  # the verifier raised: its bug, not the solver's
        report.error(
            "verifier_crashed", f'task "{task.id}": {short_paths(run.environment_error, env.root)}'
        )
        return
    failed = run.result.get("failedRequired") or []
    reasons = [f"failed required checks: {'; '.join(failed)}"] if failed else []
    if run.error:
        reasons.append(f"error: {short_paths(run.error, env.root)}")
    if not reasons:
        reasons.append(f"ended with {run.termination_reason}")
    report.error(
        "solver_failed", f'the solver does not pass task "{task.id}" ({"; ".join(reasons)})'
    )


def _first_difference(a: Mapping[str, JSON], b: Mapping[str, JSON]) -> str:
    for key in list(a) + [k for k in b if k not in a]:
        if canonical(a.get(key)) != canonical(b.get(key)):
            return key
    return "?"


def _check_same(task: Task, first: RolloutResult, second: RolloutResult, report: Report) -> None:
    pairs: tuple[tuple[str, Mapping[str, JSON], Mapping[str, JSON]], ...] = (
        ("result.json", first.result, second.result),
        ("state-diff.json", first.state_diff, second.state_diff),
    )
    for label, a, b in pairs:
        if canonical(a) != canonical(b):
            report.error(
                "nondeterministic",
                f'two solver runs of task "{task.id}" give different {label} (first difference '
                f'at "{_first_difference(a, b)}"); tools and verifiers must not read the clock, '
                "randomness or anything outside the state",
            )
            return


def _containers(value: Any, path: str = "state") -> Iterator[tuple[Any, str]]:
    """Every mutable container reachable from ``value``, with its path (each once)."""
    seen: set[int] = set()
    stack = [(value, path)]
    while stack:
        item, where = stack.pop()
        if id(item) in seen:
            continue
        if isinstance(item, _MUTABLE):
            seen.add(id(item))
            yield item, where
        children: list[tuple[Any, str]] = []
        if isinstance(item, dict):
            children = [(v, f"{where}[{k!r}]") for k, v in item.items()]
        elif isinstance(item, (list, tuple)):
            children = [(v, f"{where}[{i}]") for i, v in enumerate(item)]
        elif isinstance(item, (set, frozenset)):
            children = [(v, f"{where}{{…}}") for v in item]
        stack.extend(reversed(children))  # depth-first, in document order


def shared_object(a: Any, b: Any) -> str | None:
    """The path (in ``b``) of the first mutable object ``a`` and ``b`` share, or None."""
    owned = {id(obj) for obj, _ in _containers(a)}
    return next((where for obj, where in _containers(b) if id(obj) in owned), None)


def leaked_object(output: Any, state: Any) -> str | None:
    """The path in ``output`` of the first object that belongs to ``state``, or None."""
    found = shared_object(state, output)
    return found.replace("state", "output", 1) if found else None


def _check_independent_states(env: Environment, report: Report) -> None:
    try:
        first, second = env.create_state(), env.create_state()
    except Exception:
        return  # reported by the static checks
    where = shared_object(first, second)
    if where is not None:
        report.error(
            "create_state_shared",
            f"two create_state() calls return worlds that share {where}; changing one world "
            "changes the next — build new objects on every call (e.g. json.loads the data, or "
            "copy.deepcopy)",
        )


def _check_reset(env: Environment, report: Report) -> None:
    if not env.tasks:
        return
    pool = SHARED_WORLDS.pool(env)  # the pool run_task took this environment's worlds from
    world = pool.acquire()
    try:
        fresh = env.create_state()
        if canonical(world.state) != canonical(fresh):
            both_dicts = isinstance(world.state, dict) and isinstance(fresh, dict)
            key = _first_difference(world.state, fresh) if both_dicts else "state"
            report.error(
                "world_not_reset",
                f'after a rollout the pooled world differs from a fresh create_state() at "{key}";'
                " a change escaped the rollback — keep state as dicts and lists of JSON values "
                "and change it only through them",
            )
    except Exception as exc:
        report.error("world_not_reset", f"comparing the pooled world failed: {exc}")
    finally:
        pool.release(world)


def _check_leaks(env: Environment, recorded: list[Calls], report: Report) -> None:
    called = {name for calls in recorded for name, _ in calls}
    untried: Calls
    try:
        untried = [(t.name, {}) for t in env.bind_tools(env.create_state()) if t.name not in called]
    except Exception:
        untried = []
    plans = [*recorded, untried]
    leaking: dict[str, str] = {}
    for plan in plans:
        try:
            state = env.create_state()
            tools = {t.name: t for t in env.bind_tools(state)}
        except Exception:
            continue  # reported by the static checks
        for name, args in plan:
            tool = tools.get(name)
            if tool is None or name in leaking or not isinstance(args, dict):
                continue
            if validator_for(tool.input_schema).problems(args):
                continue
            try:
                output = tool.run(state, args)
            except Exception:
                continue
            where = leaked_object(output, state)
            if where is not None:
                leaking[name] = where
    for name, where in leaking.items():
        report.error(
            "tool_leaks_state",
            f'tool "{name}" returns a live part of the state ({where}); return a copy '
            "(copy.deepcopy or a new dict) so nothing outside the tool can change the world",
        )
