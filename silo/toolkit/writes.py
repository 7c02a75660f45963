"""Write tools: the acting-user check and the audit row, owned in one place.

Contract: a world whose changes are made by a named actor (an ``actorId`` field naming one of a
collection of people who carry an ``active`` flag) and logged in an :class:`AuditTrail`
declares one :class:`Writes`. :meth:`Writes.input` builds a write tool's input schema with the
actor field first and required; :meth:`Writes.tool` builds the tool so that the actor is checked
(unknown: ``not_found``, deactivated: ``not_allowed``) before the tool's body runs, which is why
a body neither repeats the check nor can forget it; :meth:`Writes.audit` appends the row of a
change made by the call's actor, and :meth:`actor_of` hands the body the actor's record. The
body keeps the plain ``run(state, args)`` shape of :func:`silo.define_tool`, so a write tool is
an ordinary tool with one guard in front.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from silo.json_types import JSON
from silo.toolkit.guards import Record, acting_record
from silo.toolkit.records import AuditTrail
from silo.toolkit.schema import Schema, obj
from silo.tools import RunFn, Tool, define_tool

__all__ = ["Writes"]


@dataclass(frozen=True)
class Writes:
    """How a world's write tools name their actor and log their changes.

    Attributes:
        trail: The audit log every change is appended to.
        actor: The actor field's schema (see :func:`silo.toolkit.actor_id`); each input gets a copy.
        people: The top-level collection the actor must be found in (``users``, ``members``).
        kind: What one of them is called in a refusal (``user``).
        hint: How to find a right id, ending the ``not_found`` refusal (``see list_users``).
        field: The input property naming the actor.
    """

    trail: AuditTrail
    actor: Schema
    people: str = "users"
    kind: str = "user"
    hint: str = "see list_users"
    field: str = "actorId"

    def input(self, properties: Mapping[str, Schema], required: Sequence[str] = ()) -> Schema:
        """A write tool's input object: the actor field first (required), then ``properties``."""
        return obj({self.field: copy.deepcopy(self.actor), **properties}, [self.field, *required])

    def tool(self, name: str, description: str, input_schema: Schema, body: RunFn) -> Tool:
        """A write tool: ``body(state, args)`` runs once the call's actor is known and active.

        Raises:
            ValueError: ``input_schema`` does not require the actor field (the environment's
                mistake: the check would read a missing value).
        """
        if self.field not in input_schema.get("required", ()):
            raise ValueError(f"write tool {name} must require {self.field}; see Writes.input")

        def run(state: Any, args: dict[str, JSON]) -> Any:
            self.acting(state, args)
            return body(state, args)

        return define_tool(name, description, input_schema, run)

    def acting(self, state: Mapping[str, JSON], args: Mapping[str, JSON]) -> Record:
        """The call's actor: a known, active member of :attr:`people`, or a refusal."""
        return acting_record(state, self.people, args[self.field], self.kind, self.hint)

    def actor_of(self, state: Mapping[str, JSON], args: Mapping[str, JSON]) -> Record:
        """The call's actor, read inside a write tool's body (where :meth:`tool` checked it)."""
        actor: Record = state[self.people][args[self.field]]
        return actor

    def audit(
        self,
        state: dict[str, JSON],
        args: Mapping[str, JSON],
        action: str,
        entity_type: str,
        entity_id: str,
        details: Mapping[str, JSON] | None = None,
    ) -> dict[str, JSON]:
        """Append the audit row of a change the call's actor made (see ``AuditTrail.record``)."""
        return self.trail.record(state, args[self.field], action, entity_type, entity_id, details)
