"""New ids from a sequences table, and the append-only audit log of changes.

Contract: a world keeps its id counters in one top-level dict (``sequences``: prefix -> the
last number issued), so minted ids survive in the world itself and a rolled-back call takes its
counter back with it. :meth:`Sequences.mint` is the one way to make an id: it advances the
counter and returns ``PREFIX-007``. :meth:`AuditTrail.record` appends the one row a change
leaves in the log (``id``, ``at`` the world's clock, ``actorId``, ``action``, ``entityType``,
``entityId``, ``details``) and returns it; rows are only ever appended, and ``details`` is
copied, so a value the tool also returns never aliases the log. Neither reads the real clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from silo.json_types import JSON
from silo.jsonio import plain_copy

__all__ = ["AuditTrail", "Sequences"]


@dataclass(frozen=True)
class Sequences:
    """How a world numbers its records.

    Attributes:
        widths: Zero padding by prefix (``{"AUD": 4}`` makes ``AUD-0001``).
        width: Zero padding of every other prefix.
        unset: The counter of a prefix the table does not hold yet (the next id is one more).
        table: The top-level key of the counters.
    """

    widths: Mapping[str, int] = field(default_factory=dict)
    width: int = 3
    unset: int = 0
    table: str = "sequences"

    def mint(self, state: dict[str, JSON], prefix: str) -> str:
        """The next id for ``prefix`` (``ACC-012``); advances the stored counter."""
        counters = state[self.table]
        value = int(counters.get(prefix, self.unset)) + 1
        counters[prefix] = value
        return f"{prefix}-{value:0{self.widths.get(prefix, self.width)}d}"


@dataclass(frozen=True)
class AuditTrail:
    """Where and how a world logs its changes.

    Attributes:
        ids: The sequences the rows' ids come from.
        prefix: The prefix of a row's id.
        log: The top-level key of the log (a list).
        clock: The top-level key of the world's clock, copied into ``at``.
    """

    ids: Sequences
    prefix: str = "AUD"
    log: str = "auditLog"
    clock: str = "now"

    def record(
        self,
        state: dict[str, JSON],
        actor_id: str,
        action: str,
        entity_type: str,
        entity_id: str,
        details: Mapping[str, JSON] | None = None,
    ) -> dict[str, JSON]:
        """Append the audit row of one change and return it.

        Args:
            state: The world being changed.
            actor_id: Who made the change.
            action: What happened, conventionally ``<entity>.<verb>`` (``account.created``).
            entity_type: What kind of record changed.
            entity_id: Which record changed.
            details: Anything else worth keeping (``{from, to}`` of the fields); copied.
        """
        row = {
            "id": self.ids.mint(state, self.prefix),
            "at": state[self.clock],
            "actorId": actor_id,
            "action": action,
            "entityType": entity_type,
            "entityId": entity_id,
            "details": plain_copy(dict(details or {})),
        }
        state[self.log].append(row)
        return row
