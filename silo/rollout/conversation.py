"""A rollout's conversation: the agent's user channel, counted, budgeted and traced.

Contract: :class:`Conversation` is opened with the rollout when its task has a ``user`` block
and a user was chosen. It writes the opening as a ``user_message`` event (``messageId`` 0,
``role`` ``user``, ``opening`` true). Each :meth:`send` is one user turn: a ``user_message``
event with ``role`` ``agent`` and the next ``messageId``, then the user's reply as a
``user_message`` with the same ``messageId``, ``role`` ``user``, ``ended`` and ``durationMs``
(the pairing tool calls have with ``callId``). Messages are delivered one at a time.

The conversation ends once, recorded as ``conversation_end`` with ``endedBy`` and ``reason``:
``user`` (the user ended it), ``budget`` (the message over ``max_user_turns`` is refused with
an error reply and not delivered), ``agent`` (the agent returned first) or ``run`` (a limit or
timeout ended the run). The early-stop guard: a message sent while one of the agent's tool
calls is in flight is delivered (and answered) only once that call returned, so the user can
never end the conversation under a running write; an ending that waited says for which call
(``heldForCallId``). The user
ending never ends the run, so the agent's pending write always lands. After the end every
message gets an error reply. A user that fails ends the run as ``user_error``.
"""

from __future__ import annotations

import threading
import time

from silo.agents.contract import RunLimitError, UserChannel, UserReply
from silo.json_types import JSON
from silo.rollout.bridge import Bridge
from silo.tasks import UserSpec
from silo.users.base import UserFailure, UserView
from silo.users.resolve import ResolvedUser

__all__ = ["Conversation"]

_CLOSE_WAIT_S = 0.5  # how long finishing waits for a user still answering


class Conversation:
    """One rollout's conversation with its simulated user (see the module docstring)."""

    def __init__(
        self, spec: UserSpec, user: ResolvedUser, bridge: Bridge, max_turns: int, seed: int
    ) -> None:
        self.spec, self.user, self.bridge = spec, user, bridge
        self.max_turns, self.seed = max_turns, seed
        self.deadline = float("inf")
        self.turns = 0
        self.ended_by: str | None = None
        self.transcript: list[dict[str, str]] = [{"role": "user", "text": spec.opening}]
        self._sending = threading.Lock()
        self._event(
            "user_message", {"messageId": 0, "role": "user", "text": spec.opening, "opening": True}
        )

    @property
    def channel(self) -> UserChannel:
        """The agent's line to the user (made when asked for).

        Not kept on the conversation: a channel holds ``self.send``, and that cycle would keep
        the rollout's whole trace alive until the garbage collector's next full pass.
        """
        return UserChannel(self.spec.opening, self.send)

    def _event(self, kind: str, fields: dict[str, JSON], locked: bool = True) -> None:
        if not locked:  # at finish: no call can start, and a hung tool must not block the record
            self.bridge.trace.event(kind, fields)
            return
        with self.bridge.lock:
            self.bridge.trace.event(kind, fields)

    def send(self, text: str) -> UserReply:
        """Deliver one agent message and return the user's reply."""
        with self._sending:
            if self.bridge.reason is not None:
                raise RunLimitError(self.bridge.reason, f"Run ended: {self.bridge.reason}.")
            if self.ended_by is not None:
                return _refused("the user has ended the conversation; finish and give your answer")
            if self.turns >= self.max_turns:
                self._end("budget", f"budget.max_user_turns={self.max_turns} reached", None)
                return _refused(
                    f"the conversation reached budget.max_user_turns={self.max_turns}; "
                    "the message was not delivered"
                )
            self.turns = message_id = self.turns + 1
            said = str(text)
            # A tool call holding the bridge is in flight: the message (and so any ending) waits
            # for it below, and an ending records which call it waited for.
            held = None if self.bridge.lock.acquire(blocking=False) else self.bridge.calls
            if held is None:
                self.bridge.lock.release()
            self._event("user_message", {"messageId": message_id, "role": "agent", "text": said})
            self.transcript.append({"role": "agent", "text": said})
            started = time.perf_counter()
            view = UserView(
                self.spec, tuple(self.transcript), message_id, self.seed, self.deadline,
                self.bridge.signal, self.bridge.emit,
            )  # fmt: skip
            try:
                turn = self.user.user.reply(view)
            except UserFailure as exc:
                self.bridge.end("user_error")
                raise RunLimitError("user_error", f"the simulated user failed: {exc}") from None
            except RunLimitError:
                raise
            except Exception as exc:
                self.bridge.end("user_error")
                message = f"the simulated user crashed: {type(exc).__name__}: {exc}"
                raise RunLimitError("user_error", message) from None
            if self.ended_by is not None:  # the run finished while the user was answering
                reason = self.bridge.reason or "completed"
                raise RunLimitError(reason, f"Run ended: {reason}.")
            reply = str(turn.text)
            self.transcript.append({"role": "user", "text": reply})
            duration = round((time.perf_counter() - started) * 1000, 3)
            self._event(
                "user_message",
                {
                    "messageId": message_id,
                    "role": "user",
                    "text": reply,
                    "ended": bool(turn.ended),
                    "durationMs": duration,
                },
            )
            if turn.ended:
                self._end("user", turn.reason or "the user ended the conversation", held)
            return UserReply(text=reply, ended=bool(turn.ended), isError=False)

    def _end(self, by: str, reason: str, held_for: int | None, locked: bool = True) -> None:
        if self.ended_by is not None:
            return
        self.ended_by = by
        fields: dict[str, JSON] = {"endedBy": by, "reason": reason, "userTurns": self.turns}
        if held_for is not None:
            fields["heldForCallId"] = held_for
        self._event("conversation_end", fields, locked)

    def close(self, termination_reason: str) -> None:
        """End the conversation with the run if nobody ended it before (called once, at finish).

        Waits briefly for a message being answered; a user still answering at a timeout is
        abandoned like a hung agent.
        """
        got = self._sending.acquire(timeout=_CLOSE_WAIT_S)
        try:
            if termination_reason == "completed":
                self._end("agent", "the agent returned its answer", None, False)
            else:
                self._end("run", f"the run ended: {termination_reason}", None, False)
        finally:
            if got:
                self._sending.release()

    def record(self) -> dict[str, JSON]:
        """The conversation's ``run.json`` fields."""
        return {"userTurns": self.turns, "conversationEndedBy": self.ended_by}


def _refused(message: str) -> UserReply:
    return UserReply(text=message, ended=True, isError=True)
