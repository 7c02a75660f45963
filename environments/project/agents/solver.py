"""Scripted reference solver for the fifteen project-tracking tasks.

Contract: ``agent(inp)`` recognises the task by a phrase of its instruction and solves it through
the tools alone: the acting member's id is read from the instruction, and every other id (work
items by title, members and teams by name, projects by key, sprints by name, workflow states by
name) is looked up through tool results. It returns ``{"output": <answer text>}``. A tool
refusal raises :class:`SolverError`, because the reference solution never needs a retry. The
solver uses only the standard library and :mod:`silo.toolkit` (its strict caller and
instruction reading), so it loads as a standalone file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from silo.toolkit.solving import Call, SolverError, first_match, strict_caller

ALL = {"limit": 500}


def _actor(task: str) -> str:
    return first_match(r"Acting as [^(]*\((MEM-\d+)\)", task)


def _number(value: float) -> str:
    """``44`` for whole values, ``12.5`` otherwise."""
    return f"{value:.0f}" if float(value).is_integer() else f"{value:g}"


def _exact(rows: list[dict[str, Any]], field: str, value: str) -> dict[str, Any]:
    for row in rows:
        if str(row[field]).casefold() == value.casefold():
            return row
    raise SolverError(f"nothing has {field} {value!r}")


def _item(call: Call, title: str) -> dict[str, Any]:
    found = call("search_work_items", {"query": title, **ALL})["results"]
    return _exact(found, "title", title)


def _quoted_item(call: Call, task: str) -> dict[str, Any]:
    return _item(call, first_match(r'"([^"]+)"', task))


def _member(call: Call, name: str) -> dict[str, Any]:
    return _exact(call("search_members", {"query": name, **ALL})["results"], "name", name)


def _project(call: Call, key: str) -> dict[str, Any]:
    return _exact(call("search_projects", {"query": key, **ALL})["results"], "key", key)


def _sprint(call: Call, name: str) -> dict[str, Any]:
    return _exact(call("list_sprints", ALL)["results"], "name", name)


def _state_id(call: Call, name: str | None = None) -> str:
    states = call("list_workflow_states", {})["results"]
    if name is None:
        return str(next(st["id"] for st in states if st["isDone"]))
    return str(_exact(states, "name", name)["id"])


def _finish(call: Call, actor: str, item_id: str, done_id: str) -> list[str]:
    """Mark ``item_id`` done after, depth first, whatever it waits for; the ids finished."""
    item = call("get_work_item", {"workItemId": item_id})
    finished: list[str] = []
    for dep in item["dependencies"]:
        if not dep["isDone"]:
            finished += _finish(call, actor, dep["id"], done_id)
    call("set_work_item_status", {"actorId": actor, "workItemId": item_id, "statusId": done_id})
    return [*finished, item_id]


def sign_off(task: str, call: Call) -> str:
    """TASK-001: move the quoted item to the done state."""
    item = _quoted_item(call, task)
    args = {"actorId": _actor(task), "workItemId": item["id"], "statusId": _state_id(call)}
    call("set_work_item_status", args)
    return f"{item['id']} ({item['title']}) is done."


def land_with_dependencies(task: str, call: Call) -> str:
    """TASK-002: finish the quoted item's unfinished dependencies, then the item."""
    item = _quoted_item(call, task)
    finished = _finish(call, _actor(task), item["id"], _state_id(call))
    return f"Finished, in order: {', '.join(finished)}."


def rehome_work(task: str, call: Call) -> str:
    """TASK-003: give every unfinished item of the departed member to the successor."""
    gone = _member(call, first_match(r"^(.+?) has left", task))
    heir = _member(call, first_match(r"over to ([A-Z][a-z]+ [A-Z][a-z]+)", task))
    held = call("list_work_items", {"assigneeId": gone["id"], "open": True, **ALL})["results"]
    actor = _actor(task)
    for item in held:
        call(
            "assign_work_item",
            {"actorId": actor, "workItemId": item["id"], "assigneeId": heir["id"]},
        )
    return f"Moved {', '.join(i['id'] for i in held)} from {gone['name']} to {heir['name']}."


def find_owner(task: str, call: Call) -> str:
    """TASK-004: assign the item to the team member it fits most tightly."""
    item = _quoted_item(call, task)
    team = _exact(
        call("list_teams", ALL)["results"], "name", first_match(r"from the (\w+) team", task)
    )
    members = call("member_load", {"teamId": team["id"], "activeOnly": True})["results"]
    fits = [
        (m["remainingCapacity"] - item["estimate"], m["id"])
        for m in members
        if m["remainingCapacity"] - item["estimate"] >= 0
    ]
    if not fits:
        raise SolverError(f"nobody on {team['name']} can absorb {item['id']}")
    owner = min(fits)[1]
    call(
        "assign_work_item", {"actorId": _actor(task), "workItemId": item["id"], "assigneeId": owner}
    )
    return f"{item['id']} is assigned to {owner}, leaving {min(fits)[0]} points of room."


def note_blocker(task: str, call: Call) -> str:
    """TASK-005: comment on the item, naming the items that block it by id."""
    item = call("get_work_item", {"workItemId": _quoted_item(call, task)["id"]})
    blockers = [d for d in item["dependencies"] if not d["isDone"]]
    names = ", ".join(f"{d['id']} ({d['title']})" for d in blockers)
    body = f"Blocked by {names}: this cannot ship until that work is done."
    call("add_comment", {"actorId": _actor(task), "workItemId": item["id"], "body": body})
    return f"Commented on {item['id']}: {body}"


def fill_sprint(task: str, call: Call) -> str:
    """TASK-006: move the project's unassigned Backlog items into the named sprint."""
    sprint = _sprint(call, first_match(r"into (.+? Sprint \d+)", task))
    args = {
        "projectId": sprint["projectId"],
        "statusId": _state_id(call, "Backlog"),
        "unassigned": True,
        **ALL,
    }
    moved = [i["id"] for i in call("list_work_items", args)["results"]]
    actor = _actor(task)
    for item_id in moved:
        call(
            "move_work_item_to_sprint",
            {"actorId": actor, "workItemId": item_id, "sprintId": sprint["id"]},
        )
    return f"Moved {', '.join(moved)} into {sprint['name']}."


def turn_over_sprint(task: str, call: Call) -> str:
    """TASK-007: complete the ending sprint, then start the next one."""
    ending = _sprint(call, first_match(r"complete (.+? Sprint \d+)", task))
    upcoming = _sprint(call, first_match(r"then start (.+? Sprint \d+)", task))
    actor = _actor(task)
    done = call("complete_sprint", {"actorId": actor, "sprintId": ending["id"]})
    call("start_sprint", {"actorId": actor, "sprintId": upcoming["id"]})
    carried = ", ".join(done["carriedOverItemIds"]) or "nothing"
    return f"{ending['name']} completed (carried over: {carried}); {upcoming['name']} started."


def close_project(task: str, call: Call) -> str:
    """TASK-008: finish the project's unfinished items, then close it."""
    project = _project(call, first_match(r"\(key ([A-Z0-9]+)\)", task))
    actor, done_id = _actor(task), _state_id(call)
    open_items = call("list_work_items", {"projectId": project["id"], "open": True, **ALL})
    finished: list[str] = []
    for item in open_items["results"]:
        if item["id"] not in finished:
            finished += [i for i in _finish(call, actor, item["id"], done_id) if i not in finished]
    call("close_project", {"actorId": actor, "projectId": project["id"]})
    return f"Finished {', '.join(finished)} and closed {project['key']}."


def report_blocked(task: str, call: Call) -> str:
    """TASK-009: count and name the blocked items."""
    blocked = call("blocked_items", {})["results"]
    return f"{len(blocked)} items are blocked: {', '.join(i['id'] for i in blocked)}."


def _completed_sprints(call: Call) -> list[dict[str, Any]]:
    return list(call("velocity_report", {"completedOnly": True})["sprints"])


def report_strongest_sprint(task: str, call: Call) -> str:
    """TASK-010: the completed sprint that delivered the most points."""
    best = max(_completed_sprints(call), key=lambda s: s["deliveredPoints"])
    return f"{best['name']} delivered the most: {_number(best['deliveredPoints'])} points."


def report_project_hours(task: str, call: Call) -> str:
    """TASK-011: total hours logged on the project's items."""
    project = _project(call, first_match(r"\(key ([A-Z0-9]+)\)", task))
    report = call("project_time_report", {"projectId": project["id"]})
    return f"Hours logged on {project['name']}: {_number(report['totalHours'])}"


def report_overdue_held(task: str, call: Call) -> str:
    """TASK-012: overdue points held by active members."""
    report = call("overdue_items", {"activeAssigneesOnly": True})
    return f"Overdue work held by active members: {_number(report['overduePoints'])} points."


def report_over_committed(task: str, call: Call) -> str:
    """TASK-013: who is over capacity, and by how much."""
    members = call("member_load", {})["results"]
    over = [m for m in members if m["overCapacity"]]
    return "; ".join(
        f"{m['name']} is over capacity by {_number(m['overCapacityBy'])} points" for m in over
    )


def report_backlog(task: str, call: Call) -> str:
    """TASK-014: how many items sit in Backlog."""
    found = call("list_work_items", {"statusId": _state_id(call, "Backlog"), "limit": 1})
    return f"Work items in Backlog: {found['total']}"


def report_work_left(task: str, call: Call) -> str:
    """TASK-015: completed sprints with unfinished points left in them."""
    left = [s for s in _completed_sprints(call) if s["carriedOverPoints"] > 0]
    return "; ".join(
        f"{s['name']} closed with {_number(s['carriedOverPoints'])} points of unfinished work"
        for s in left
    )


def log_hours(task: str, call: Call) -> str:
    """TASK-016 (template): log the stated hours on the quoted item as the acting member."""
    hours = float(first_match(r"log ([\d.]+) hours", task))
    item = _quoted_item(call, task)
    call("log_time", {"actorId": _actor(task), "workItemId": item["id"], "hours": hours})
    return f"Logged {_number(hours)} hours on {item['id']}."


def set_due_date(task: str, call: Call) -> str:
    """TASK-017 (template): set the quoted item's due date to the stated day."""
    day = first_match(r"due on (\d{4}-\d{2}-\d{2})", task)
    item = _quoted_item(call, task)
    call(
        "set_work_item_due_date",
        {"actorId": _actor(task), "workItemId": item["id"], "dueDate": day},
    )
    return f"{item['id']} is due on {day}."


def leave_comment(task: str, call: Call) -> str:
    """TASK-018 (template): comment on the quoted item in the stated words."""
    body = task.split("says exactly: ", 1)[1].strip()
    item = _quoted_item(call, task)
    call("add_comment", {"actorId": _actor(task), "workItemId": item["id"], "body": body})
    return f"Commented on {item['id']}."


ROUTES: list[tuple[str, Callable[[str, Call], str]]] = [
    ("hours of work you did today", log_hours),
    ("work item due on", set_due_date),
    ("that says exactly:", leave_comment),
    ("has passed review", sign_off),
    ("finish whatever it is waiting for", land_with_dependencies),
    ("has left the company", rehome_work),
    ("least spare capacity", find_owner),
    ("the item blocking it", note_blocker),
    ("move every unassigned", fill_sprint),
    ("then start", turn_over_sprint),
    ("close the project", close_project),
    ("blocked right now", report_blocked),
    ("delivered the most story points", report_strongest_sprint),
    ("hours have been logged", report_project_hours),
    ("past its due date", report_overdue_held),
    ("weekly capacity, and by how many", report_over_committed),
    ("how many work items sit in", report_backlog),
    ("closed with unfinished work", report_work_left),
]


def agent(inp: Any) -> dict[str, str]:
    """Solve the task in ``inp`` and return the answer text.

    Args:
        inp: The engine's agent input (``task`` and ``call_tool``).

    Returns:
        ``{"output": <answer text>}``.
    """
    task = inp.task
    for phrase, solve in ROUTES:
        if phrase.casefold() in task.casefold():
            return {"output": solve(task, strict_caller(inp))}
    raise SolverError("this solver does not recognise the task")
