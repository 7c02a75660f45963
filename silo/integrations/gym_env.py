"""A Gymnasium environment over a Silo task: each episode is one rollout on a fresh world.

Contract: :class:`SiloEnv` (registered as ``silo/Silo-v0`` when this module is imported, e.g.
by ``import silo.gym``) takes the environment and task (and ``user``, the simulated user of a
conversational task: default scripted) like :func:`silo.open_session`.
``reset(seed=...)`` ends any episode still open (recorded as closed without finish) and opens
a fresh rollout; the observation is JSON text ``{"instruction", "tools"}``, plus ``"opening"``
(the user's first message, which is then also the instruction) for a conversational task. An
action is JSON text: ``{"tool": <name>, "arguments": {...}}`` for a tool call, whose
observation is the ``ToolResult`` (``{"output", "isError"}``); ``{"message_user": <text>}``
for one message to the task's simulated user, whose observation is the reply (``{"text",
"ended", "isError"}``, exactly what an agent's ``user.send`` returns); or ``{"answer":
<value>}``, which ends the episode: ``terminated``, reward the verifier's. A budget that ends
the rollout (``max_tool_calls``, ``timeout``) gives ``truncated`` with reward 0 (the graded
outcome is in ``info``). A malformed action (and a message on a task without a user, or one
that is not a non-empty string) is an ``invalid_action`` error observation, never an
exception, and is neither a tool call nor a user turn. Spaces are
printable ASCII ``Text``, so ``gymnasium.utils.env_checker.check_env`` passes; observations
longer than ``max_text`` are cut to it. Every episode writes its artifacts like any rollout.
"""

from __future__ import annotations

import json
import string
from dataclasses import replace
from pathlib import Path
from typing import Any, SupportsFloat

from silo.integrations.extras import require

require("gymnasium", "gym", "silo.gym")

import gymnasium as gym  # noqa: E402  (after the extra check, so a missing extra is one line)
from gymnasium import spaces  # noqa: E402

from silo.integrations.episodes import (  # noqa: E402
    EpisodeSpec,
    call_or_end,
    close_if_open,
    invalid_action,
    message_or_end,
    outcome,
)
from silo.rollout.core import RolloutResult  # noqa: E402
from silo.rollout.session import Session  # noqa: E402

__all__ = ["ENV_ID", "SiloEnv"]

ENV_ID = "silo/Silo-v0"
TOOL_ACTION = '{"tool": "<name>", "arguments": {...}}'
MAX_TEXT = 1 << 17  # the CRM's instruction plus tool specs is about 30,000 characters


def _text(payload: Any, limit: int) -> str:
    """ASCII JSON (the spaces' charset is printable ASCII), cut to the space's length."""
    return json.dumps(payload, ensure_ascii=True)[:limit]


class SiloEnv(gym.Env[str, str]):
    """One Silo task as a text environment (see the module docstring for the protocol)."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        env: str = "crm",
        task: str = "TASK-001",
        *,
        budget: dict[str, Any] | None = None,
        runs_dir: str | Path | None = None,
        project_dir: str | Path | None = None,
        write_artifacts: bool = True,
        max_text: int = MAX_TEXT,
        render_mode: str | None = None,
        user: Any = None,
    ) -> None:
        self.episode_spec = EpisodeSpec(
            env=env,
            task=task,
            budget=dict(budget or {}),
            runs_dir=Path(runs_dir) if runs_dir else None,
            project_dir=Path(project_dir) if project_dir else None,
            write_artifacts=write_artifacts,
            agent_label="gym",
            user=user,
        )
        self._environment = self.episode_spec.load()
        self.render_mode = render_mode
        self.max_text = max_text
        charset = string.printable
        self.observation_space = spaces.Text(max_text, min_length=0, charset=charset)
        self.action_space = spaces.Text(max_text, min_length=0, charset=charset)
        self._session: Session | None = None
        self._last = ""
        self.last_result: RolloutResult | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """End any open episode and start a fresh rollout; observe instruction and tools.

        ``options={"task": "TASK-010#17"}`` rolls out that task or template instance this
        episode instead of the environment's fixed one.
        """
        super().reset(seed=seed)
        self._end_open_episode()
        spec = self.episode_spec
        if seed is not None:
            spec = replace(spec, seed=seed)
        chosen = (options or {}).get("task")
        self._session = spec.open(self._environment, str(chosen) if chosen else None)
        self.last_result = None
        observation: dict[str, Any] = {
            "instruction": self._session.instruction,
            "tools": self._session.tools,
        }
        if self._session.has_user:
            observation["opening"] = self._session.instruction
        self._last = _text(observation, self.max_text)
        return self._last, {"task_id": self._session.task.id}

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        """Make one tool call, send the user a message or give the answer (see the module)."""
        session = self._session
        if session is None:
            raise gym.error.ResetNeeded("call reset() before step(): the episode has ended")
        parsed = self._parse(action, session.has_user)
        if isinstance(parsed, str):
            return self._observe(invalid_action(parsed), 0.0, False, False, {})
        if "answer" in parsed:
            result = session.finish(parsed["answer"])
            return self._end(result, result.reward, terminated=True)
        if "message_user" in parsed:
            observed, ended = message_or_end(session, parsed["message_user"])
        else:
            observed, ended = call_or_end(session, parsed["tool"], parsed.get("arguments", {}))
        if ended is not None:
            return self._end(ended, 0.0, terminated=False, observation=observed)
        return self._observe(observed, 0.0, False, False, {})

    def _parse(self, action: str, has_user: bool) -> dict[str, Any] | str:
        """The action as a dict, or the one-line reason it is not a valid action."""
        message = ', {"message_user": "<text>"}' if has_user else ""
        shape = f'an action is JSON: {TOOL_ACTION}{message} or {{"answer": ...}}'
        try:
            parsed = json.loads(action)
        except (TypeError, ValueError) as exc:
            return f"not JSON ({exc}); {shape}"
        if not isinstance(parsed, dict):
            return shape
        if set(parsed) in ({"answer"}, {"message_user"}):
            return parsed
        if set(parsed) - {"tool", "arguments"} or not isinstance(parsed.get("tool"), str):
            return shape
        return parsed

    def _end(
        self,
        result: RolloutResult,
        reward: float,
        *,
        terminated: bool,
        observation: dict[str, Any] | None = None,
    ) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        self._session = None
        self.last_result = result
        info = {"outcome": outcome(result)}
        return self._observe(
            observation or info["outcome"], reward, terminated, not terminated, info
        )

    def _observe(
        self,
        observation: dict[str, Any],
        reward: float,
        terminated: bool,
        truncated: bool,
        info: dict[str, Any],
    ) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        self._last = _text(observation, self.max_text)
        return self._last, reward, terminated, truncated, info

    def render(self) -> str | None:
        """The last observation (``ansi``), or None."""
        return self._last if self.render_mode == "ansi" else None

    def _end_open_episode(self) -> None:
        close_if_open(self._session)
        self._session = None

    def close(self) -> None:
        """End any open episode (recorded as closed without finish); safe to call twice."""
        self._end_open_episode()
        super().close()


if ENV_ID not in gym.registry:
    gym.register(id=ENV_ID, entry_point=f"{__name__}:SiloEnv")
