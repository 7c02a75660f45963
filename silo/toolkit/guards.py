"""Argument readers and guards: semantically bad input becomes one clear :class:`ToolError`.

Contract: the schema already holds the shape of a call's input; these check what a schema
cannot (a date that does not exist, text that is only spaces, an id that names nothing, an actor
who was deactivated, an update that changes nothing) and refuse with the conventional codes:
``invalid_input``, ``not_found``, ``not_allowed``, ``conflict``. Each message says what was
wrong and what to do instead, because the agent reads it. None of them writes to the world
except :func:`apply_changes`, and that only after its own check passed, so a tool that runs its
guards first leaves the world untouched when it refuses.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from datetime import date

from silo.json_types import JSON
from silo.tools import ToolError

__all__ = [
    "Args",
    "Record",
    "acting_record",
    "apply_changes",
    "changes",
    "find_record",
    "non_blank",
    "parse_day",
    "require_active",
    "search_term",
]

Args = dict[str, JSON]
"""A tool's validated input object."""

Record = dict[str, JSON]
"""A stored record: a row of a collection (a top-level dict of the state keyed by id)."""


def find_record(
    state: Mapping[str, JSON], collection: str, record_id: str, label: str, finder: str
) -> Record:
    """The record ``record_id`` of ``state[collection]``, or a ``not_found`` refusal.

    Args:
        state: The world (any mapping view of it).
        collection: The top-level key holding the records, keyed by id.
        record_id: The id the agent gave.
        label: What one record is called in the message (``purchase order``).
        finder: The tools that find a right id (``list_purchase_orders``).

    Raises:
        ToolError: ``not_found``: "no {label} has id {record_id}; look it up with {finder}",
            details ``{"id": record_id}``.
    """
    record: Record | None = state[collection].get(record_id)
    if record is None:
        raise ToolError(
            "not_found",
            f"no {label} has id {record_id}; look it up with {finder}",
            {"id": record_id},
        )
    return record


def require_active(record: Record, record_id: str, consequence: str) -> Record:
    """``record`` when its ``active`` field is true, else a ``not_allowed`` refusal.

    The message is "{name} ({record_id}) is deactivated and {consequence}", so ``consequence``
    says what the deactivation rules out and what to do instead (``cannot own records; pick an
    active user``).
    """
    if not record["active"]:
        raise ToolError(
            "not_allowed",
            f"{record['name']} ({record_id}) is deactivated and {consequence}",
            {"id": record_id},
        )
    return record


def acting_record(
    state: Mapping[str, JSON], collection: str, actor_id: str, kind: str, hint: str
) -> Record:
    """The person making a change (``actorId``): must be in ``state[collection]`` and active.

    Args:
        state: The world.
        collection: Where the people are kept (``users``, ``members``).
        actor_id: The ``actorId`` the call gave.
        kind: What one of them is called (``user``).
        hint: How to find a right id, ending the ``not_found`` message (``see list_users``).

    Raises:
        ToolError: ``not_found`` "actorId {id} is not a {kind}; {hint}", or ``not_allowed``
            "... is deactivated and cannot make changes; act as an active {kind}".
    """
    actor: Record | None = state[collection].get(actor_id)
    if actor is None:
        raise ToolError(
            "not_found", f"actorId {actor_id} is not a {kind}; {hint}", {"id": actor_id}
        )
    return require_active(actor, actor_id, f"cannot make changes; act as an active {kind}")


def parse_day(value: str, field: str, *, date_part: bool = False) -> date:
    """A YYYY-MM-DD string as a date; an impossible date (2026-02-30) is ``invalid_input``.

    With ``date_part`` the value may be a timestamp: only its first ten characters are read.
    """
    try:
        return date.fromisoformat(value[:10] if date_part else value)
    except ValueError:
        raise ToolError(
            "invalid_input", f"{field} {value!r} is not a real calendar date (YYYY-MM-DD)"
        ) from None


def non_blank(value: str, field: str) -> str:
    """``value`` without surrounding spaces; a value that is only spaces is ``invalid_input``."""
    cleaned = value.strip()
    if not cleaned:
        raise ToolError("invalid_input", f"{field} is blank; give it some text")
    return cleaned


def search_term(args: Mapping[str, JSON]) -> str:
    """The ``query`` of a search tool, stripped and case-folded; a blank one is ``invalid_input``."""
    term = str(args["query"]).strip().casefold()
    if not term:
        raise ToolError("invalid_input", "query is blank; pass some text to look for")
    return term


def changes(args: Mapping[str, JSON], fields: Sequence[str]) -> Args:
    """The subset of ``fields`` present in ``args``; an update naming none is ``invalid_input``."""
    found = {name: args[name] for name in fields if name in args}
    if not found:
        raise ToolError(
            "invalid_input", f"nothing to update; pass at least one of: {', '.join(fields)}"
        )
    return found


def apply_changes(record: Record, updates: Mapping[str, JSON]) -> dict[str, JSON]:
    """Write ``updates`` into ``record``; returns ``{field: {from, to}}`` for what differed.

    Refuses with ``conflict`` (writing nothing) when every value already matches, so a no-op
    never reaches an audit log. The values written are copies, so the record never shares a
    list or an object with the call's input or with the returned difference.
    """
    diff = {
        name: {"from": record.get(name), "to": value}
        for name, value in updates.items()
        if record.get(name) != value
    }
    if not diff:
        raise ToolError("conflict", "every value given already matches the record; nothing changed")
    for name in diff:
        record[name] = copy.deepcopy(updates[name])
    return diff
