"""An OpenEnv server over a Silo task: one rollout per WebSocket session, on a fresh world.

Contract: :func:`create_openenv_app` returns OpenEnv's FastAPI app (``openenv.core``'s
``create_app``) whose environment, :class:`SiloOpenEnv`, is made per session: ``reset``
(optionally ``task=<id>``) opens a rollout and observes ``instruction`` and ``tools`` (and
``opening``, the user's first message, for a conversational task);
``step({"tool", "arguments"})`` observes the ``ToolResult`` as ``result``;
``step({"message_user": <text>})`` sends the task's simulated user one message and observes
its reply (``{"text", "ended", "isError"}``, what an agent's ``user.send`` returns) as
``reply``; ``step({"answer": ...})`` grades the world, writes the four artifacts and ends the
episode (``done``, ``reward`` the verifier's, ``outcome`` the checks). An action that is not
one (``tool`` with ``message_user``; a message on a task without a user, or not a non-empty
string) observes an ``invalid_action`` error as ``result`` and changes nothing. A budget that
ends the rollout also ends the episode (``done``, reward the world's as it stands, the same as
``result.json``). Episodes live on OpenEnv's ``/ws`` socket (its HTTP
``/reset`` and ``/step`` build a new environment per request), and concurrent sessions, as a
GRPO group needs, get separate worlds up to ``max_concurrent_envs``. OpenEnv pins ``mcp`` 1.x,
so the ``[openenv]`` extra goes in its own virtualenv, never beside ``[mcp]``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from silo.integrations.extras import require
from silo.json_types import JSON

require("openenv", "openenv", "silo.integrations.openenv_env")

from fastapi import FastAPI  # noqa: E402  (after the extra check, so a missing extra is one line)
from openenv.core.env_server import Environment, create_app  # noqa: E402
from openenv.core.env_server.types import Action, Observation, State  # noqa: E402
from pydantic import Field  # noqa: E402

from silo.errors import ConfigError  # noqa: E402
from silo.integrations import episodes  # noqa: E402
from silo.loading.environment import Environment as SiloEnvironment  # noqa: E402
from silo.rollout.result import RolloutResult  # noqa: E402
from silo.rollout.session import Session  # noqa: E402

__all__ = ["SiloAction", "SiloObservation", "SiloOpenEnv", "create_openenv_app"]


# openenv cannot share a venv with mcp 2.x, so where mypy runs its classes are Any.
class SiloAction(Action):  # type: ignore[misc]
    """A tool call (``tool``, ``arguments``), a ``message_user``, or else the final ``answer``."""

    tool: str | None = Field(default=None, description="The tool to call; omit to answer.")
    arguments: dict[str, JSON] = Field(default_factory=dict, description="The tool's input.")
    # Any, not str: a wrong type gets the session's one line, like every other integration.
    message_user: Any = Field(
        default=None, description="A message (text) to the task's user; omit tool to send it."
    )
    answer: Any = Field(default=None, description="The final answer, when tool is omitted.")


class SiloObservation(Observation):  # type: ignore[misc]
    """What the agent sees: the task after reset, a tool's result, or the graded outcome."""

    instruction: str = ""
    tools: list[dict[str, JSON]] = Field(default_factory=list)
    opening: str | None = None
    result: dict[str, JSON] | None = None
    reply: dict[str, JSON] | None = None
    outcome: dict[str, JSON] | None = None


class SiloOpenEnv(Environment[SiloAction, SiloObservation, State]):  # type: ignore[misc]
    """One OpenEnv session: a sequence of Silo rollouts, one per ``reset``."""

    SUPPORTS_CONCURRENT_SESSIONS = True  # every instance holds its own Session and world

    def __init__(self, spec: episodes.EpisodeSpec, environment: SiloEnvironment) -> None:
        super().__init__()
        self._spec = spec
        self._environment = environment
        self._session: Session | None = None
        self._state = State(step_count=0)

    def reset(
        self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any
    ) -> SiloObservation:
        """End any rollout still open and start a fresh one (``task=`` picks the task)."""
        self._end_open_episode()
        task = kwargs.get("task")
        spec = self._spec if seed is None else _with_seed(self._spec, seed)
        self._session = spec.open(self._environment, str(task) if task else None)
        self._state = State(episode_id=episode_id, step_count=0)
        session = self._session
        opening = session.instruction if session.has_user else None
        return SiloObservation(
            instruction=session.instruction, tools=session.tools, opening=opening
        )

    def step(
        self, action: SiloAction, timeout_s: float | None = None, **kwargs: Any
    ) -> SiloObservation:
        """One tool call, one message to the user, or the answer that ends the episode."""
        session = self._session
        if session is None:
            error = {"code": "episode_ended", "message": "the episode has ended; call reset()"}
            return SiloObservation(result={"output": error, "isError": True}, done=True, reward=0.0)
        self._state.step_count += 1
        if action.message_user is not None:
            if action.tool is not None:
                refused = episodes.invalid_action(
                    "give tool or message_user in one action, not both"
                )
                return SiloObservation(result=refused, reward=0.0)
            reply, ended = episodes.message_or_end(session, action.message_user)
            if ended is None:
                key = "result" if "output" in reply else "reply"  # an invalid action, or a reply
                return SiloObservation(**{key: reply}, reward=0.0)
            return self._ended(ended, result=reply)
        if action.tool is None:
            answered = session.finish(action.answer)
            self._session = None
            return SiloObservation(
                outcome=episodes.outcome(answered), done=True, reward=answered.reward
            )
        result, ended = episodes.call_or_end(session, action.tool, action.arguments)
        if ended is None:
            return SiloObservation(result=result, reward=0.0)
        return self._ended(ended, result=result)

    def _ended(self, ended: RolloutResult, result: dict[str, JSON]) -> SiloObservation:
        """A budget or the deadline ended the rollout: the refusal and the graded outcome."""
        self._session = None
        reward = ended.reward  # graded as the world stands, like result.json
        return SiloObservation(
            result=result, outcome=episodes.outcome(ended), done=True, reward=reward
        )

    @property
    def state(self) -> State:
        """The episode id and the number of steps taken."""
        return self._state

    def _end_open_episode(self) -> None:
        episodes.close_if_open(self._session)
        self._session = None

    def close(self) -> None:
        """End the open rollout, if any (recorded as closed without finish)."""
        self._end_open_episode()


def _with_seed(spec: episodes.EpisodeSpec, seed: int) -> episodes.EpisodeSpec:
    from dataclasses import replace

    return replace(spec, seed=seed)


def create_openenv_app(spec: episodes.EpisodeSpec, *, max_concurrent_envs: int = 16) -> FastAPI:
    """OpenEnv's app serving ``spec``; the environment (and task) are checked here, once."""
    environment = spec.load()
    if max_concurrent_envs < 1:
        raise ConfigError("config_invalid", "max_concurrent_envs must be at least 1")

    def factory() -> SiloOpenEnv:
        return SiloOpenEnv(spec, environment)

    make: Callable[[], SiloOpenEnv] = factory
    return create_app(
        make,
        SiloAction,
        SiloObservation,
        env_name=f"silo-{environment.name}",
        max_concurrent_envs=max_concurrent_envs,
    )
