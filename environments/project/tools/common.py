"""Guards and plumbing shared by every project-tracking tool.

Contract: the guards turn semantically bad input into :class:`silo.ToolError` refusals with the
conventional codes (``not_found`` for unknown ids, ``not_allowed`` for deactivated actors or
assignees, ``invalid_state`` for records in the wrong lifecycle stage, ``limit_exceeded`` for a
capacity overrun, ``conflict`` for a change that changes nothing), so tool bodies read as the
happy path. Every guard runs before the first write, so a refused call leaves the world as it
was. :func:`page` is the one pagination of list and search tools and :func:`contains` the one
case-insensitive match of search tools. Tools never hand out live parts of the state.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date
from typing import Any

from silo import Index, ToolError

from .. import state as derived
from ..state import record_audit
from .schema import DEFAULT_LIMIT

Args = dict[str, Any]
Record = dict[str, Any]
World = Mapping[str, Any]

LABELS = {
    "members": ("member", "list_members or search_members"),
    "teams": ("team", "list_teams"),
    "projects": ("project", "list_projects or search_projects"),
    "sprints": ("sprint", "list_sprints"),
    "workItems": ("work item", "list_work_items or search_work_items"),
    "workflowStates": ("workflow state", "list_workflow_states"),
    "timeLogs": ("time log", "list_time_logs"),
}


def fetch(state: World, collection: str, record_id: str) -> Record:
    """The record ``record_id`` of ``collection``, or a ``not_found`` refusal."""
    record: Record | None = state[collection].get(record_id)
    if record is None:
        label, finder = LABELS[collection]
        raise ToolError(
            "not_found",
            f"no {label} has id {record_id}; look it up with {finder}",
            {"id": record_id},
        )
    return record


def acting_member(state: World, actor_id: str) -> Record:
    """The member performing a change; unknown or deactivated members are refused."""
    member: Record | None = state["members"].get(actor_id)
    if member is None:
        raise ToolError(
            "not_found", f"actorId {actor_id} is not a member; see list_members", {"id": actor_id}
        )
    if not member["active"]:
        raise ToolError(
            "not_allowed",
            f"{member['name']} ({actor_id}) is deactivated and cannot make changes; act as an "
            "active member",
            {"id": actor_id},
        )
    return member


def active_member(state: World, member_id: str, purpose: str) -> Record:
    """A member who may take on ``purpose`` (work, a lead role): must exist and be active."""
    member = fetch(state, "members", member_id)
    if not member["active"]:
        raise ToolError(
            "not_allowed",
            f"{member['name']} ({member_id}) is deactivated and cannot {purpose}; pick an "
            "active member",
            {"id": member_id},
        )
    return member


def require_capacity(state: World, member: Mapping[str, Any], extra: float) -> None:
    """Refuse work that would push ``member``'s load past their weekly capacity."""
    load = derived.member_load(state, member["id"])
    if load + extra > member["weeklyCapacity"]:
        raise ToolError(
            "limit_exceeded",
            f"{member['name']} carries {load:g} of {member['weeklyCapacity']:g} points; "
            f"{extra:g} more would put them over capacity; pick someone with room "
            "(see member_load)",
            {"load": load, "capacity": member["weeklyCapacity"], "requested": extra},
        )


def open_project(state: World, project_id: str) -> Record:
    """A project that can still take work: exists and is not completed."""
    project = fetch(state, "projects", project_id)
    if project["status"] == "completed":
        raise ToolError(
            "invalid_state",
            f"project {project['key']} is completed and takes no new work",
            {"id": project_id},
        )
    return project


def unfinished_item(state: World, item_id: str, action: str) -> Record:
    """A work item that is not done yet; done items refuse ``action``."""
    item = fetch(state, "workItems", item_id)
    if derived.is_done(state, item):
        raise ToolError(
            "invalid_state",
            f"{item_id} is already done; cannot {action} unless it is moved out of Done first",
            {"id": item_id},
        )
    return item


def parse_day(value: str, field: str) -> date:
    """A YYYY-MM-DD string as a date; impossible dates (2026-02-30) are refused."""
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ToolError(
            "invalid_input", f"{field} {value!r} is not a real calendar date (YYYY-MM-DD)"
        ) from None


def not_future(state: World, value: str, field: str) -> str:
    """A date on or before today in the world's clock."""
    if parse_day(value, field) > date.fromisoformat(state["now"]):
        raise ToolError(
            "invalid_input", f"{field} {value} is in the future; today is {state['now']}"
        )
    return value


def non_blank(value: str, field: str) -> str:
    """``value`` without surrounding spaces; refuses a value that is only spaces."""
    cleaned = value.strip()
    if not cleaned:
        raise ToolError("invalid_input", f"{field} is blank; give it some text")
    return cleaned


def changes(args: Args, fields: Sequence[str]) -> Args:
    """The subset of ``fields`` present in ``args``; refuses an update that names none."""
    found = {name: args[name] for name in fields if name in args}
    if not found:
        raise ToolError(
            "invalid_input", f"nothing to update; pass at least one of: {', '.join(fields)}"
        )
    return found


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


def search_term(args: Args) -> str:
    """The normalised ``query`` of a search tool; a blank query is refused."""
    term = str(args["query"]).strip().casefold()
    if not term:
        raise ToolError("invalid_input", "query is blank; pass some text to look for")
    return term


def contains(term: str, values: Iterable[Any]) -> bool:
    """Whether the normalised ``term`` occurs in any of the non-empty ``values``, any case."""
    return any(term in str(value).casefold() for value in values if value)


def page(
    rows: Sequence[Mapping[str, Any]],
    args: Args,
    view: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """``{total, count, offset, results}`` for the window ``args`` asks for (detached copies).

    ``view`` turns a stored record into what the agent sees; only the window is viewed.
    """
    limit = int(args.get("limit", DEFAULT_LIMIT))
    offset = int(args.get("offset", 0))
    window = [
        copy.deepcopy(dict(view(row) if view else row)) for row in rows[offset : offset + limit]
    ]
    return {"total": len(rows), "count": len(window), "offset": offset, "results": window}


def sorted_by_id(records: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Records in id order, so listings are stable."""
    return sorted(records, key=lambda record: record["id"])


def name_of(state: World, collection: str, record_id: str | None) -> str | None:
    """The ``name`` of a linked record, or None when the link is empty or dangling."""
    record = state[collection].get(record_id) if record_id else None
    return record["name"] if record is not None else None


def matches(record: Mapping[str, Any], args: Args, keys: Sequence[str]) -> bool:
    """Whether ``record`` equals ``args`` on every one of ``keys`` the caller passed.

    These are the plain field filters of list tools; an absent filter matches everything.
    """
    return all(record[key] == args[key] for key in keys if key in args)


def store(
    state: dict[str, Any], collection: str, record: Record, actor_id: str, entity_type: str
) -> Record:
    """Add a newly minted ``record`` to ``collection`` and audit its creation; returns it."""
    state[collection][record["id"]] = record
    record_audit(state, actor_id, f"{entity_type}.created", entity_type, record["id"])
    return record


def relink(
    state: dict[str, Any], actor_id: str, record: Record, field: str, value: Any, action: str
) -> None:
    """Point ``record[field]`` at ``value`` and audit the move as ``{from, to}``.

    The audit row's entity type is the first part of ``action`` (``team.lead_changed``).
    """
    details = {"from": record[field], "to": value}
    record[field] = value
    record_audit(state, actor_id, action, action.split(".")[0], record["id"], details)


def candidates(
    state: World, args: Args, collection: str, indexes: Mapping[str, Index]
) -> list[Mapping[str, Any]]:
    """The rows a listing must look at; the filters still decide which of them match.

    Those an index finds for the first indexed field the caller filters on, else every row.
    """
    for field, index in indexes.items():
        if field in args:
            return list(index.rows(state, args[field]))
    return list(state[collection].values())
