"""The scripted user: replies from the task file, fully deterministic.

Contract: :class:`ScriptedUser` answers the agent's message from the task's ``user`` block, in
this order: (1) the message contains one of ``ending.when`` and no question mark (a
confirmation, not a question): the user says ``ending.say`` and ends the conversation; (2) the
message asks for one or more facts (it contains one of a fact's ``askedBy`` phrases,
case-insensitively): the user says those facts' values, in the file's order; (3) ``turns`` has a reply for this user turn: the user says it; (4) otherwise the
``fallback``. Nothing else is read (no clock, no randomness), so the same messages always get
the same replies and baselines pin conversational tasks byte for byte. The user never says a
fact it was not asked for.
"""

from __future__ import annotations

from typing import ClassVar

from silo.json_types import JSON
from silo.users.base import UserTurn, UserView, no_identity

__all__ = ["ScriptedUser"]


class ScriptedUser:
    """A user that follows its task's script; see the module docstring."""

    deterministic: ClassVar[bool] = True

    def reply(self, view: UserView) -> UserTurn:
        """The scripted answer to the agent's last message."""
        spec = view.spec
        message = view.last_agent_message
        folded = message.casefold()
        matched = next((p for p in spec.end_when if p.casefold() in folded), None)
        if matched is not None and "?" not in message:
            return UserTurn(spec.end_say, True, f'the agent said "{matched}": the goal is met')
        asked = [fact for fact in spec.facts if fact.asked_in(message)]
        if asked:
            return UserTurn(" ".join(fact.value for fact in asked))
        if view.turn <= len(spec.turns):
            return UserTurn(spec.turns[view.turn - 1])
        return UserTurn(spec.fallback)

    def identity(self, seed: int) -> dict[str, JSON]:
        """``{"kind": "scripted", ...}`` with no model."""
        return no_identity("scripted")
