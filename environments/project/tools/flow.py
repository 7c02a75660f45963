"""Work-item flow tools: who holds an item, where it sits on the board, what it waits for.

Contract: ``assign_work_item`` gives an unfinished item to an active member with room for its
estimate (``limit_exceeded`` otherwise; ``conflict`` when they already hold it);
``unassign_work_item`` frees it; ``set_work_item_status`` moves it to another workflow state,
refusing a done state while any dependency is unfinished, and restarts its days-in-status;
``add_work_item_dependency`` records that an item waits for another (no self, duplicate or
direct cycle) and ``remove_work_item_dependency`` drops that link. Each mutation appends one
audit row.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError

from .. import state as derived
from .common import WRITES, fetch, relink, unfinished_item
from .items import check_assignee
from .schema import change, ref
from .views import item_view

State = dict[str, Any]
Args = dict[str, Any]


def _assign(state: State, args: Args) -> dict[str, Any]:
    item = unfinished_item(state, args["workItemId"], "assign it")
    if item["assigneeId"] == args["assigneeId"]:
        raise ToolError("conflict", f"{item['id']} is already assigned to {args['assigneeId']}")
    member = check_assignee(state, args["assigneeId"], item["estimate"] or 0)
    relink(state, args, item, "assigneeId", member["id"], "work_item.assigned")
    return item_view(state, item)


def _unassign(state: State, args: Args) -> dict[str, Any]:
    item = fetch(state, "workItems", args["workItemId"])
    if item["assigneeId"] is None:
        raise ToolError(
            "invalid_state", f"{item['id']} is not assigned to anyone; nothing to unassign"
        )
    relink(state, args, item, "assigneeId", None, "work_item.unassigned")
    return item_view(state, item)


def _set_status(state: State, args: Args) -> dict[str, Any]:
    item = fetch(state, "workItems", args["workItemId"])
    target = fetch(state, "workflowStates", args["statusId"])
    if item["statusId"] == target["id"]:
        raise ToolError("conflict", f"{item['id']} is already in {target['name']}")
    waiting = derived.unresolved_dependencies(state, item)
    if target["isDone"] and waiting:
        raise ToolError(
            "invalid_state",
            f"{item['id']} depends on unfinished {', '.join(waiting)}; finish those first",
            {"unresolvedDependencies": waiting},
        )
    item["statusChangedOn"] = state["now"]
    relink(state, args, item, "statusId", target["id"], "work_item.status_changed")
    return item_view(state, item)


def _add_dependency(state: State, args: Args) -> dict[str, Any]:
    item = unfinished_item(state, args["workItemId"], "add a dependency to it")
    other = fetch(state, "workItems", args["dependsOnId"])
    if other["id"] == item["id"]:
        raise ToolError(
            "invalid_input", "an item cannot depend on itself; pass another item as dependsOnId"
        )
    if other["id"] in item["dependsOn"]:
        raise ToolError("conflict", f"{item['id']} already depends on {other['id']}")
    if item["id"] in other["dependsOn"]:
        raise ToolError(
            "invalid_input",
            f"{other['id']} already depends on {item['id']}; the two would wait for each other",
        )
    item["dependsOn"] = [*item["dependsOn"], other["id"]]
    details = {"dependsOnId": other["id"]}
    WRITES.audit(state, args, "work_item.dependency_added", "work_item", item["id"], details)
    return item_view(state, item)


def _remove_dependency(state: State, args: Args) -> dict[str, Any]:
    item = fetch(state, "workItems", args["workItemId"])
    other_id = args["dependsOnId"]
    if other_id not in item["dependsOn"]:
        raise ToolError(
            "not_found", f"{item['id']} does not depend on {other_id}; see get_work_item"
        )
    item["dependsOn"] = [dep for dep in item["dependsOn"] if dep != other_id]
    details = {"dependsOnId": other_id}
    WRITES.audit(state, args, "work_item.dependency_removed", "work_item", item["id"], details)
    return item_view(state, item)


def _dependency_input() -> dict[str, Any]:
    return change(
        "item",
        "workItemId",
        {"dependsOnId": ref("item", "The item it waits for.")},
        ["dependsOnId"],
    )


TOOLS: list[Tool] = [
    WRITES.tool(
        "assign_work_item",
        "Give an unfinished work item to an active member. Refused when the item's estimate "
        "would push them over their weekly capacity.",
        change(
            "item", "workItemId", {"assigneeId": ref("member", "Who takes it.")}, ["assigneeId"]
        ),
        _assign,
    ),
    WRITES.tool(
        "unassign_work_item",
        "Take a work item away from whoever holds it, leaving it unassigned.",
        change("item", "workItemId", {}, []),
        _unassign,
    ),
    WRITES.tool(
        "set_work_item_status",
        "Move a work item to another workflow state (see list_workflow_states). Moving into a "
        "done state is refused while any item it depends on is unfinished.",
        change(
            "item",
            "workItemId",
            {"statusId": ref("state", "Target state, e.g. WS-06.")},
            ["statusId"],
        ),
        _set_status,
    ),
    WRITES.tool(
        "add_work_item_dependency",
        "Record that an unfinished work item cannot be done before another one.",
        _dependency_input(),
        _add_dependency,
    ),
    WRITES.tool(
        "remove_work_item_dependency",
        "Drop a dependency link between two work items.",
        _dependency_input(),
        _remove_dependency,
    ),
]
