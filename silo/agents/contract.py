"""The agent contract: what an agent receives and what it may return.

Contract: an agent (:data:`Agent`: :class:`SyncAgent` or :class:`AsyncAgent`) is any callable,
sync or ``async``, taking one :class:`AgentInput` and returning ``{"output": value}`` (a bare
value is accepted too). ``call_tool(name, input)``
returns a :class:`ToolResult` (``{"output": ..., "isError": bool}``) and never raises for a bad
call; it raises :class:`RunLimitError` once the run has ended (tool-call limit, timeout). The
result is also awaitable, so async agents may write ``await call_tool(...)``. ``signal`` tells
the agent it should stop; ``emit`` adds a custom event (e.g. ``model_step``) to the trace.

In a conversational task (one whose file has a ``user`` block) ``task`` is the user's opening
message and ``user`` is the :class:`UserChannel`: ``user.send(text)`` (or ``await
user.asend(text)``, or ``await user.send(text)``) sends one message to the simulated user and
returns its :class:`UserReply` (``{"text": str, "ended": bool, "isError": bool}``). A message
after the user ended the conversation, or over ``budget.max_user_turns``, is an error reply,
never an exception; the user ending the conversation never ends the run (the agent still
finishes its work and returns). Elsewhere ``user`` is None.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Generator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, Self, TypeAlias

from silo.errors import SiloException
from silo.json_types import JSON

__all__ = [
    "Agent",
    "AgentError",
    "AgentFn",
    "AgentInput",
    "AsyncAgent",
    "CancelSignal",
    "ModelError",
    "RunLimitError",
    "SyncAgent",
    "ToolResult",
    "UserChannel",
    "UserReply",
    "output_text",
    "unwrap_output",
]


class RunLimitError(SiloException):
    """Raised by ``call_tool`` after the run ended; ``reason`` is the termination reason."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class AgentError(SiloException):
    """An agent's own failure (bad key, unreachable endpoint): ends the run as ``agent_error``."""


class ModelError(SiloException):
    """The agent's model endpoint failed it: ends the run as ``model_error``, not ``agent_error``.

    Raised by a model-backed agent when a request is refused (connection refused, DNS, TLS),
    keeps failing after its retries (5xx, 429), times out, or is answered with something that is
    not a completion. It is an infrastructure failure, not the model's: summaries leave it out
    of pass rates and list it apart with its one-line ``str()``. ``connect_failed`` says the
    endpoint could not be reached at all (a sweep stops early after several in a row).
    """

    def __init__(self, message: str, *, connect_failed: bool = False) -> None:
        super().__init__(message)
        self.connect_failed = connect_failed


class _Reply(dict[str, JSON]):
    """A reply the agent may also ``await`` (returning itself), with its ``isError`` flag."""

    __slots__ = ()

    @property
    def is_error(self) -> bool:
        """True when the call or message failed (see the subclass for what that covers)."""
        return bool(self["isError"])

    def __await__(self) -> Generator[Any, None, Self]:
        return self
        yield  # pragma: no cover - makes this a generator


class ToolResult(_Reply):
    """``{"output": ..., "isError": bool}``; ``await`` on it returns itself.

    ``is_error`` is True when the call failed (unknown tool, invalid input, refusal, crash).
    """

    __slots__ = ()

    @property
    def output(self) -> JSON:
        """The tool's output (for an error, ``{"code", "message", "details"?}``)."""
        return self["output"]


class UserReply(_Reply):
    """``{"text": str, "ended": bool, "isError": bool}``; ``await`` on it returns itself.

    ``is_error`` is True when the message was not delivered (conversation over, turn budget
    spent).
    """

    __slots__ = ()

    @property
    def text(self) -> str:
        """What the user said (for an error reply, why no message was delivered)."""
        return str(self["text"])

    @property
    def ended(self) -> bool:
        """True once the user has ended the conversation: send no more messages."""
        return bool(self["ended"])


@dataclass(frozen=True)
class UserChannel:
    """The agent's line to the simulated user of a conversational task.

    ``opening`` is the user's first message; ``send(text)`` delivers one message and returns the
    user's reply (see the module docstring).
    """

    opening: str
    send: Callable[[str], UserReply]

    async def asend(self, text: str) -> UserReply:
        """:meth:`send` for ``async`` agents (the reply is computed on the agent's thread)."""
        return self.send(text)


class CancelSignal:
    """Set when the run must stop; ``reason`` says why (``timeout``, ``max_tool_calls``)."""

    __slots__ = ("_event", "reason")

    def __init__(self) -> None:
        self._event = threading.Event()
        self.reason: str | None = None

    @property
    def aborted(self) -> bool:
        """True once the run must stop (the agent should return soon)."""
        return self._event.is_set()

    def is_set(self) -> bool:
        """Same as :attr:`aborted`, so the signal reads like a ``threading.Event``."""
        return self._event.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the run must stop or ``timeout`` s passed; True when it must stop."""
        return self._event.wait(timeout)

    def abort(self, reason: str) -> None:
        """Tell the agent to stop, saying why (the first reason wins). Called by the engine."""
        if not self._event.is_set():
            self.reason = reason
            self._event.set()


@dataclass(frozen=True)
class AgentInput:
    """What an agent receives. Also readable as a mapping: ``inp["task"]``."""

    task: str
    tools: list[dict[str, JSON]]
    call_tool: Callable[..., ToolResult]
    signal: CancelSignal
    seed: int = 0
    task_id: str = ""
    environment: str = ""
    deadline: float = float("inf")  # time.monotonic() at which the run times out
    emit: Callable[[str, Mapping[str, JSON]], None] = field(default=lambda kind, data: None)
    user: UserChannel | None = None  # set for conversational tasks only

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)


class SyncAgent(Protocol):
    """An agent that returns its output: ``{"output": value}`` or the bare value."""

    def __call__(self, inp: AgentInput, /) -> JSON:
        """Do the task ``inp`` describes, through ``inp.call_tool``; return the output."""
        ...


class AsyncAgent(Protocol):
    """An agent whose call gives an awaitable of its output (an ``async def``)."""

    def __call__(self, inp: AgentInput, /) -> Awaitable[JSON]:
        """Do the task ``inp`` describes; the awaitable gives the output."""
        ...


Agent: TypeAlias = SyncAgent | AsyncAgent
"""What an agent is: a callable, sync or ``async``, taking one :class:`AgentInput`."""

AgentFn = Agent  # the earlier name, kept for imports of silo.agents.contract


def unwrap_output(returned: JSON) -> JSON:
    """An agent's return value to its output: ``{"output": x}`` gives x, anything else itself."""
    if isinstance(returned, Mapping) and "output" in returned:
        return returned["output"]
    return returned


def output_text(output: JSON) -> str:
    """The text form verifiers receive: strings as-is, None as "", anything else as JSON."""
    if output is None:
        return ""
    if isinstance(output, str):
        return output
    import json

    try:
        return json.dumps(output, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return str(output)
