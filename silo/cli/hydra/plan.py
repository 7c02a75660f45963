"""From a composed ``silo-run`` config to the rollouts to run.

Contract: :func:`plan_from_config` turns the composed config (a plain mapping) into
:class:`Plan`: the environment, the points (one per task matched by ``task``), ``runs``,
``seed``, ``resume``, ``fail_on_error``, the runs folder. Every invalid value raises a one-line
:class:`SiloError` that names the key and the fix.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from silo.batch.point import Point, expand_tasks
from silo.batch.sweep import concurrency
from silo.errors import ConfigError
from silo.loading.environment import load_environment
from silo.rollout.run import Budget
from silo.users.resolve import resolve_user

__all__ = ["Plan", "plan_from_config"]


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


def agent_label(choice: str | None, agent: Mapping[str, Any]) -> str:
    """The agent's name in reports: the file's stem, the target's name, or the group choice."""
    if choice in ("file", None) and agent.get("path"):
        return Path(str(agent["path"])).stem
    if choice in ("target", None) and agent.get("_target_"):
        return str(agent["_target_"]).replace(":", ".").rpartition(".")[2]
    return choice or str(agent.get("name", "agent"))


def plan_from_config(cfg: Mapping[str, Any], project: Path, agent_choice: str | None) -> Plan:
    """The :class:`Plan` of a composed config; a one-line ``SiloError`` for any bad value."""
    env_cfg = cfg.get("env")
    env_name = env_cfg.get("name") if isinstance(env_cfg, Mapping) else env_cfg
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
    for part in str(task_spec).split(","):
        for task_id in expand_tasks(part.strip(), environment.tasks):
            environment.task(task_id)  # one-line error listing the known ids
            tasks.append(task_id)
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
    )
