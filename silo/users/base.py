"""What every simulated user receives and returns.

Contract: :class:`UserView` is one request for the user's next message: the task's
:class:`~silo.tasks.UserSpec`, the transcript so far (the opening first; ``role`` ``user`` or
``agent``), the 1-based user turn, the rollout's seed, its deadline and cancel signal, and
``emit`` for the user's own trace events. A user answers with a :class:`UserTurn`. A user that
cannot answer (its model endpoint is down) raises :class:`UserFailure` with one line saying
what to fix: the rollout ends as ``user_error``, which is never blamed on the agent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from silo.agents.contract import CancelSignal
from silo.errors import SiloException
from silo.json_types import JSON
from silo.tasks import UserSpec

__all__ = ["SimulatedUser", "UserFailure", "UserTurn", "UserView", "no_identity"]


class UserFailure(SiloException):
    """The simulated user could not answer (its fault, or its endpoint's, never the agent's)."""


@dataclass(frozen=True)
class UserView:
    """What a simulated user sees when asked for its next message."""

    spec: UserSpec
    transcript: Sequence[Mapping[str, str]]  # {"role": "user"|"agent", "text": ...}, in order
    turn: int
    seed: int
    deadline: float = float("inf")
    signal: CancelSignal = field(default_factory=CancelSignal)
    emit: Callable[[str, Mapping[str, JSON]], None] = field(default=lambda kind, data: None)

    @property
    def last_agent_message(self) -> str:
        """The message the user is answering."""
        for message in reversed(self.transcript):
            if message.get("role") == "agent":
                return str(message.get("text", ""))
        return ""


@dataclass(frozen=True)
class UserTurn:
    """The user's message; ``ended`` closes the conversation, ``reason`` says why."""

    text: str
    ended: bool = False
    reason: str | None = None


class SimulatedUser(Protocol):
    """A simulated user: ``reply`` answers one message; ``identity`` is what run.json records."""

    @property
    def deterministic(self) -> bool:
        """True when the same messages always get the same replies (baselines may pin it)."""

    def reply(self, view: UserView) -> UserTurn:
        """The user's next message given the conversation so far."""

    def identity(self, seed: int) -> dict[str, JSON]:
        """Who plays the user (kind, model, baseUrl, temperature, seed), as ``userIdentity``."""


def no_identity(kind: str) -> dict[str, JSON]:
    """The identity of a user that calls no model: ``agentIdentity``'s shape with nulls."""
    return {"kind": kind, "model": None, "baseUrl": None, "temperature": None, "seed": None}
