"""User tools: the sales team, read-only.

Contract: ``list_users`` filters by role and active flag and paginates; ``get_user`` returns one
user with closed-won revenue, open pipeline and quota attainment derived at read time.
Deactivated users stay visible (their deals and history remain) but cannot act or own records.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, define_tool
from silo.toolkit.results import sorted_by_id
from silo.toolkit.schema import choice, flag

from .common import fetch, page
from .schema import by_id, listing
from .views import user_view

ROLES = ("manager", "rep")


def _list_users(state: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    rows = [
        user_view(state, user)
        for user in sorted_by_id(state["users"].values())
        if ("role" not in args or user["role"] == args["role"])
        and ("active" not in args or user["active"] == args["active"])
    ]
    return page(rows, args)


def _get_user(state: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    return user_view(state, fetch(state, "users", args["userId"]))


TOOLS: list[Tool] = [
    define_tool(
        "list_users",
        "List the CRM users (sales reps and managers) with quota, closed-won revenue, open "
        "pipeline and quota attainment. Deactivated users are included unless filtered out.",
        listing(
            {
                "role": choice(ROLES, "Only users with this role."),
                "active": flag(
                    "true for users still with the company, false for deactivated ones; omit "
                    "for both."
                ),
            }
        ),
        _list_users,
        read_only=True,
    ),
    define_tool(
        "get_user",
        "One user with quota, closed-won revenue, open pipeline (count, amount, weighted) and "
        "quota attainment in percent.",
        by_id("user", "userId", "Id of the user, e.g. USR-003."),
        _get_user,
        read_only=True,
    ),
]
