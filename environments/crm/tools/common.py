"""Guards and plumbing shared by every CRM tool.

Contract: the guards turn semantically bad input into :class:`silo.ToolError` refusals with the
conventional codes (``not_found`` for unknown ids, ``not_allowed`` for deactivated actors or
owners, ``invalid_input`` for impossible dates or empty updates), so tool bodies read as the
happy path. :func:`page` is the one pagination used by list and search tools, and
:func:`contains` the one case-insensitive substring match used by search tools. Tools never hand
out live parts of the state: :func:`snapshot` detaches a stored record before it is returned.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date
from typing import Any

from silo import ToolError

from .schema import DEFAULT_LIMIT

Args = dict[str, Any]
Record = dict[str, Any]

LABELS = {
    "users": "user",
    "accounts": "account",
    "contacts": "contact",
    "leads": "lead",
    "opportunities": "opportunity",
    "activities": "activity",
    "stages": "stage",
}


def fetch(state: Mapping[str, Any], collection: str, record_id: str) -> Record:
    """The record ``record_id`` of ``collection``, or a ``not_found`` refusal."""
    record = state[collection].get(record_id)
    if record is None:
        label = LABELS[collection]
        raise ToolError(
            "not_found",
            f"no {label} has id {record_id}; look it up with list_{collection} or a search tool",
            {"id": record_id},
        )
    return record


def acting_user(state: Mapping[str, Any], actor_id: str) -> Record:
    """The user performing a change; unknown or deactivated users are refused."""
    user = state["users"].get(actor_id)
    if user is None:
        raise ToolError(
            "not_found", f"actorId {actor_id} is not a user; see list_users", {"id": actor_id}
        )
    if not user["active"]:
        raise ToolError(
            "not_allowed",
            f"{user['name']} ({actor_id}) is deactivated and cannot make changes; act as an "
            "active user",
            {"id": actor_id},
        )
    return user


def assignable_user(state: Mapping[str, Any], user_id: str) -> Record:
    """A user who may own records: must exist and be active."""
    user = fetch(state, "users", user_id)
    if not user["active"]:
        raise ToolError(
            "not_allowed",
            f"{user['name']} ({user_id}) is deactivated and cannot own records; pick an "
            "active user",
            {"id": user_id},
        )
    return user


def parse_day(value: str, field: str) -> date:
    """A YYYY-MM-DD string as a date; impossible dates (2026-02-30) are refused."""
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ToolError(
            "invalid_input", f"{field} {value!r} is not a real calendar date (YYYY-MM-DD)"
        ) from None


def future_day(state: Mapping[str, Any], value: str, field: str) -> str:
    """A date that is today or later in the world's clock."""
    if parse_day(value, field) < date.fromisoformat(state["now"]):
        raise ToolError(
            "invalid_input",
            f"{field} {value} is in the past; today is {state['now']}",
            {"today": state["now"]},
        )
    return value


def past_day(state: Mapping[str, Any], value: str, field: str) -> str:
    """A date that is today or earlier in the world's clock."""
    if parse_day(value, field) > date.fromisoformat(state["now"]):
        raise ToolError(
            "invalid_input",
            f"{field} {value} is in the future; today is {state['now']}",
            {"today": state["now"]},
        )
    return value


def non_blank(value: str, field: str) -> str:
    """``value`` without surrounding spaces; refuses a value that is only spaces."""
    cleaned = value.strip()
    if not cleaned:
        raise ToolError("invalid_input", f"{field} is blank; give it some text")
    return cleaned


def changes(args: Args, fields: Sequence[str]) -> Args:
    """The subset of ``fields`` present in ``args``; refuses an update that changes nothing."""
    found = {name: args[name] for name in fields if name in args}
    if not found:
        raise ToolError(
            "invalid_input", f"nothing to update; pass at least one of: {', '.join(fields)}"
        )
    return found


def search_term(args: Args) -> str:
    """The normalised ``query`` of a search tool; a blank query is refused."""
    term = str(args["query"]).strip().casefold()
    if not term:
        raise ToolError("invalid_input", "query is blank; pass some text to look for")
    return term


def apply_changes(record: Record, updates: Args) -> dict[str, Any]:
    """Write ``updates`` into ``record``; returns ``{field: {from, to}}`` for what differed.

    Refuses with ``conflict`` when every value already matches, so a no-op never reaches the
    audit log.
    """
    diff = {
        name: {"from": record.get(name), "to": value}
        for name, value in updates.items()
        if record.get(name) != value
    }
    if not diff:
        raise ToolError("conflict", "every value given already matches the record; nothing changed")
    for name in diff:
        record[name] = updates[name]
    return diff


def contains(term: str, values: Iterable[Any]) -> bool:
    """Whether the normalised ``term`` occurs in any of the non-empty ``values``, any case."""
    return any(term in str(value).casefold() for value in values if value)


def snapshot(record: Mapping[str, Any]) -> Record:
    """A detached copy of a stored record, safe to hand out: editing it cannot touch the world."""
    return copy.deepcopy(dict(record))


def page(
    rows: Sequence[Mapping[str, Any]],
    args: Args,
    view: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """``{total, count, offset, results}`` for the window ``args`` asks for (copies of rows).

    ``view`` turns a stored record into what the agent sees; only the window is viewed.
    """
    limit = int(args.get("limit", DEFAULT_LIMIT))
    offset = int(args.get("offset", 0))
    window = [snapshot(view(row) if view else row) for row in rows[offset : offset + limit]]
    return {"total": len(rows), "count": len(window), "offset": offset, "results": window}


def sorted_by_id(records: Iterable[Record]) -> list[Record]:
    """Records in id order, so listings are stable."""
    return sorted(records, key=lambda record: record["id"])
