"""Guards and plumbing shared by every project-tracking tool.

Contract: the guards turn semantically bad input into :class:`silo.ToolError` refusals with the
conventional codes (``not_found`` for unknown ids, ``not_allowed`` for deactivated actors or
assignees, ``invalid_state`` for records in the wrong lifecycle stage, ``limit_exceeded`` for a
capacity overrun, ``conflict`` for a change that changes nothing), so tool bodies read as the
happy path. :data:`WRITES` makes every write tool: it checks the acting member before the
tool's body runs and writes the audit rows the body asks for. Every guard runs before the first
write, so a refused call leaves the world as it was. Tools take the generic readers (blank text, empty or no-op updates, search terms, the
case-insensitive match, real dates) from :mod:`silo.toolkit`; what names this world's records,
tools and clock is defined here, on top of the toolkit's guards. :func:`page` is the one
pagination of list and search tools. Tools never hand out live parts of the state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any, NoReturn

from silo import Index, ToolError
from silo.toolkit.guards import Args, Record, find_record, parse_day, require_active
from silo.toolkit.writes import Writes

from .. import state as derived
from ..state import AUDIT
from .schema import PAGING, actor

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
    label, finder = LABELS[collection]
    return find_record(state, collection, record_id, label, finder)


WRITES = Writes(AUDIT, actor(), people="members", kind="member", hint="see list_members")
"""This world's write tools: ``actorId`` names an active member, and each change is audited."""


def active_member(state: World, member_id: str, purpose: str) -> Record:
    """A member who may take on ``purpose`` (work, a lead role): must exist and be active."""
    member = fetch(state, "members", member_id)
    return require_active(member, member_id, f"cannot {purpose}; pick an active member")


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


def _refuse_state(record_id: str, message: str) -> NoReturn:
    """Refuse with ``invalid_state``: the record exists but its lifecycle forbids the action."""
    raise ToolError("invalid_state", message, {"id": record_id})


def open_project(state: World, project_id: str) -> Record:
    """A project that can still take work: exists and is not completed."""
    project = fetch(state, "projects", project_id)
    if project["status"] == "completed":
        _refuse_state(project_id, f"project {project['key']} is completed and takes no new work")
    return project


def unfinished_item(state: World, item_id: str, action: str) -> Record:
    """A work item that is not done yet; done items refuse ``action``."""
    item = fetch(state, "workItems", item_id)
    if derived.is_done(state, item):
        _refuse_state(
            item_id,
            f"{item_id} is already done; cannot {action} unless it is moved out of Done first",
        )
    return item


def not_future(state: World, value: str, field: str) -> str:
    """A date on or before today in the world's clock."""
    if parse_day(value, field) > date.fromisoformat(state["now"]):
        raise ToolError(
            "invalid_input", f"{field} {value} is in the future; today is {state['now']}"
        )
    return value


page = PAGING.page
"""``page(rows, args, view=None)``: ``{total, count, offset, results}`` for the window ``args``
asks for (detached copies); ``view`` turns a stored record into what the agent sees, and only
the window is viewed."""


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
    state: dict[str, Any], collection: str, record: Record, args: Args, entity_type: str
) -> Record:
    """Add a newly minted ``record`` to ``collection``, audit its creation and return it."""
    state[collection][record["id"]] = record
    WRITES.audit(state, args, f"{entity_type}.created", entity_type, record["id"])
    return record


def relink(
    state: dict[str, Any], args: Args, record: Record, field: str, value: Any, action: str
) -> None:
    """Point ``record[field]`` at ``value`` and audit the move as ``{from, to}``.

    The audit row's entity type is the first part of ``action`` (``team.lead_changed``).
    """
    details = {"from": record[field], "to": value}
    record[field] = value
    WRITES.audit(state, args, action, action.split(".")[0], record["id"], details)


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
