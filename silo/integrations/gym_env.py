"""A Gymnasium environment over Silo tasks: each episode is one rollout on a fresh world.

Contract: :class:`SiloEnv` (registered as ``silo/Silo-v0`` when this module is imported, e.g.
by ``import silo.gym``) takes the environment and the tasks it serves: ``task=<id>`` (one task),
``tasks="all"`` or a list of ids (default: all), played in turn (``sampling="cycle"``; a seed
restarts the cycle at ``seed % len(tasks)``, so vector copies seeded apart play different tasks)
or drawn with the env's seeded generator (``sampling="random"``). ``reset(options={"task": id})``
picks the episode's task, ``{"variant": "TASK-010#17"}`` a task variant's instance (passed to
the environment as that id). ``user`` is the simulated user of a conversational task (default
scripted), as in :func:`silo.open_session`.

``reset(seed=...)`` ends any episode still open (recorded as closed without finish) and chooses
the next; the observation is JSON text ``{"instruction", "tools"}``, plus ``"opening"`` (the
user's first message, which is then also the instruction) for a conversational task; ``info``
is ``{"task_id"}`` (and ``"variant"``). The episode's rollout — its world, its clock, its run
folder — opens at its first ``step``: an episode that never takes a step (the one an autoreset
vector env starts before ``close``) is discarded and leaves no record, so a runs folder holds
exactly the played episodes. An action is JSON text: ``{"tool": <name>, "arguments": {...}}``
for a tool call, whose observation is the ``ToolResult`` (``{"output", "isError"}``);
``{"message_user": <text>}`` for one message to the task's simulated user, whose observation is
the reply (``{"text", "ended", "isError"}``, exactly what an agent's ``user.send`` returns); or
``{"answer": <value>}``, which ends the episode: ``terminated``, reward the verifier's. A budget
that ends the rollout (``max_tool_calls``, ``timeout``) gives ``truncated`` with the reward of
the world as it stands, the same as ``result.json`` (the graded outcome is in ``info``). A
malformed action (and a message on a task without a user, or one that is not a non-empty
string) is an ``invalid_action`` error observation, never an exception, and is neither a tool
call nor a user turn. Spaces are printable ASCII ``Text``, so
``gymnasium.utils.env_checker.check_env`` passes; observations longer than ``max_text`` are cut
to it. Every played episode writes its artifacts like any rollout.
"""

from __future__ import annotations

import json
import string
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, SupportsFloat

from silo.integrations.extras import require
from silo.json_types import JSON
from silo.users.resolve import UserChoice

require("gymnasium", "gym", "silo.gym")

import gymnasium as gym  # noqa: E402  (after the extra check, so a missing extra is one line)
from gymnasium import spaces  # noqa: E402

from silo.errors import ConfigError  # noqa: E402
from silo.integrations import episodes  # noqa: E402
from silo.rollout.result import RolloutResult  # noqa: E402
from silo.rollout.session import Session  # noqa: E402

__all__ = ["ENV_ID", "SAMPLINGS", "SiloEnv"]

ENV_ID = "silo/Silo-v0"
TOOL_ACTION = '{"tool": "<name>", "arguments": {...}}'
SAMPLINGS = ("cycle", "random")
MAX_TEXT = 1 << 17  # the CRM's instruction plus tool specs is about 30,000 characters


def _text(payload: Any, limit: int) -> str:
    """ASCII JSON (the spaces' charset is printable ASCII), cut to the space's length."""
    return json.dumps(payload, ensure_ascii=True)[:limit]


class SiloEnv(gym.Env[str, str]):
    """Silo tasks as a text environment (see the module docstring for the protocol)."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        env: str = "crm",
        task: str | None = None,
        *,
        tasks: str | Sequence[str] | None = None,
        sampling: str = "cycle",
        budget: dict[str, JSON] | None = None,
        runs_dir: str | Path | None = None,
        project_dir: str | Path | None = None,
        write_artifacts: bool = True,
        max_text: int = MAX_TEXT,
        render_mode: str | None = None,
        user: UserChoice = None,
    ) -> None:
        self.episode_spec = episodes.EpisodeSpec(
            env=env,
            budget=dict(budget or {}),
            runs_dir=Path(runs_dir) if runs_dir else None,
            project_dir=Path(project_dir) if project_dir else None,
            write_artifacts=write_artifacts,
            agent_label="gym",
            user=user,
        )
        self._environment = self.episode_spec.load()
        self.tasks = episodes.served_tasks(self._environment, task, tasks)
        for task_id in self.tasks:  # an unknown id or a bad user= fails here, not mid-training
            self.episode_spec.opening(self._environment.task(task_id))
        if sampling not in SAMPLINGS:
            raise ConfigError(
                "config_invalid", f"sampling={sampling!r}; use one of {', '.join(SAMPLINGS)}"
            )
        self.sampling = sampling
        self._tool_specs = self._environment.tool_specs()
        self.render_mode = render_mode
        self.max_text = max_text
        charset = string.printable
        self.observation_space = spaces.Text(max_text, min_length=0, charset=charset)
        self.action_space = spaces.Text(max_text, min_length=0, charset=charset)
        self._session: Session | None = None
        self._pending: tuple[episodes.EpisodeSpec, str] | None = None
        self._next = 0
        self.last_result: RolloutResult | None = None
        self._last = ""

    def reset(
        self, *, seed: int | None = None, options: dict[str, JSON] | None = None
    ) -> tuple[str, dict[str, JSON]]:
        """End any open episode and choose the next; observe its instruction and tools.

        The rollout itself opens at the episode's first step, so an episode that never takes
        one (an autoreset vector env's last) leaves no record.
        """
        super().reset(seed=seed)
        self._end_open_episode()
        task_id, info = self._choose(seed, dict(options or {}))
        spec = self.episode_spec if seed is None else replace(self.episode_spec, seed=seed)
        task = self._environment.task(task_id)
        self._pending = (spec, task_id)
        self.last_result = None
        opening = spec.opening(task)
        observation: dict[str, JSON] = {
            "instruction": task.instruction if opening is None else opening,
            "tools": self._tool_specs,
        }
        if opening is not None:
            observation["opening"] = opening
        self._last = _text(observation, self.max_text)
        return self._last, info

    def _choose(self, seed: int | None, options: dict[str, JSON]) -> tuple[str, dict[str, JSON]]:
        """The episode's task id (or variant's instance id) and the info that names it."""
        unknown = set(options) - {"task", "variant"}
        if unknown:
            raise ConfigError(
                "config_invalid",
                f"reset options take task and variant; got {sorted(unknown)[0]!r}",
            )
        task, variant = options.get("task"), options.get("variant")
        for key, value in (("task", task), ("variant", variant)):
            if value is not None and not isinstance(value, str):
                raise ConfigError("config_invalid", f"reset option {key} must be a string id")
        if variant is not None:
            if task is not None and not variant.startswith(f"{task}#"):
                raise ConfigError(
                    "config_invalid",
                    f'variant "{variant}" is not an instance of task "{task}" (<task>#<n>)',
                )
            return variant, {"task_id": variant.split("#", 1)[0], "variant": variant}
        if task is None:
            task = self._sampled(seed)
        return task, {"task_id": task}

    def _sampled(self, seed: int | None) -> str:
        """The next task of the env's list: in turn (a seed restarts the cycle), or at random."""
        count = len(self.tasks)
        if self.sampling == "random":
            return self.tasks[int(self.np_random.integers(count))]
        if seed is not None:
            self._next = seed % count
        chosen = self.tasks[self._next % count]
        self._next += 1
        return chosen

    def _opened(self) -> Session | None:
        """The episode's session, opened at its first step; None before any reset."""
        if self._session is None and self._pending is not None:
            spec, task_id = self._pending
            self._pending = None
            self._session = spec.open(self._environment, task_id)
        return self._session

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, JSON]]:
        """Make one tool call, send the user a message or give the answer (see the module)."""
        session = self._opened()
        if session is None:
            raise gym.error.ResetNeeded("call reset() before step(): the episode has ended")
        parsed = self._parse(action, session.has_user)
        if isinstance(parsed, str):
            return self._observe(episodes.invalid_action(parsed), 0.0, False, False, {})
        if "answer" in parsed:
            result = session.finish(parsed["answer"])
            return self._end(result, result.reward, terminated=True)
        if "message_user" in parsed:
            observed, ended = episodes.message_or_end(session, parsed["message_user"])
        else:
            observed, ended = episodes.call_or_end(
                session, parsed["tool"], parsed.get("arguments", {})
            )
        if ended is not None:  # graded as the world stands, like result.json
            return self._end(ended, ended.reward, terminated=False, observation=observed)
        return self._observe(observed, 0.0, False, False, {})

    def _parse(self, action: str, has_user: bool) -> dict[str, JSON] | str:
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
        observation: dict[str, JSON] | None = None,
    ) -> tuple[str, SupportsFloat, bool, bool, dict[str, JSON]]:
        self._session = None
        self.last_result = result
        info = {"outcome": episodes.outcome(result)}
        return self._observe(
            observation or info["outcome"], reward, terminated, not terminated, info
        )

    def _observe(
        self,
        observation: dict[str, JSON],
        reward: float,
        terminated: bool,
        truncated: bool,
        info: dict[str, JSON],
    ) -> tuple[str, SupportsFloat, bool, bool, dict[str, JSON]]:
        self._last = _text(observation, self.max_text)
        return self._last, reward, terminated, truncated, info

    def render(self) -> str | None:
        """The last observation (``ansi``), or None."""
        return self._last if self.render_mode == "ansi" else None

    def _end_open_episode(self) -> None:
        episodes.close_if_open(self._session)
        self._session = None
        self._pending = None  # never opened: nothing to record

    def close(self) -> None:
        """End any open episode (recorded as closed without finish); safe to call twice."""
        self._end_open_episode()
        super().close()


if ENV_ID not in gym.registry:
    gym.register(id=ENV_ID, entry_point=f"{__name__}:SiloEnv")
