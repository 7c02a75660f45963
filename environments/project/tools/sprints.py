"""Sprint tools: time boxes of a project and their lifecycle (planned -> active -> completed).

Contract: ``list_sprints`` (project, status filters; by start date) and ``get_sprint`` (its items
and scope, done and remaining points) read sprints. ``create_sprint`` plans a sprint in a
project that is not completed (end on or after start, name unique in the project);
``start_sprint`` starts a planned sprint and is refused while another sprint of the project is
active; ``complete_sprint`` completes an active sprint, leaves its unfinished items attached to
it and returns their ids as carried over. Each mutation appends one audit row.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError, define_tool
from silo.toolkit.guards import non_blank, parse_day
from silo.toolkit.schema import choice, day, obj, text

from .. import state as derived
from ..state import mint_id
from .common import WRITES, fetch, matches, open_project, page, store
from .schema import SPRINT_STATUSES, actor, by_id, change, listing, ref
from .views import item_view, sprint_view

State = dict[str, Any]
Args = dict[str, Any]


def sprints_of(state: State, project_id: str) -> list[dict[str, Any]]:
    """A project's sprints by start date."""
    return sorted(
        (s for s in state["sprints"].values() if s["projectId"] == project_id),
        key=lambda s: (s["startDate"], s["id"]),
    )


def _list_sprints(state: State, args: Args) -> dict[str, Any]:
    found = sorted(
        (s for s in state["sprints"].values() if matches(s, args, ("projectId", "status"))),
        key=lambda s: (s["startDate"], s["id"]),
    )
    return page(found, args, lambda s: sprint_view(state, s))


def _get_sprint(state: State, args: Args) -> dict[str, Any]:
    sprint = fetch(state, "sprints", args["sprintId"])
    items = derived.sprint_items(state, sprint["id"])
    return {**sprint_view(state, sprint), "workItems": [item_view(state, i) for i in items]}


def _create_sprint(state: State, args: Args) -> dict[str, Any]:
    project = open_project(state, args["projectId"])
    name = non_blank(args["name"], "name")
    if parse_day(args["endDate"], "endDate") < parse_day(args["startDate"], "startDate"):
        raise ToolError(
            "invalid_input", "endDate is before startDate; a sprint ends after it starts"
        )
    if any(s["name"].casefold() == name.casefold() for s in sprints_of(state, project["id"])):
        raise ToolError("conflict", f"{project['key']} already has a sprint called {name!r}")
    sprint = {
        "id": mint_id(state, "SPR"),
        "projectId": project["id"],
        "name": name,
        "status": "planned",
        "startDate": args["startDate"],
        "endDate": args["endDate"],
        "completedOn": None,
        "goal": args.get("goal", ""),
    }
    return sprint_view(state, store(state, "sprints", sprint, args, "sprint"))


def _sprint_in(state: State, sprint_id: str, status: str, action: str) -> dict[str, Any]:
    sprint = fetch(state, "sprints", sprint_id)
    if sprint["status"] != status:
        raise ToolError(
            "invalid_state",
            f"{sprint['name']} is {sprint['status']}; only a {status} sprint can be {action}",
            {"id": sprint_id, "status": sprint["status"]},
        )
    return sprint


def _start_sprint(state: State, args: Args) -> dict[str, Any]:
    sprint = _sprint_in(state, args["sprintId"], "planned", "started")
    open_project(state, sprint["projectId"])
    running = [s for s in sprints_of(state, sprint["projectId"]) if s["status"] == "active"]
    if running:
        raise ToolError(
            "conflict",
            f"{running[0]['name']} ({running[0]['id']}) is still active; complete it first "
            "(one active sprint per project)",
            {"activeSprintId": running[0]["id"]},
        )
    sprint["status"] = "active"
    WRITES.audit(state, args, "sprint.started", "sprint", sprint["id"])
    return sprint_view(state, sprint)


def _complete_sprint(state: State, args: Args) -> dict[str, Any]:
    sprint = _sprint_in(state, args["sprintId"], "active", "completed")
    carried = [
        item["id"]
        for item in derived.sprint_items(state, sprint["id"])
        if not derived.is_done(state, item)
    ]
    sprint["status"] = "completed"
    sprint["completedOn"] = state["now"]
    details = {"carriedOver": carried}
    WRITES.audit(state, args, "sprint.completed", "sprint", sprint["id"], details)
    return {**sprint_view(state, sprint), "carriedOverItemIds": carried}


TOOLS: list[Tool] = [
    define_tool(
        "list_sprints",
        "List sprints by start date with scope, done and remaining points. Filter by project or "
        "status (planned, active, completed).",
        listing(
            {
                "projectId": ref("project", "Only sprints of this project."),
                "status": choice(SPRINT_STATUSES, "Only sprints in this status."),
            }
        ),
        _list_sprints,
        read_only=True,
    ),
    define_tool(
        "get_sprint",
        "One sprint with its work items and scope, done and remaining points. Unfinished items "
        "stay attached to a sprint after it completes.",
        by_id("sprint", "sprintId", "SPR-002"),
        _get_sprint,
        read_only=True,
    ),
    WRITES.tool(
        "create_sprint",
        "Plan a new sprint in a project that is not completed. It starts out planned.",
        obj(
            {
                "actorId": actor(),
                "projectId": ref("project", "Project the sprint belongs to."),
                "name": text("Sprint name, unique within the project."),
                "startDate": day("First day of the sprint."),
                "endDate": day("Last day of the sprint (on or after startDate)."),
                "goal": text("What the sprint should achieve (optional).", max_length=500),
            },
            ["actorId", "projectId", "name", "startDate", "endDate"],
        ),
        _create_sprint,
    ),
    WRITES.tool(
        "start_sprint",
        "Start a planned sprint. Refused while another sprint of the same project is active.",
        change("sprint", "sprintId", {}, []),
        _start_sprint,
    ),
    WRITES.tool(
        "complete_sprint",
        "Complete an active sprint. Unfinished items stay attached to it; their ids come back as "
        "carriedOverItemIds.",
        change("sprint", "sprintId", {}, []),
        _complete_sprint,
    ),
]
