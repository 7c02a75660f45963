"""Opportunity tools: reading, creating and editing deals.

Contract: ``list_stages`` shows the pipeline in order; list (filter by owner, account, stage,
status, staleness), search (id, name, account name) and get (with its activities) return deals
with derived figures (status, probability, weighted amount, days in stage, stale and past-due
flags). ``create_opportunity`` opens a deal on an existing account in an open stage;
``update_opportunity`` edits an open deal's name, amount, close date or primary contact. Each
mutation appends one audit row. Stage moves, closing and reassignment live in ``deal_flow``.
:func:`new_opportunity` is shared with lead conversion.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError, define_tool
from silo.toolkit.guards import apply_changes, changes, non_blank, search_term
from silo.toolkit.results import contains, sorted_by_id
from silo.toolkit.schema import choice, day, flag, text

from .. import state as derived
from ..state import mint_id
from .common import WRITES, assignable_user, fetch, future_day, page
from .schema import OPPORTUNITY_STATUSES, amount, by_id, listing, record_id, searching
from .views import activity_view, opportunity_view

State = dict[str, Any]
Args = dict[str, Any]


def open_stages(state: State) -> list[dict[str, Any]]:
    """The stages a live deal can sit in, in pipeline order."""
    return [stage for stage in derived.ordered_stages(state) if not stage["isClosed"]]


def require_open(state: State, opp: dict[str, Any]) -> None:
    """Refuse to act on a deal that is already closed."""
    status = derived.opportunity_status(state, opp)
    if status != "open":
        raise ToolError(
            "invalid_state",
            f"{opp['id']} is already closed ({status}); closed deals cannot be changed",
            {"id": opp["id"], "status": status},
        )


def contact_on_account(state: State, contact_id: str, account_id: str) -> dict[str, Any]:
    """A contact that works for ``account_id``; others cannot be a deal's primary contact."""
    contact = fetch(state, "contacts", contact_id)
    if contact["accountId"] != account_id:
        raise ToolError(
            "invalid_input",
            f"contact {contact_id} is not on account {account_id}; link it first",
        )
    return contact


def new_opportunity(
    state: State, fields: Args, account_id: str, owner_id: str, stage_id: str | None = None
) -> dict[str, Any]:
    """Create and store an open deal; the caller has validated account, owner and dates."""
    first_open = open_stages(state)[0]["id"]
    opp = {
        "id": mint_id(state, "OPP"),
        "name": fields["name"],
        "accountId": account_id,
        "ownerId": owner_id,
        "stageId": stage_id or first_open,
        "amount": round(float(fields["amount"]), 2),
        "currency": "USD",
        "createdOn": state["now"],
        "stageEnteredOn": state["now"],
        "expectedCloseDate": fields["expectedCloseDate"],
        "closedDate": None,
        "lossReason": None,
        "primaryContactId": fields.get("primaryContactId"),
        "sourceLeadId": fields.get("sourceLeadId"),
    }
    state["opportunities"][opp["id"]] = opp
    return opp


def _matches_filters(state: State, opp: dict[str, Any], args: Args) -> bool:
    # The plain field filters first: they reject most deals before any figure is derived.
    if not all(opp[key] == args[key] for key in ("ownerId", "accountId", "stageId") if key in args):
        return False
    wanted = args.get("status")
    if wanted is not None:
        status = derived.opportunity_status(state, opp)
        if not (status == wanted or (wanted == "closed" and status != "open")):
            return False
    return not args.get("staleOnly") or derived.is_stale(state, opp)


def _list_stages(state: State, args: Args) -> dict[str, Any]:
    return page(derived.ordered_stages(state), args)


def _list_opportunities(state: State, args: Args) -> dict[str, Any]:
    if "ownerId" in args:  # the index narrows to the owner's deals; the filters do the rest
        candidates = derived.OPPORTUNITIES_BY_OWNER.rows(state, args["ownerId"])
    elif "accountId" in args:
        candidates = derived.OPPORTUNITIES_BY_ACCOUNT.rows(state, args["accountId"])
    else:
        candidates = list(state["opportunities"].values())
    found = [opp for opp in candidates if _matches_filters(state, opp, args)]
    return page(sorted_by_id(found), args, lambda opp: opportunity_view(state, opp))


def _search_opportunities(state: State, args: Args) -> dict[str, Any]:
    term = search_term(args)
    rows = [
        view
        for view in (
            opportunity_view(state, opp) for opp in sorted_by_id(state["opportunities"].values())
        )
        if contains(term, (view["id"], view["name"], view["accountName"]))
    ]
    return page(rows, args)


def _get_opportunity(state: State, args: Args) -> dict[str, Any]:
    opp = fetch(state, "opportunities", args["opportunityId"])
    related = [
        activity_view(state, act)
        for act in sorted_by_id(derived.ACTIVITIES_BY_RECORD.rows(state, opp["id"]))
        if act["relatedType"] == "opportunity"
    ]
    return {**opportunity_view(state, opp), "activities": related}


def _create_opportunity(state: State, args: Args) -> dict[str, Any]:
    account = fetch(state, "accounts", args["accountId"])
    owner = assignable_user(state, args.get("ownerId", args["actorId"]))
    stage_id = args.get("stageId")
    if stage_id is not None and fetch(state, "stages", stage_id)["isClosed"]:
        raise ToolError("invalid_input", "a new deal must start in an open stage; see list_stages")
    future_day(state, args["expectedCloseDate"], "expectedCloseDate")
    if "primaryContactId" in args:
        contact_on_account(state, args["primaryContactId"], account["id"])
    fields = {**args, "name": non_blank(args["name"], "name")}
    opp = new_opportunity(state, fields, account["id"], owner["id"], stage_id)
    WRITES.audit(state, args, "opportunity.created", "opportunity", opp["id"])
    return opportunity_view(state, opp)


def _update_opportunity(state: State, args: Args) -> dict[str, Any]:
    opp = fetch(state, "opportunities", args["opportunityId"])
    require_open(state, opp)
    updates = changes(args, ("name", "amount", "expectedCloseDate", "primaryContactId"))
    if "name" in updates:
        updates["name"] = non_blank(updates["name"], "name")
    if "amount" in updates:
        updates["amount"] = round(float(updates["amount"]), 2)
    if "expectedCloseDate" in updates:
        future_day(state, updates["expectedCloseDate"], "expectedCloseDate")
    if "primaryContactId" in updates:
        contact_on_account(state, updates["primaryContactId"], opp["accountId"])
    diff = apply_changes(opp, updates)
    WRITES.audit(state, args, "opportunity.updated", "opportunity", opp["id"], diff)
    return opportunity_view(state, opp)


def _deal_fields() -> dict[str, Any]:
    """Properties create_opportunity and update_opportunity share."""
    return {
        "name": text("Short name of the deal."),
        "amount": amount("Deal value in US dollars."),
        "expectedCloseDate": day("Date the deal is expected to close (YYYY-MM-DD, not past)."),
        "primaryContactId": record_id("contact", "Main contact; must work for the account."),
    }


TOOLS: list[Tool] = [
    define_tool(
        "list_stages",
        "The pipeline stages in order, with win probability (percent) and whether each is a "
        "closed stage.",
        listing({}),
        _list_stages,
        read_only=True,
    ),
    define_tool(
        "list_opportunities",
        "List deals with derived figures (status, probability, weighted amount, days in stage, "
        "stale and past-due flags). Filter by owner, account, stage, status or staleness.",
        listing(
            {
                "ownerId": record_id("user", "Only deals owned by this user."),
                "accountId": record_id("account", "Only deals on this account."),
                "stageId": record_id("stage", "Only deals in this stage."),
                "status": choice(OPPORTUNITY_STATUSES, "open, won, lost, or closed (won or lost)."),
                "staleOnly": flag(
                    "true to return only open deals more than 30 days in their current stage."
                ),
            }
        ),
        _list_opportunities,
        read_only=True,
    ),
    define_tool(
        "search_opportunities",
        "Find deals whose id, name or account name contains the query text.",
        searching(),
        _search_opportunities,
        read_only=True,
    ),
    define_tool(
        "get_opportunity",
        "One deal with its derived figures and every activity logged against it.",
        by_id("opportunity", "opportunityId", "Id of the deal, e.g. OPP-007."),
        _get_opportunity,
        read_only=True,
    ),
    WRITES.tool(
        "create_opportunity",
        "Open a new deal on an existing account. It starts in the first open stage unless an "
        "open stageId is given; the owner defaults to the acting user and must be active.",
        WRITES.input(
            {
                "accountId": record_id("account", "Account the deal is with."),
                **_deal_fields(),
                "stageId": record_id("stage", "Open stage to start in (default: the first)."),
                "ownerId": record_id("user", "Active user who will own the deal."),
            },
            ["accountId", "name", "amount", "expectedCloseDate"],
        ),
        _create_opportunity,
    ),
    WRITES.tool(
        "update_opportunity",
        "Change an open deal's name, amount, expected close date or primary contact. Pass only "
        "the fields to change. Use the stage, close and reassign tools for those changes.",
        WRITES.input(
            {
                "opportunityId": record_id("opportunity", "Id of the deal to change."),
                **_deal_fields(),
            },
            ["opportunityId"],
        ),
        _update_opportunity,
    ),
]
