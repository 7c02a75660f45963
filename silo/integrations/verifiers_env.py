"""A verifiers (v1) environment over Silo tasks: one Silo session per rollout, Silo's reward.

Contract: :class:`SiloTaskset` (a ``vf.Taskset``) yields one ``vf.Task`` per Silo task of
``config.env`` (``config.tasks``: a list of ids, variant instance ids such as ``TASK-010#17``
included; empty, the default: every task); :class:`SiloVfEnv` (a ``vf.Env``) plays each rollout host-side, as
verifiers' own OpenEnv taskset does: it opens a :func:`silo.open_session` (a fresh world, its own
run folder under ``config.runs_dir``), tells the model the task, the tools and the action
protocol, and turns each reply — JSON ``{"tool": <name>, "arguments": {...}}`` or
``{"answer": <value>}`` — into a tool call, whose ``ToolResult`` is the next user turn, or the
session's ``finish``. A reply that is not an action is an ``invalid_action`` result and no tool
call. A budget that ends the session, or the harness ending the exchange without an answer,
finishes it as it stands. The rollout's reward (``silo``) is the session's: the verifier's grade
in ``result.json``. For the same calls and answer, ``result.json`` and ``state-diff.json`` are
byte-identical to :func:`silo.run_task`'s. verifiers pins ``mcp`` 2.0 and ``openai`` < 3, so
the ``[verifiers]`` extra lives in its own virtualenv (tests/integrations/verifiers.sh).
Run it with ``vf-eval silo.integrations.verifiers_env`` (see docs/integrations.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from silo.integrations.extras import require
from silo.json_types import JSON

require("verifiers.v1", "verifiers", "silo.integrations.verifiers_env")

import verifiers.v1 as vf  # noqa: E402  (after the extra check, so a missing extra is one line)

from silo.integrations.episodes import (  # noqa: E402
    EpisodeSpec,
    call_or_end,
    invalid_action,
    served_tasks,
)
from silo.rollout.result import RolloutResult  # noqa: E402
from silo.rollout.session import Session  # noqa: E402

__all__ = ["SiloEnvConfig", "SiloTaskData", "SiloTaskset", "SiloTasksetConfig", "SiloVfEnv"]

PROTOCOL = (
    'Act by replying with JSON only: {"tool": "<name>", "arguments": {...}} calls a tool (its '
    'result comes back as the next message); {"answer": <your final answer>} ends the task.'
)


class SiloTaskData(vf.TaskData):  # type: ignore[misc]
    """One Silo task (or variant instance) as verifiers carries it."""

    silo_env: str
    task_id: str


class SiloTasksetConfig(vf.TasksetConfig):  # type: ignore[misc]
    """Which Silo tasks, and where and how their rollouts run."""

    env: str = "crm"
    tasks: list[str] = []  # empty: every task of the environment
    seed: int = 0
    budget: dict[str, JSON] = {}
    runs_dir: str | None = None
    project_dir: str | None = None


class SiloTask(vf.Task[SiloTaskData]):  # type: ignore[misc]
    """A Silo task in verifiers: the environment below plays it."""


class SiloTaskset(vf.Taskset[SiloTask, SiloTasksetConfig]):  # type: ignore[misc]
    """The environment's tasks (``config.tasks``), in order."""

    def load(self) -> list[SiloTask]:
        """One task per Silo task id; the environment plays them, so no prompt here."""
        config = self.config
        environment = _spec(config).load()
        ids = served_tasks(environment, None, list(config.tasks) or "all")
        return [
            SiloTask(SiloTaskData(name=i, prompt=None, silo_env=config.env, task_id=i), config.task)
            for i in ids
        ]


class SiloEnvConfig(vf.EnvConfig):  # type: ignore[misc]
    """The model that plays the tasks (``player``)."""

    player: vf.AgentConfig = vf.AgentConfig()


class SiloVfEnv(vf.Env[SiloEnvConfig]):  # type: ignore[misc]
    """Plays one Silo session per rollout (see the module docstring)."""

    async def run(self, task: Any, agents: Any) -> None:
        """Drive the session from the model's replies; record Silo's reward on the trace."""
        config = self.taskset.config
        spec = _spec(config)
        session = spec.open(spec.load(), task.data.task_id)
        result: RolloutResult | None = None
        async with agents.player.interaction(task) as interaction:
            segment = await interaction.turn(_opening(session))
            while not segment.terminated:
                result, observed = _act(session, segment.last_reply)
                if result is not None:
                    break
                segment = await interaction.turn(json.dumps(observed))
        if result is None:  # the harness ended the exchange without an answer
            result = session.result if session.finished else session.finish(None)
        assert result is not None
        interaction.trace.record_reward("silo", result.reward)


def _spec(config: Any) -> EpisodeSpec:
    return EpisodeSpec(
        env=config.env,
        seed=config.seed,
        budget=dict(config.budget),
        runs_dir=Path(config.runs_dir) if config.runs_dir else None,
        project_dir=Path(config.project_dir) if config.project_dir else None,
        agent_label="verifiers",
    )


def _opening(session: Session) -> str:
    tools = [
        {"name": t["name"], "description": t["description"], "inputSchema": t["inputSchema"]}
        for t in session.tools
    ]
    return f"{session.instruction}\n\nTools: {json.dumps(tools)}\n\n{PROTOCOL}"


def _act(session: Session, reply: str) -> tuple[RolloutResult | None, dict[str, JSON]]:
    """The reply carried out: the finished result, or None and what the model observes."""
    text = reply.strip()
    if text.startswith("```") and text.endswith("```"):  # a fenced JSON reply
        text = "\n".join(text.splitlines()[1:-1])
    try:
        action = json.loads(text)
    except ValueError:
        action = None
    if isinstance(action, dict) and set(action) == {"answer"}:
        return session.finish(action["answer"]), {}
    if not isinstance(action, dict) or not isinstance(action.get("tool"), str):
        return None, invalid_action(f"not an action; {PROTOCOL}")
    if set(action) - {"tool", "arguments"}:
        return None, invalid_action(f"not an action; {PROTOCOL}")
    observed, ended = call_or_end(session, action["tool"], action.get("arguments", {}))
    return ended, observed
