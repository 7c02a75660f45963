"""Team tools: groups of members and their leads.

Contract: ``list_teams`` and ``get_team`` (members with load, team totals) read teams;
``create_team`` adds a team with a unique name and an optional active lead;
``reassign_team_lead`` hands the lead role to another active member of the same team. Each
mutation appends one audit row.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError, define_tool
from silo.toolkit.guards import non_blank
from silo.toolkit.results import sorted_by_id
from silo.toolkit.schema import obj, text

from ..state import mint_id
from .common import WRITES, active_member, fetch, page, relink, store
from .schema import actor, by_id, change, listing, ref
from .views import member_view, team_view

State = dict[str, Any]
Args = dict[str, Any]


def _list_teams(state: State, args: Args) -> dict[str, Any]:
    return page(sorted_by_id(state["teams"].values()), args, lambda t: team_view(state, t))


def _get_team(state: State, args: Args) -> dict[str, Any]:
    team = fetch(state, "teams", args["teamId"])
    members = [
        member_view(state, m)
        for m in sorted_by_id(state["members"].values())
        if m["teamId"] == team["id"]
    ]
    active = [m for m in members if m["active"]]
    return {
        **team_view(state, team),
        "members": members,
        "totalLoad": sum(m["load"] for m in active),
        "totalCapacity": sum(m["weeklyCapacity"] for m in active),
    }


def _create_team(state: State, args: Args) -> dict[str, Any]:
    name = non_blank(args["name"], "name")
    if any(t["name"].casefold() == name.casefold() for t in state["teams"].values()):
        raise ToolError("conflict", f"a team called {name!r} already exists; pick another name")
    lead_id = args.get("leadId")
    if lead_id is not None:
        active_member(state, lead_id, "lead a team")
    team = {
        "id": mint_id(state, "TEAM"),
        "name": name,
        "leadId": lead_id,
        "description": args.get("description", ""),
    }
    return team_view(state, store(state, "teams", team, args, "team"))


def _reassign_team_lead(state: State, args: Args) -> dict[str, Any]:
    team = fetch(state, "teams", args["teamId"])
    lead = active_member(state, args["newLeadId"], "lead a team")
    if team["leadId"] == lead["id"]:
        raise ToolError("conflict", f"{lead['name']} already leads {team['name']}")
    if lead["teamId"] != team["id"]:
        raise ToolError(
            "invalid_input",
            f"{lead['name']} is not on {team['name']}; move them in with update_member first",
        )
    relink(state, args, team, "leadId", lead["id"], "team.lead_changed")
    return team_view(state, team)


TOOLS: list[Tool] = [
    define_tool(
        "list_teams",
        "List the teams with their lead and member counts.",
        listing({}),
        _list_teams,
        read_only=True,
    ),
    define_tool(
        "get_team",
        "One team with every member (load and capacity) and the active members' total load and "
        "capacity.",
        by_id("team", "teamId", "TEAM-001"),
        _get_team,
        read_only=True,
    ),
    WRITES.tool(
        "create_team",
        "Create a team with a unique name and, optionally, an active lead.",
        obj(
            {
                "actorId": actor(),
                "name": text("Team name, unique."),
                "leadId": ref("member", "Active member who leads the team (optional)."),
                "description": text("What the team does (optional).", max_length=500),
            },
            ["actorId", "name"],
        ),
        _create_team,
    ),
    WRITES.tool(
        "reassign_team_lead",
        "Make another active member of the team its lead.",
        change("team", "teamId", {"newLeadId": ref("member", "The new lead.")}, ["newLeadId"]),
        _reassign_team_lead,
    ),
]
