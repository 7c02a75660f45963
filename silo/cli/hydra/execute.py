"""The body of a ``silo-run`` job: plan, run, report.

Contract: :func:`execute` receives the composed config of one Hydra job and returns its exit
status (0 all passed, 1 a rollout failed, 2 a rollout was not graded: it could not start, or
its environment or model endpoint failed; see :mod:`silo.batch.outcomes`). It prints one line
per user mistake, a short report for a single rollout, and a summary table for a group run in
one process. In a multirun, rollouts that never began are written to the sweep folder so the
sweep's summary (see ``silo.cli.hydra.callbacks``) counts them apart.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from silo.errors import SiloError
from silo.redact import terminal_safe

__all__ = ["execute", "execute_job", "print_rollout"]


def _say(message: str) -> None:
    sys.stderr.write(f"silo-run: {terminal_safe(message, newlines=False)}\n")


def execute(cfg: Any, project: Path) -> int:
    """Plan and run one Hydra job's rollouts and report them; the job's exit status."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    hydra_cfg = HydraConfig.get()
    output_dir = Path(hydra_cfg.runtime.output_dir)
    choice = hydra_cfg.runtime.choices.get("agent")
    if hydra_cfg.mode == RunMode.MULTIRUN:
        return execute_job(cfg, project, choice, output_dir)
    # hydra.run.dir (default ${runs_dir}) is where a single run's folder is made.
    return execute_job(cfg, project, choice, None, runs_dir=output_dir)


def execute_job(
    cfg: Any,
    project: Path,
    agent_choice: str | None,
    group_dir: Path | None,
    runs_dir: Path | None = None,
) -> int:
    """:func:`execute` given what it reads from Hydra's job state, for a config composed alone.

    ``agent_choice`` is the ``agent=`` group choice; ``group_dir`` the sweep folder of a
    multirun job (None for a single run); ``runs_dir``, when given, replaces the config's
    ``runs_dir`` (a single run's ``hydra.run.dir``).
    """
    from omegaconf import OmegaConf

    try:
        plain = OmegaConf.to_container(cfg, resolve=True)
        from silo.cli.hydra.plan import plan_from_config

        plan = plan_from_config(plain, project, agent_choice)  # type: ignore[arg-type]
        if runs_dir is not None:
            plan = replace(plan, runs_dir=runs_dir)
    except SiloError as exc:
        _say(exc.message)
        if group_dir is not None:
            from silo.batch.sweep import record_infra_error

            record_infra_error(
                group_dir,
                environment=None,
                task_id=str(cfg.get("task", "?")),
                agent=agent_choice,
                error=exc.message,
            )
        return 2
    return _run_plan(plan, project, group_dir)


def _run_plan(plan: Any, project: Path, group_dir: Path | None) -> int:
    single = group_dir is None and plan.runs == 1 and len(plan.points) == 1 and not plan.resume
    if single:  # silo.batch.point alone: a single run never imports the sweep machinery
        from silo.batch.point import run_point

        point = plan.points[0]
        try:
            result = run_point(point, project_dir=project, runs_dir=plan.runs_dir)
        except SiloError as exc:
            _say(exc.message)
            return 2
        from silo.batch.cost import record_costs

        record_costs([result.run_dir], plan.prices)
        print_rollout(result, project)
        ran = [result.run_dir] if result.run_dir is not None else []
        judge_failed = _judged(_judge(plan, ran, project))
        if result.environment_error:  # the environment failed, not the agent
            _say(f"{result.environment_error}; fix the environment's code")
            return 2
        if result.termination_reason == "model_error":  # the endpoint failed, not the model
            _say(f"model error (not graded): {result.error}")
            return 2
        if judge_failed:
            return 2
        return 0 if result.passed or not plan.fail_on_error else 1
    shared = group_dir is not None
    if group_dir is None:
        from silo.artifacts.run_folder import allocate_run_dir

        group_id, group_dir = allocate_run_dir(plan.runs_dir, prefix="group")
    else:
        group_id = group_dir.name
    from silo.batch.sweep import run_points

    _say_endpoint_limit(plan)
    try:
        outcomes = run_points(
            plan.points,
            plan.runs,
            project_dir=project,
            group_dir=group_dir,
            group_id=group_id,
            runs_root=plan.runs_dir,
            resume=plan.resume,
            progress=plan.progress,
            max_concurrency=plan.max_concurrency,
            workers=plan.workers,
            shared_group=shared,  # a sweep's jobs share its folder (the sweeper checked it)
        )
    except SiloError as exc:  # e.g. a worker process lost (workers=P): the records it names
        _say(exc.message)
        return 2
    from silo.batch.cost import record_costs
    from silo.batch.outcomes import FAILED, NOT_GRADED, count_line

    record_costs((o.run_dir for o in outcomes if not o.resumed), plan.prices)
    failed = [o for o in outcomes if o.outcome == FAILED]
    skipped = sum(1 for o in outcomes if o.resumed)
    if skipped:
        print(f"resume: {skipped} of {len(outcomes)} rollouts skipped (already completed)")
    # Before the summary, which shows judged items; only this job's runs (a sweep's other jobs
    # judge their own, maybe at the same time in other processes).
    judged = _judge(plan, [o.run_dir for o in outcomes if o.run_dir is not None], project)
    if group_dir.name.startswith("group_"):
        from silo.batch.summary import write_summary

        summary = write_summary(group_dir)
        print(summary["table"])
        print(f"summary: {_rel(group_dir / 'summary.json', project)}")
    else:
        task = ",".join(dict.fromkeys(o.point.task for o in outcomes))
        counts = Counter(o.outcome for o in outcomes)
        print(f"{task} {plan.points[0].agent_label if plan.points else ''}: {count_line(counts)}")
    judge_failed = _judged(judged)
    stopped = next((o for o in outcomes if o.stopped), None)
    if stopped is not None:  # the sweep's one line about a dead endpoint
        _say(f"stopped early, {sum(o.stopped for o in outcomes)} rollout(s) {stopped.infra_error}")
    if any(o.outcome in NOT_GRADED for o in outcomes) or judge_failed:  # not the agent's failure
        return 2
    if failed and plan.fail_on_error:
        return 1
    return 0


def _judge(plan: Any, run_dirs: list[Path], project: Path) -> dict[str, Any] | None:
    """With ``judge=``, grade the runs' rubric items (``judgement.json``); the counts."""
    if not plan.judges:
        return None
    from silo.batch.judging import judge_run_dirs
    from silo.judges.judgement import resolve_judges

    return judge_run_dirs(run_dirs, project, resolve_judges(plan.judges))


def _judged(counts: dict[str, Any] | None) -> bool:
    """Print the judged items apart from the checks; True when a judge failed.

    Each distinct failure of a judge (its endpoint) is one line on stderr, and the job exits
    2: a judge error is neither the agent's pass nor its failure.
    """
    if counts is None:
        return False
    from silo.batch.judging import judged_line

    print(judged_line(counts))
    for error in counts["judgeErrors"]:
        _say(f"judge error (not the agent's failure): {error}")
    return bool(counts["judgeErrors"])


# The model agents' per-endpoint connection limit (conf/agent/openai.yaml, anthropic.yaml).
_ENDPOINT_LIMIT = "max_connections"


def _say_endpoint_limit(plan: Any) -> None:
    """One line when the agent's endpoint limit keeps fewer requests in flight than asked.

    ``max_concurrency=N`` is the rollouts in flight; a model agent's ``max_connections`` below
    N caps its requests to the endpoint. That is a choice to make on purpose, so it is said.
    """
    limits: set[int] = set()
    for point in plan.points:
        found = point.agent.get(_ENDPOINT_LIMIT) if isinstance(point.agent, dict) else None
        if isinstance(found, int):
            limits.add(found)
    below = sorted(limit for limit in limits if limit < plan.max_concurrency)
    if below:
        _say(
            f"note: max_concurrency={plan.max_concurrency} rollouts in flight, but "
            f"agent.{_ENDPOINT_LIMIT}={below[0]} caps the requests to the model endpoint at "
            f"{below[0]} at once; set agent.{_ENDPOINT_LIMIT}={plan.max_concurrency} to match"
        )


def _rel(path: Path, project: Path) -> str:
    try:
        return str(path.relative_to(project))
    except ValueError:
        return str(path)


def one_line(text: str) -> str:
    """``text`` as one terminal line: agent, tool and environment text cannot fake another."""
    return terminal_safe(text, newlines=False)


def print_rollout(result: Any, project: Path) -> None:
    """Print the short report of a single rollout: verdict, counts, failed checks, folder."""
    r = result.result
    verdict = "PASS" if r["passed"] else "FAIL"
    lines = [
        one_line(f"{result.task.id}  {result.task.title}"),
        f"{verdict}  reward {r['reward']:.2f}  tool calls {r['toolCalls']} ({r['toolErrors']} errors)"
        f"  checks {r['checksPassed']}/{r['checksPassed'] + r['checksFailed']}"
        f" (required {r['requiredPassed']}/{r['requiredTotal']})",
    ]
    if r["terminationReason"] != "completed":
        lines.append(f"ended early: {r['terminationReason']}")
    if r["error"]:
        lines.append(one_line(f"error: {r['error']}"))
    lines.extend(one_line(f"  x {label}") for label in r["failedRequired"])
    if "userTurns" in result.run:  # a conversational task
        ended = result.run.get("conversationEndedBy")
        lines.append(f"conversation: {result.run['userTurns']} user turns, ended by {ended}")
    if result.run_dir is not None:
        lines.append(f"run folder: {_rel(result.run_dir, project)}")
    print("\n".join(lines))
