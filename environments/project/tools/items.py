"""Work-item tools: the workflow, reading items, creating and editing them.

Contract: ``list_workflow_states`` shows the board's columns in order; ``list_work_items``
(project, sprint, assignee, unassigned, status, type, priority, open, blocked, overdue filters),
``search_work_items`` (id, title) and ``get_work_item`` (with comments, children, dependencies,
hours and time logs) return items with derived figures. ``create_work_item`` adds an item to a
project that is not completed, in the first workflow state unless a state is given, with the
assignee's capacity checked; ``update_work_item`` edits title, type, priority, estimate, due
date or parent, capacity-checking an estimate increase. Each mutation appends one audit row.
:func:`check_due_date`, :func:`check_sprint` and :func:`check_assignee` are shared with the
planning and flow tools.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from silo import Tool, ToolError, define_tool, tool
from silo.toolkit.guards import apply_changes, changes, non_blank, parse_day, search_term
from silo.toolkit.results import contains, sorted_by_id
from silo.toolkit.schema import choice, day, flag, obj, text

from .. import state as derived
from ..state import mint_id
from .common import (
    WRITES,
    active_member,
    candidates,
    fetch,
    matches,
    open_project,
    page,
    require_capacity,
    store,
)
from .schema import (
    ITEM_TYPES,
    PRIORITIES,
    actor,
    by_id,
    change,
    listing,
    nullable_day,
    nullable_ref,
    points,
    ref,
    searching,
)
from .views import item_view, log_view

State = dict[str, Any]
Args = dict[str, Any]
Item = dict[str, Any]


def check_due_date(state: State, value: str | None) -> str | None:
    """A due date that is a real date and not in the past (None clears it)."""
    if value is not None and parse_day(value, "dueDate").isoformat() < state["now"]:
        raise ToolError("invalid_input", f"dueDate {value} is in the past; today is {state['now']}")
    return value


def check_sprint(state: State, sprint_id: str, project_id: str) -> dict[str, Any]:
    """A sprint of ``project_id`` that can still take work (planned or active)."""
    sprint = fetch(state, "sprints", sprint_id)
    if sprint["projectId"] != project_id:
        raise ToolError(
            "invalid_input",
            f"{sprint['name']} belongs to another project; pick a sprint of {project_id}",
        )
    if sprint["status"] == "completed":
        raise ToolError(
            "invalid_state", f"{sprint['name']} is completed and takes no new work; pick another"
        )
    return sprint


def check_assignee(state: State, member_id: str, estimate: float) -> dict[str, Any]:
    """An active member with room for ``estimate`` more points."""
    member = active_member(state, member_id, "take work")
    require_capacity(state, member, estimate)
    return member


def _check_parent(state: State, item_id: str | None, parent_id: str, project_id: str) -> None:
    parent = fetch(state, "workItems", parent_id)
    if parent_id == item_id or (item_id is not None and parent["parentId"] == item_id):
        raise ToolError(
            "invalid_input",
            f"{parent_id} cannot be the parent: it would form a loop; pick another item",
        )
    if parent["projectId"] != project_id:
        raise ToolError(
            "invalid_input", f"parent {parent_id} is in another project; pick one in {project_id}"
        )


def _matches(state: State, item: Mapping[str, Any], args: Args) -> bool:
    # Stored fields first: they reject most items before any figure is derived.
    keys = ("projectId", "sprintId", "assigneeId", "statusId", "type", "priority")
    if not matches(item, args, keys):
        return False
    if "unassigned" in args and (item["assigneeId"] is None) != args["unassigned"]:
        return False
    derived_filters: dict[str, Callable[[], bool]] = {
        "open": lambda: not derived.is_done(state, item),
        "blocked": lambda: derived.is_blocked(state, item),
        "overdue": lambda: derived.is_overdue(state, item),
    }
    return all(test() == args[key] for key, test in derived_filters.items() if key in args)


def _list_work_items(state: State, args: Args) -> dict[str, Any]:
    indexes = {"assigneeId": derived.ITEMS_BY_ASSIGNEE, "projectId": derived.ITEMS_BY_PROJECT}
    rows = candidates(state, args, "workItems", indexes)
    found = sorted_by_id(item for item in rows if _matches(state, item, args))
    return page(found, args, lambda item: item_view(state, item))


def _search_work_items(state: State, args: Args) -> dict[str, Any]:
    term = search_term(args)
    found = [
        item
        for item in sorted_by_id(state["workItems"].values())
        if contains(term, (item["id"], item["title"]))
    ]
    return page(found, args, lambda item: item_view(state, item))


def _get_work_item(state: State, args: Args) -> dict[str, Any]:
    item = fetch(state, "workItems", args["workItemId"])
    items = state["workItems"]
    children = [c["id"] for c in sorted_by_id(items.values()) if c["parentId"] == item["id"]]
    dependencies = [
        {
            "id": dep,
            "title": items[dep]["title"] if dep in items else None,
            "isDone": dep in items and derived.is_done(state, items[dep]),
        }
        for dep in item["dependsOn"]
    ]
    logs = sorted_by_id(derived.LOGS_BY_ITEM.rows(state, item["id"]))
    return {
        **item_view(state, item),
        "comments": copy.deepcopy(list(item["comments"])),
        "childIds": children,
        "dependencies": dependencies,
        "timeLogs": [log_view(state, log) for log in logs],
    }


def _create_work_item(state: State, args: Args) -> dict[str, Any]:
    project = open_project(state, args["projectId"])
    first = derived.ordered_states(state)[0]
    status = fetch(state, "workflowStates", args["statusId"]) if "statusId" in args else first
    if status["isDone"]:
        raise ToolError("invalid_input", "a new item cannot start done; create it, then finish it")
    estimate = args.get("estimate", 0)
    if "assigneeId" in args:
        check_assignee(state, args["assigneeId"], estimate)
    if "sprintId" in args:
        check_sprint(state, args["sprintId"], project["id"])
    if "parentId" in args:
        _check_parent(state, None, args["parentId"], project["id"])
    title = non_blank(args["title"], "title")
    due = check_due_date(state, args.get("dueDate"))
    item = {
        "id": mint_id(state, "WI"),
        "projectId": project["id"],
        "title": title,
        "type": args["type"],
        "priority": args.get("priority", "medium"),
        "statusId": status["id"],
        "estimate": estimate,
        "assigneeId": args.get("assigneeId"),
        "sprintId": args.get("sprintId"),
        "parentId": args.get("parentId"),
        "dependsOn": [],
        "dueDate": due,
        "createdOn": state["now"],
        "statusChangedOn": state["now"],
        "comments": [],
    }
    return item_view(state, store(state, "workItems", item, args, "work_item"))


def _update_work_item(state: State, args: Args) -> dict[str, Any]:
    item = fetch(state, "workItems", args["workItemId"])
    fields = ("title", "type", "priority", "estimate", "dueDate", "parentId")
    updates = changes(args, fields)
    if "title" in updates:
        updates["title"] = non_blank(updates["title"], "title")
    if "dueDate" in updates:
        check_due_date(state, updates["dueDate"])
    if updates.get("parentId") is not None:
        _check_parent(state, item["id"], updates["parentId"], item["projectId"])
    if "estimate" in updates:
        if derived.is_done(state, item):
            raise ToolError(
                "invalid_state",
                f"{item['id']} is done; its estimate is what was delivered and stays",
            )
        growth = updates["estimate"] - (item["estimate"] or 0)
        if growth > 0 and item["assigneeId"] is not None:
            require_capacity(state, fetch(state, "members", item["assigneeId"]), growth)
    diff = apply_changes(item, updates)
    WRITES.audit(state, args, "work_item.updated", "work_item", item["id"], diff)
    return item_view(state, item)


@tool(read_only=True)
def list_workflow_states(state: dict[str, Any]) -> dict[str, Any]:
    """The board's workflow states in order; the Blocked state is a label, not blocked-ness.

    An item is blocked when a dependency is unfinished, whatever state it sits in.

    Args:
        state: The world; Silo passes it, the agent never does.
    """
    rows = [dict(st) for st in derived.ordered_states(state)]
    return {"total": len(rows), "count": len(rows), "offset": 0, "results": rows}


def _item_fields() -> dict[str, Any]:
    """Properties create_work_item and update_work_item share."""
    return {
        "title": text("Short title of the work."),
        "type": choice(ITEM_TYPES, "story, task or bug."),
        "priority": choice(PRIORITIES, "low, medium, high or critical."),
        "estimate": points("Estimate in story points."),
    }


TOOLS: list[Tool] = [
    list_workflow_states,
    define_tool(
        "list_work_items",
        "List work items with status, blocked and overdue flags, assignee and hours. Filters "
        "combine: project, sprint, assignee, unassigned, status, type, priority, open (not "
        "done), blocked (an unfinished dependency) and overdue (past due, not done).",
        listing(
            {
                "projectId": ref("project", "Only items of this project."),
                "sprintId": ref("sprint", "Only items attached to this sprint."),
                "assigneeId": ref("member", "Only items assigned to this member."),
                "unassigned": flag("true for items nobody holds, false for assigned ones."),
                "statusId": ref("state", "Only items in this workflow state (WS-01 Backlog ...)."),
                "type": choice(ITEM_TYPES, "Only items of this type."),
                "priority": choice(PRIORITIES, "Only items of this priority."),
                "open": flag("true for unfinished items, false for done ones."),
                "blocked": flag("true for items with an unfinished dependency."),
                "overdue": flag("true for unfinished items whose due date has passed."),
            }
        ),
        _list_work_items,
        read_only=True,
    ),
    define_tool(
        "search_work_items",
        "Find work items whose id or title contains the query text.",
        searching(),
        _search_work_items,
        read_only=True,
    ),
    define_tool(
        "get_work_item",
        "One work item with its comments, child items, dependencies (and whether each is done), "
        "hours logged and time logs.",
        by_id("item", "workItemId", "WI-004"),
        _get_work_item,
        read_only=True,
    ),
    WRITES.tool(
        "create_work_item",
        "Add a work item to a project that is not completed. It starts in the first workflow "
        "state (Backlog) unless statusId is given; an assignee must be active and have room for "
        "the estimate.",
        obj(
            {
                "actorId": actor(),
                "projectId": ref("project", "Project the item belongs to."),
                **_item_fields(),
                "statusId": ref("state", "Starting workflow state (not a done state)."),
                "assigneeId": ref("member", "Active member to hold the item (optional)."),
                "sprintId": ref("sprint", "Planned or active sprint of the same project."),
                "parentId": ref("item", "Parent item in the same project (optional)."),
                "dueDate": day("Due date, today or later (optional)."),
            },
            ["actorId", "projectId", "title", "type"],
        ),
        _create_work_item,
    ),
    WRITES.tool(
        "update_work_item",
        "Change a work item's title, type, priority, estimate, due date or parent. Pass only the "
        "fields to change. A larger estimate must fit the assignee's capacity.",
        change(
            "item",
            "workItemId",
            {
                **_item_fields(),
                "dueDate": nullable_day("New due date (today or later), or null to clear it."),
                "parentId": nullable_ref("item", "New parent item, or null for none."),
            },
            [],
        ),
        _update_work_item,
    ),
]
