"""Project tools: the delivery efforts work items belong to.

Contract: ``list_projects`` (status, lead filters), ``search_projects`` (id, name, key) and
``get_project`` (its sprints and item summaries) read projects. ``create_project`` adds an
active project with a unique upper-cased key and an active lead; ``update_project`` changes the
name, target date or status (``active`` or ``on_hold``; completion goes through
``close_project``, which is refused while any item is unfinished); ``reassign_project_lead``
hands the project to another active member and ``get_project_lead`` shows the lead with load.
Each mutation appends one audit row; completed projects cannot be changed.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import Field

from silo import Tool, ToolError, define_tool, tool
from silo.toolkit.guards import apply_changes, changes, non_blank, parse_day, search_term
from silo.toolkit.results import contains, sorted_by_id
from silo.toolkit.schema import choice, day, obj, text

from .. import state as derived
from ..state import mint_id
from .common import WRITES, active_member, fetch, matches, open_project, page, relink, store
from .schema import PROJECT_STATUSES, actor, by_id, change, listing, ref, searching
from .views import item_view, member_view, project_view, sprint_view

State = dict[str, Any]
Args = dict[str, Any]

KEY_PATTERN = re.compile(r"^[A-Z][A-Z0-9]{1,9}$")


def _list_projects(state: State, args: Args) -> dict[str, Any]:
    found = [
        p
        for p in sorted_by_id(state["projects"].values())
        if matches(p, args, ("status", "leadId"))
    ]
    return page(found, args, lambda p: project_view(state, p))


def _search_projects(state: State, args: Args) -> dict[str, Any]:
    term = search_term(args)
    found = [
        p
        for p in sorted_by_id(state["projects"].values())
        if contains(term, (p["id"], p["name"], p["key"]))
    ]
    return page(found, args, lambda p: project_view(state, p))


def _get_project(state: State, args: Args) -> dict[str, Any]:
    project = fetch(state, "projects", args["projectId"])
    sprints = sorted(
        (s for s in state["sprints"].values() if s["projectId"] == project["id"]),
        key=lambda s: (s["startDate"], s["id"]),
    )
    items = sorted_by_id(derived.ITEMS_BY_PROJECT.rows(state, project["id"]))
    return {
        **project_view(state, project),
        "sprints": [sprint_view(state, s) for s in sprints],
        "workItems": [item_view(state, i) for i in items],
    }


def _create_project(state: State, args: Args) -> dict[str, Any]:
    key = non_blank(args["key"], "key").upper()
    if not KEY_PATTERN.match(key):
        raise ToolError(
            "invalid_input", f"key {key!r} must be 2-10 letters or digits, letter first"
        )
    if any(p["key"] == key for p in state["projects"].values()):
        raise ToolError("conflict", f"project key {key} is taken; choose another key")
    lead = active_member(state, args["leadId"], "lead a project")
    if "teamId" in args:
        fetch(state, "teams", args["teamId"])
    if "targetDate" in args:
        parse_day(args["targetDate"], "targetDate")
    name = non_blank(args["name"], "name")
    project = {
        "id": mint_id(state, "PROJ"),
        "key": key,
        "name": name,
        "leadId": lead["id"],
        "teamId": args.get("teamId"),
        "status": "active",
        "startDate": state["now"],
        "targetDate": args.get("targetDate"),
        "completedOn": None,
        "description": args.get("description", ""),
    }
    return project_view(state, store(state, "projects", project, args, "project"))


def _update_project(state: State, args: Args) -> dict[str, Any]:
    project = open_project(state, args["projectId"])
    updates = changes(args, ("name", "targetDate", "status"))
    if "name" in updates:
        updates["name"] = non_blank(updates["name"], "name")
    if "targetDate" in updates:
        parse_day(updates["targetDate"], "targetDate")
    diff = apply_changes(project, updates)
    WRITES.audit(state, args, "project.updated", "project", project["id"], diff)
    return project_view(state, project)


def _close_project(state: State, args: Args) -> dict[str, Any]:
    project = open_project(state, args["projectId"])
    unfinished = [
        item["id"]
        for item in sorted_by_id(derived.ITEMS_BY_PROJECT.rows(state, project["id"]))
        if not derived.is_done(state, item)
    ]
    if unfinished:
        raise ToolError(
            "invalid_state",
            f"{project['key']} still has {len(unfinished)} unfinished items "
            f"({', '.join(unfinished)}); finish them before closing",
            {"unfinishedItemIds": unfinished},
        )
    project["status"] = "completed"
    project["completedOn"] = state["now"]
    WRITES.audit(state, args, "project.closed", "project", project["id"])
    return project_view(state, project)


def _reassign_project_lead(state: State, args: Args) -> dict[str, Any]:
    project = open_project(state, args["projectId"])
    lead = active_member(state, args["newLeadId"], "lead a project")
    if project["leadId"] == lead["id"]:
        raise ToolError("conflict", f"{lead['name']} already leads {project['key']}")
    relink(state, args, project, "leadId", lead["id"], "project.lead_changed")
    return project_view(state, project)


@tool(read_only=True)
def get_project_lead(
    state: dict[str, Any], projectId: Annotated[str, Field(pattern=r"^PROJ-\d{2,6}$")]
) -> dict[str, Any]:
    """The lead of a project, with their load and capacity.

    Args:
        state: The world; Silo passes it, the agent never does.
        projectId: Id of the project, e.g. PROJ-002.
    """
    project = fetch(state, "projects", projectId)
    lead = fetch(state, "members", project["leadId"])
    return {"projectId": project["id"], "projectKey": project["key"], **member_view(state, lead)}


TOOLS: list[Tool] = [
    define_tool(
        "list_projects",
        "List projects with their lead and counts of items, open items and open points.",
        listing(
            {
                "status": choice(PROJECT_STATUSES, "Only projects in this status."),
                "leadId": ref("member", "Only projects led by this member."),
            }
        ),
        _list_projects,
        read_only=True,
    ),
    define_tool(
        "search_projects",
        "Find projects whose id, name or key (e.g. ATL) contains the query text.",
        searching(),
        _search_projects,
        read_only=True,
    ),
    define_tool(
        "get_project",
        "One project with its sprints (by start date) and all of its work items.",
        by_id("project", "projectId", "PROJ-001"),
        _get_project,
        read_only=True,
    ),
    WRITES.tool(
        "create_project",
        "Start a new active project. The key is upper-cased and must be unique; the lead must be "
        "an active member.",
        obj(
            {
                "actorId": actor(),
                "name": text("Project name."),
                "key": text("Short unique key, 2-10 letters or digits (e.g. PAY).", max_length=10),
                "leadId": ref("member", "Active member who leads the project."),
                "teamId": ref("team", "Team doing the work (optional)."),
                "targetDate": day("Target delivery date (optional)."),
                "description": text("What the project delivers (optional).", max_length=500),
            },
            ["actorId", "name", "key", "leadId"],
        ),
        _create_project,
    ),
    WRITES.tool(
        "update_project",
        "Rename a project, move its target date or put it on hold / back to active. Use "
        "close_project to complete it.",
        change(
            "project",
            "projectId",
            {
                "name": text("New name."),
                "targetDate": day("New target date."),
                "status": choice(("active", "on_hold"), "active or on_hold."),
            },
            [],
        ),
        _update_project,
    ),
    WRITES.tool(
        "close_project",
        "Mark a project completed. Refused while any of its work items is unfinished.",
        change("project", "projectId", {}, []),
        _close_project,
    ),
    WRITES.tool(
        "reassign_project_lead",
        "Hand a project's lead role to another active member.",
        change(
            "project", "projectId", {"newLeadId": ref("member", "The new lead.")}, ["newLeadId"]
        ),
        _reassign_project_lead,
    ),
    get_project_lead,
]
