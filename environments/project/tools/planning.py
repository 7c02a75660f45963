"""Work-item planning tools: comments, sprint membership and due dates.

Contract: ``add_comment`` appends a comment by the acting member and ``list_comments`` pages
through an item's comments, oldest first. ``move_work_item_to_sprint`` attaches an unfinished
item to a planned or active sprint of its own project; ``remove_work_item_from_sprint`` detaches
it (not from a completed sprint, whose history stays); ``set_work_item_due_date`` sets a due
date (today or later) or clears it with null. Each mutation appends one audit row.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError, define_tool
from silo.toolkit.guards import apply_changes, non_blank
from silo.toolkit.schema import text

from ..state import mint_id
from .common import WRITES, fetch, page, relink, unfinished_item
from .items import check_due_date, check_sprint
from .schema import change, listing, nullable_day, ref
from .views import item_view

State = dict[str, Any]
Args = dict[str, Any]


def _add_comment(state: State, args: Args) -> dict[str, Any]:
    author = WRITES.actor_of(state, args)
    item = fetch(state, "workItems", args["workItemId"])
    body = non_blank(args["body"], "body")
    comment = {
        "id": mint_id(state, "CMT"),
        "authorId": author["id"],
        "createdOn": state["now"],
        "body": body,
    }
    item["comments"] = [*item["comments"], comment]
    details = {"commentId": comment["id"]}
    WRITES.audit(state, args, "work_item.commented", "work_item", item["id"], details)
    return {"workItemId": item["id"], **comment}


def _list_comments(state: State, args: Args) -> dict[str, Any]:
    item = fetch(state, "workItems", args["workItemId"])
    return page(list(item["comments"]), args)


def _move_to_sprint(state: State, args: Args) -> dict[str, Any]:
    item = unfinished_item(state, args["workItemId"], "plan it into a sprint")
    sprint = check_sprint(state, args["sprintId"], item["projectId"])
    if item["sprintId"] == sprint["id"]:
        raise ToolError("conflict", f"{item['id']} is already in {sprint['name']}")
    relink(state, args, item, "sprintId", sprint["id"], "work_item.sprint_changed")
    return item_view(state, item)


def _remove_from_sprint(state: State, args: Args) -> dict[str, Any]:
    item = fetch(state, "workItems", args["workItemId"])
    if item["sprintId"] is None:
        raise ToolError("invalid_state", f"{item['id']} is not in a sprint; nothing to remove")
    sprint = fetch(state, "sprints", item["sprintId"])
    if sprint["status"] == "completed":
        raise ToolError(
            "invalid_state",
            f"{sprint['name']} is completed; its items stay as a record, move the item to a new "
            "sprint instead",
        )
    relink(state, args, item, "sprintId", None, "work_item.sprint_changed")
    return item_view(state, item)


def _set_due_date(state: State, args: Args) -> dict[str, Any]:
    item = fetch(state, "workItems", args["workItemId"])
    diff = apply_changes(item, {"dueDate": check_due_date(state, args["dueDate"])})
    WRITES.audit(state, args, "work_item.updated", "work_item", item["id"], diff)
    return item_view(state, item)


TOOLS: list[Tool] = [
    WRITES.tool(
        "add_comment",
        "Add a comment to a work item, written by the acting member.",
        change(
            "item",
            "workItemId",
            {"body": text("The comment text.", max_length=2000)},
            ["body"],
        ),
        _add_comment,
    ),
    define_tool(
        "list_comments",
        "The comments on a work item, oldest first.",
        listing({"workItemId": ref("item", "Id of the work item.")}, ["workItemId"]),
        _list_comments,
        read_only=True,
    ),
    WRITES.tool(
        "move_work_item_to_sprint",
        "Attach an unfinished work item to a planned or active sprint of the same project.",
        change("item", "workItemId", {"sprintId": ref("sprint", "Target sprint.")}, ["sprintId"]),
        _move_to_sprint,
    ),
    WRITES.tool(
        "remove_work_item_from_sprint",
        "Detach a work item from its planned or active sprint, back to the unplanned pool.",
        change("item", "workItemId", {}, []),
        _remove_from_sprint,
    ),
    WRITES.tool(
        "set_work_item_due_date",
        "Set a work item's due date (today or later) or clear it with null.",
        change(
            "item",
            "workItemId",
            {"dueDate": nullable_day("The new due date, or null to clear it.")},
            ["dueDate"],
        ),
        _set_due_date,
    ),
]
