"""From a composed ``silo-run`` config to the rollouts to run.

Contract: :func:`plan_from_config` turns the composed config (a plain mapping) into
:class:`Plan`: the environment (without ``env``, the project's one), the points (one per task
matched by ``task``; ``task=[A,B]``, Hydra's list, is one group of both), ``runs``,
``seed``, ``resume``, ``fail_on_error``, ``max_concurrency``, ``workers``, the runs folder,
the price table (``pricing``). Every invalid value raises a one-line :class:`SiloError` that
names the key and the fix.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from silo.batch.cost import PriceTable, price_table
from silo.batch.point import Point, expand_tasks
from silo.batch.sweep import concurrency, worker_count
from silo.errors import ConfigError
from silo.json_types import JSON
from silo.loading.environment import Environment, load_environment
from silo.loading.project import default_environment
from silo.rollout.run import Budget
from silo.users.resolve import resolve_user
from silo.variants import instance_id, random_instance

__all__ = ["Plan", "plan_from_config", "task_parts"]


@dataclass(frozen=True)
class Plan:
    """What one ``silo-run`` job runs: its points, repeats and how to report them."""

    env: str
    points: list[Point]
    runs: int
    resume: bool
    fail_on_error: bool
    progress: Any
    runs_dir: Path
    max_concurrency: int = 1
    workers: int = 1  # processes the rollouts are spread over (each max_concurrency in flight)
    # judge=: graders of the tasks' rubric items, after the runs (names or conf/judge/ nodes)
    judges: tuple[str | Mapping[str, Any], ...] = ()
    prices: PriceTable = field(default_factory=dict)  # pricing=: estimatedCost in run.json


def _positive_int(value: Any, key: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(
            "config_invalid", f"{key} must be a whole number >= {minimum}, got {value!r}"
        )
    return value


def _flag(value: Any, key: str) -> bool:
    if isinstance(value, bool):
        return value
    raise ConfigError("config_invalid", f"{key} must be true or false, got {value!r}")


def agent_label(choice: str | None, agent: Mapping[str, JSON]) -> str:
    """The agent's name in reports: the file's stem, the target's name, or the group choice."""
    if choice in ("file", None) and agent.get("path"):
        return Path(str(agent["path"])).stem
    if choice in ("target", None) and agent.get("_target_"):
        return str(agent["_target_"]).replace(":", ".").rpartition(".")[2]
    return choice or str(agent.get("name", "agent"))


def task_parts(spec: Any) -> list[str]:
    """The task ids, globs or ``all`` of ``task=``: a list (``task=[A,B]``) or commas (``A,B``)."""
    items = spec if isinstance(spec, list | tuple) else str(spec).split(",")
    return [str(item).strip() for item in items if str(item).strip()]


def plan_from_config(cfg: Mapping[str, JSON], project: Path, agent_choice: str | None) -> Plan:
    """The :class:`Plan` of a composed config; a one-line ``SiloError`` for any bad value."""
    env_cfg = cfg.get("env")
    env_name = env_cfg.get("name") if isinstance(env_cfg, Mapping) else env_cfg
    if env_name is None:  # e.g. a +sweep= without env: the project's one, or the choices
        env_name = default_environment(project)
    if not isinstance(env_name, str) or not env_name:
        raise ConfigError("config_invalid", "env must name an environment, e.g. env=crm")
    environment = load_environment(env_name, project)
    task_spec = cfg.get("task")
    if task_spec is None or task_spec == "???":
        known = ", ".join(environment.tasks) or "none yet"
        raise ConfigError(
            "config_invalid", f"missing task; add task=<id>, task=all or a glob (known: {known})"
        )
    budget_cfg = cfg.get("budget") or {}
    budget = Budget.of(dict(budget_cfg))
    agent = cfg.get("agent")
    if not isinstance(agent, Mapping):
        raise ConfigError(
            "config_invalid", "agent must be a config group choice, e.g. agent=solver"
        )
    if "path" in agent and not agent.get("path") and agent_choice == "file":
        raise ConfigError(
            "config_invalid", "agent=file needs agent.path=<file.py> (a file exporting agent(inp))"
        )
    if "_target_" in agent and not agent.get("_target_") and agent_choice == "target":
        raise ConfigError("config_invalid", "agent=target needs agent._target_=<pkg.module:attr>")
    agent_spec = dict(agent)
    seed = cfg.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ConfigError("config_invalid", f"seed must be a whole number, got {seed!r}")
    tasks = []
    for part in task_parts(task_spec):
        for task_id in expand_tasks(part, [*environment.tasks, *environment.templates]):
            for instance in instances(environment, task_id, cfg.get("variant"), seed):
                environment.task(instance)  # one-line error listing the known ids
                tasks.append(instance)
    judges = _judges(cfg.get("judge"))
    if judges:  # a malformed rubric or combinedReward is one line before any rollout
        from silo.judges import rubric_items
        from silo.judges.reward import judged_task

        for task_id in dict.fromkeys(tasks):
            rubric_items(environment.task(task_id))
            judged_task(environment.task(task_id), environment)
    label = agent_label(agent_choice, agent)
    user_cfg = cfg.get("user")
    user = dict(user_cfg) if isinstance(user_cfg, Mapping) else user_cfg
    if any(environment.task(t).user for t in tasks):
        resolve_user(user)  # a bad user= is one line before any rollout starts
    points = [
        Point(
            env_name, t, agent_spec, label, budget, seed, user if environment.task(t).user else None
        )
        for t in tasks
    ]
    return Plan(
        env=env_name,
        points=points,
        runs=_positive_int(cfg.get("runs", 1), "runs"),
        resume=_flag(cfg.get("resume", False), "resume"),
        fail_on_error=_flag(cfg.get("fail_on_error", True), "fail_on_error"),
        progress=cfg.get("progress", "auto"),
        runs_dir=Path(str(cfg.get("runs_dir") or project / ".silo" / "runs")),
        max_concurrency=concurrency(cfg.get("max_concurrency", 1)),
        workers=worker_count(cfg.get("workers", 1)),
        judges=judges,
        prices=price_table(cfg.get("pricing")),
    )


def _judges(spec: Any) -> tuple[str | Mapping[str, Any], ...]:
    """``judge=`` as judge choices, each checked now (one line before any rollout).

    The ``judge`` group's node (``conf/judge/``), or names and targets (a list, or commas).
    """
    from silo.judges.judgement import resolve_judges

    if spec is None:
        return ()
    if isinstance(spec, Mapping):
        choices: tuple[str | Mapping[str, Any], ...] = (dict(spec),)
    else:
        items = spec if isinstance(spec, list) else [spec]
        choices = tuple(c.strip() for item in items for c in str(item).split(",") if c.strip())
    if not resolve_judges(choices):
        return ()
    return choices


def variant_numbers(spec: Any, template: str, seed: int, count: int | None) -> list[int]:
    """The instance numbers ``variant=`` names: ``17``, ``0-99``, ``random`` or a list of them."""
    if spec is None:
        return [0]
    if isinstance(spec, (list, tuple)) or type(spec).__name__ == "ListConfig":
        return [n for item in spec for n in variant_numbers(item, template, seed, count)]
    if isinstance(spec, int) and not isinstance(spec, bool) and spec >= 0:
        return [spec]
    text = str(spec).strip()
    if text == "random":
        return [random_instance(template, seed, count)]
    first, dash, last = text.partition("-")
    if first.isdigit() and (not dash or last.isdigit()) and int(last or first) >= int(first):
        return list(range(int(first), int(last or first) + 1))
    raise ConfigError(
        "config_invalid",
        f"variant must be an instance number (17), a range (0-99), random or a list, got {spec!r}",
    )


def instances(environment: Environment, task_id: str, variant: Any, seed: int) -> list[str]:
    """The task ids ``task_id`` stands for: itself, or the instances ``variant`` names."""
    if task_id not in environment.templates:
        return [task_id]
    count = environment.instance_count(task_id) if variant == "random" else None
    return [instance_id(task_id, n) for n in variant_numbers(variant, task_id, seed, count)]
