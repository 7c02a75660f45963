"""Member tools: the people who do the work, their capacity and their lifecycle.

Contract: ``list_members`` (role, team, active and over-capacity filters), ``search_members``
(id, name, email) and ``get_member`` (with the items assigned to them) show members with load
and remaining capacity derived at read time. ``create_member`` adds an active member (unique
email, existing team); ``update_member`` changes role, team or capacity;
``deactivate_member`` switches a member off and reports the unfinished items they still hold;
``reactivate_member`` switches them back on. Deactivated members stay visible but cannot act or
take work. Each mutation appends one audit row.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError, define_tool
from silo.toolkit.guards import apply_changes, changes, non_blank, search_term
from silo.toolkit.results import contains, sorted_by_id
from silo.toolkit.schema import choice, flag, integer, obj, text

from .. import state as derived
from ..state import mint_id
from .common import WRITES, fetch, matches, page, store
from .schema import MAX_CAPACITY, ROLES, actor, by_id, change, listing, nullable_ref, ref, searching
from .views import item_view, member_view

State = dict[str, Any]
Args = dict[str, Any]


def _team_or_none(state: State, team_id: str | None) -> str | None:
    if team_id is not None:
        fetch(state, "teams", team_id)
    return team_id


def _list_members(state: State, args: Args) -> dict[str, Any]:
    rows = [
        member_view(state, member)
        for member in sorted_by_id(state["members"].values())
        if matches(member, args, ("role", "teamId", "active"))
    ]
    if "overCapacity" in args:
        rows = [row for row in rows if row["overCapacity"] == args["overCapacity"]]
    return page(rows, args)


def _search_members(state: State, args: Args) -> dict[str, Any]:
    term = search_term(args)
    found = [
        member
        for member in sorted_by_id(state["members"].values())
        if contains(term, (member["id"], member["name"], member["email"]))
    ]
    return page(found, args, lambda member: member_view(state, member))


def _get_member(state: State, args: Args) -> dict[str, Any]:
    member = fetch(state, "members", args["memberId"])
    items = sorted_by_id(derived.ITEMS_BY_ASSIGNEE.rows(state, member["id"]))
    return {**member_view(state, member), "assignedItems": [item_view(state, i) for i in items]}


def _create_member(state: State, args: Args) -> dict[str, Any]:
    email = non_blank(args["email"], "email").lower()
    if any(m["email"].lower() == email for m in state["members"].values()):
        raise ToolError("conflict", f"a member already uses {email}; emails must be unique")
    team_id = _team_or_none(state, args.get("teamId"))
    name = non_blank(args["name"], "name")
    member = {
        "id": mint_id(state, "MEM"),
        "name": name,
        "email": email,
        "role": args["role"],
        "teamId": team_id,
        "weeklyCapacity": args["weeklyCapacity"],
        "active": True,
        "deactivatedOn": None,
    }
    return member_view(state, store(state, "members", member, args, "member"))


def _update_member(state: State, args: Args) -> dict[str, Any]:
    member = fetch(state, "members", args["memberId"])
    updates = changes(args, ("role", "teamId", "weeklyCapacity"))
    if "teamId" in updates:
        _team_or_none(state, updates["teamId"])
    diff = apply_changes(member, updates)
    WRITES.audit(state, args, "member.updated", "member", member["id"], diff)
    return member_view(state, member)


def _set_active(state: State, args: Args, active: bool) -> dict[str, Any]:
    actor_member = WRITES.actor_of(state, args)
    member = fetch(state, "members", args["memberId"])
    if member["active"] == active:
        word = "active" if active else "deactivated"
        raise ToolError("invalid_state", f"{member['name']} is already {word}")
    if not active and actor_member["id"] == member["id"]:
        raise ToolError("invalid_input", "members cannot deactivate themselves; ask someone else")
    member["active"] = active
    member["deactivatedOn"] = None if active else state["now"]
    open_ids = [
        item["id"]
        for item in sorted_by_id(derived.ITEMS_BY_ASSIGNEE.rows(state, member["id"]))
        if not derived.is_done(state, item)
    ]
    action = "member.reactivated" if active else "member.deactivated"
    WRITES.audit(state, args, action, "member", member["id"], {"openItemIds": open_ids})
    return {**member_view(state, member), "openItemIds": open_ids}


def _capacity(description: str) -> dict[str, Any]:
    return integer(description, 0, MAX_CAPACITY)


TOOLS: list[Tool] = [
    define_tool(
        "list_members",
        "List members with weekly capacity, load (points of unfinished assigned work), remaining "
        "capacity and an over-capacity flag. Deactivated members are included unless filtered.",
        listing(
            {
                "role": choice(ROLES, "Only members with this role."),
                "teamId": ref("team", "Only members of this team."),
                "active": flag("true for active members, false for deactivated ones."),
                "overCapacity": flag("true for members whose load exceeds their capacity."),
            }
        ),
        _list_members,
        read_only=True,
    ),
    define_tool(
        "search_members",
        "Find members whose id, name or email contains the query text.",
        searching(),
        _search_members,
        read_only=True,
    ),
    define_tool(
        "get_member",
        "One member with load and capacity figures and every work item assigned to them.",
        by_id("member", "memberId", "MEM-003"),
        _get_member,
        read_only=True,
    ),
    WRITES.tool(
        "create_member",
        "Add a new active member. Emails must be unique; the team, when given, must exist.",
        obj(
            {
                "actorId": actor(),
                "name": text("Full name."),
                "email": text("Work email address."),
                "role": choice(ROLES, "The member's role."),
                "teamId": ref("team", "Team to join (optional)."),
                "weeklyCapacity": _capacity("Points of work the member can carry per week."),
            },
            ["actorId", "name", "email", "role", "weeklyCapacity"],
        ),
        _create_member,
    ),
    WRITES.tool(
        "update_member",
        "Change a member's role, team (null leaves every team) or weekly capacity. Pass only the "
        "fields to change.",
        change(
            "member",
            "memberId",
            {
                "role": choice(ROLES, "New role."),
                "teamId": nullable_ref("team", "New team, or null for none."),
                "weeklyCapacity": _capacity("New weekly capacity in points."),
            },
            [],
        ),
        _update_member,
    ),
    WRITES.tool(
        "deactivate_member",
        "Switch off a member who has left. Their items stay assigned to them (reassign them) and "
        "the ids of their unfinished items are returned as openItemIds.",
        change("member", "memberId", {}, []),
        lambda state, args: _set_active(state, args, False),
    ),
    WRITES.tool(
        "reactivate_member",
        "Switch a deactivated member back on so they can act and take work again.",
        change("member", "memberId", {}, []),
        lambda state, args: _set_active(state, args, True),
    ),
]
