"""Reporting tools: pipeline, forecast, rep performance, stuck deals and the audit trail.

Contract: every tool here is read-only and computes its figures from the current world at call
time through the shared helpers in ``state.py`` (weighted amount = amount x stage probability /
100; stale = open and more than N days in stage; attainment = closed-won / quota). Nothing
derived is ever stored.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from silo import Tool, define_tool
from silo.toolkit.guards import parse_day
from silo.toolkit.schema import choice, day, flag, integer, obj, text

from .. import state as derived
from ..state import STALE_STAGE_DAYS
from .common import page
from .opportunities import open_stages
from .schema import listing, record_id
from .views import opportunity_view

State = dict[str, Any]
Args = dict[str, Any]


def _open_deals(state: State, owner_id: str | None = None) -> list[dict[str, Any]]:
    return sorted(
        (
            opp
            for opp in state["opportunities"].values()
            if derived.opportunity_status(state, opp) == "open"
            and (owner_id is None or opp["ownerId"] == owner_id)
        ),
        key=lambda opp: opp["id"],
    )


def _totals(state: State, deals: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "count": len(deals),
        "amount": round(sum(float(opp["amount"]) for opp in deals), 2),
        "weightedAmount": round(sum(derived.weighted_amount(state, opp) for opp in deals), 2),
    }


def _pipeline_summary(state: State, args: Args) -> dict[str, Any]:
    deals = _open_deals(state, args.get("ownerId"))
    by_stage = [
        {
            "stageId": stage["id"],
            "stageName": stage["name"],
            "probability": stage["probability"],
            **_totals(state, [opp for opp in deals if opp["stageId"] == stage["id"]]),
        }
        for stage in open_stages(state)
    ]
    return {"asOf": state["now"], "stages": by_stage, "totals": _totals(state, deals)}


def _forecast_report(state: State, args: Args) -> dict[str, Any]:
    cutoff = args.get("closingOnOrBefore")
    if cutoff is not None:
        parse_day(cutoff, "closingOnOrBefore")
    owner_id = args.get("ownerId")
    deals = [
        opp
        for opp in _open_deals(state, owner_id)
        if cutoff is None or opp["expectedCloseDate"] <= cutoff
    ]
    open_weighted = _totals(state, deals)["weightedAmount"]
    won = 0.0
    if args.get("includeClosedWon", False):
        won = round(
            sum(
                float(opp["amount"])
                for opp in state["opportunities"].values()
                if derived.opportunity_status(state, opp) == "won"
                and (owner_id is None or opp["ownerId"] == owner_id)
                and (cutoff is None or (opp["closedDate"] or "") <= cutoff)
            ),
            2,
        )
    return {
        "asOf": state["now"],
        "deals": [opportunity_view(state, opp) for opp in deals],
        "openWeighted": open_weighted,
        "closedWon": won,
        "forecast": round(open_weighted + won, 2),
    }


def _rep_performance(state: State, args: Args) -> dict[str, Any]:
    rows = []
    for user in sorted(state["users"].values(), key=lambda u: u["id"]):
        if user["role"] != "rep" or (args.get("activeOnly") and not user["active"]):
            continue
        pipeline = derived.open_pipeline(state, user["id"])
        rows.append(
            {
                "userId": user["id"],
                "name": user["name"],
                "active": user["active"],
                "quota": user["quota"],
                "closedWon": derived.closed_won_total(state, user["id"]),
                "attainmentPct": derived.quota_attainment(state, user),
                "openDeals": pipeline["count"],
                "openPipeline": pipeline["amount"],
                "weightedPipeline": pipeline["weightedAmount"],
                "staleDeals": sum(
                    1 for opp in _open_deals(state, user["id"]) if derived.is_stale(state, opp)
                ),
            }
        )
    return {"asOf": state["now"], "reps": rows}


def _stale_opportunities(state: State, args: Args) -> dict[str, Any]:
    threshold = int(args.get("thresholdDays", STALE_STAGE_DAYS))
    stuck = [
        opportunity_view(state, opp)
        for opp in _open_deals(state, args.get("ownerId"))
        if derived.is_stale(state, opp, threshold)
    ]
    stuck.sort(key=lambda view: (-derived.days_in_stage(state, view), view["id"]))
    counts = Counter(view["ownerId"] for view in stuck)
    by_owner = [
        {"ownerId": owner, "ownerName": state["users"][owner]["name"], "count": count}
        for owner, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]
    return {
        "asOf": state["now"],
        "thresholdDays": threshold,
        "total": len(stuck),
        "results": stuck,
        "countByOwner": by_owner,
    }


def _list_audit_log(state: State, args: Args) -> dict[str, Any]:
    keys = ("actorId", "entityId", "entityType")
    rows = [row for row in state["auditLog"] if all(row[k] == args[k] for k in keys if k in args)]
    return page(rows, args)


TOOLS: list[Tool] = [
    define_tool(
        "pipeline_summary",
        "Open pipeline per open stage: number of deals, total amount and probability-weighted "
        "amount, plus totals. Optionally for one owner.",
        obj({"ownerId": record_id("user", "Only deals owned by this user.")}),
        _pipeline_summary,
        read_only=True,
    ),
    define_tool(
        "forecast_report",
        "Weighted forecast: the open deals expected to close by a date (all when omitted) with "
        "their weighted sum, optionally plus revenue already won.",
        obj(
            {
                "ownerId": record_id("user", "Only deals owned by this user."),
                "closingOnOrBefore": day("Only deals expected to close on or before this date."),
                "includeClosedWon": flag("Add the amounts of deals already won.", False),
            }
        ),
        _forecast_report,
        read_only=True,
    ),
    define_tool(
        "rep_performance",
        "Per sales rep: active flag, quota, closed-won revenue, attainment percent, open "
        "pipeline (count, amount, weighted) and number of stale deals. Deactivated reps are "
        "listed too unless activeOnly is true.",
        obj({"activeOnly": flag("true to leave out deactivated reps.", False)}),
        _rep_performance,
        read_only=True,
    ),
    define_tool(
        "stale_opportunities",
        "Open deals that have sat in their current stage for more than thresholdDays (default "
        f"{STALE_STAGE_DAYS}), longest first, with a count per owner.",
        obj(
            {
                "thresholdDays": integer(
                    "A deal is stuck when its days in stage exceed this number.",
                    0,
                    3650,
                    STALE_STAGE_DAYS,
                ),
                "ownerId": record_id("user", "Only deals owned by this user."),
            }
        ),
        _stale_opportunities,
        read_only=True,
    ),
    define_tool(
        "list_audit_log",
        "The audit trail of changes made in this CRM, oldest first, optionally filtered by "
        "actor, entity type or entity id.",
        listing(
            {
                "actorId": record_id("user", "Only changes made by this user."),
                "entityType": choice(
                    ("account", "contact", "lead", "opportunity", "activity"),
                    "Only changes to this kind of record.",
                ),
                "entityId": text("Only changes to this record id.", max_length=20),
            }
        ),
        _list_audit_log,
        read_only=True,
    ),
]
