"""Deal flow tools: moving a deal through the pipeline, closing it and handing it over.

Contract: every tool here acts on one open deal (a closed deal is refused with
``invalid_state``) and appends one audit row. ``set_opportunity_stage`` jumps to any other open
stage; ``advance_opportunity_stage`` moves one stage on and stops before the closed stages; both
restart the days-in-stage clock. ``close_opportunity_won`` books the deal (optionally at the
signed amount) and ``close_opportunity_lost`` records why it was lost; both stamp today's date.
``reassign_opportunity`` hands an open deal to another active user and may be done only by the
current owner or a manager; it touches the deal's owner and nothing else.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError
from silo.toolkit.guards import non_blank

from .common import WRITES, assignable_user, fetch
from .opportunities import open_stages, require_open
from .schema import amount, long_text, record_id
from .views import opportunity_view

State = dict[str, Any]
Args = dict[str, Any]


def _open_deal(state: State, args: Args) -> dict[str, Any]:
    """The deal named by ``args``; refuses closed deals."""
    opp = fetch(state, "opportunities", args["opportunityId"])
    require_open(state, opp)
    return opp


def _closing_stage(state: State, won: bool) -> dict[str, Any]:
    for stage in state["stages"].values():
        if stage["isClosed"] and stage["isWon"] == won:
            return stage
    raise ToolError("invalid_state", "this pipeline has no closed stage for that outcome")


def _move(state: State, args: Args, opp: dict[str, Any], stage: dict[str, Any]) -> dict[str, Any]:
    """Put ``opp`` in ``stage`` today and audit the move."""
    details = {"fromStageId": opp["stageId"], "toStageId": stage["id"]}
    opp["stageId"] = stage["id"]
    opp["stageEnteredOn"] = state["now"]
    WRITES.audit(state, args, "opportunity.stage_changed", "opportunity", opp["id"], details)
    return opportunity_view(state, opp)


def _set_stage(state: State, args: Args) -> dict[str, Any]:
    opp = _open_deal(state, args)
    stage = fetch(state, "stages", args["stageId"])
    if stage["isClosed"]:
        raise ToolError(
            "invalid_input",
            f"{stage['name']} is a closed stage; use close_opportunity_won or "
            "close_opportunity_lost",
        )
    if stage["id"] == opp["stageId"]:
        raise ToolError("conflict", f"{opp['id']} is already in {stage['name']}")
    return _move(state, args, opp, stage)


def _advance_stage(state: State, args: Args) -> dict[str, Any]:
    opp = _open_deal(state, args)
    stages = open_stages(state)
    ids = [stage["id"] for stage in stages]
    position = ids.index(opp["stageId"])
    if position == len(ids) - 1:
        raise ToolError(
            "invalid_state",
            f"{opp['id']} is in the last open stage ({stages[position]['name']}); close it "
            "with close_opportunity_won or close_opportunity_lost",
        )
    return _move(state, args, opp, stages[position + 1])


def _close(state: State, args: Args, won: bool) -> dict[str, Any]:
    opp = _open_deal(state, args)
    reason = None if won else non_blank(args["reason"], "reason")
    stage = _closing_stage(state, won)
    details: dict[str, Any] = {"fromStageId": opp["stageId"], "toStageId": stage["id"]}
    if won and "finalAmount" in args:
        final = round(float(args["finalAmount"]), 2)
        details["amount"] = {"from": opp["amount"], "to": final}
        opp["amount"] = final
    if not won:
        opp["lossReason"] = reason
        details["reason"] = reason
    opp["stageId"] = stage["id"]
    opp["stageEnteredOn"] = state["now"]
    opp["closedDate"] = state["now"]
    action = "opportunity.won" if won else "opportunity.lost"
    WRITES.audit(state, args, action, "opportunity", opp["id"], details)
    return opportunity_view(state, opp)


def _close_won(state: State, args: Args) -> dict[str, Any]:
    return _close(state, args, won=True)


def _close_lost(state: State, args: Args) -> dict[str, Any]:
    return _close(state, args, won=False)


def _reassign(state: State, args: Args) -> dict[str, Any]:
    opp = _open_deal(state, args)
    acting = state["users"][args["actorId"]]
    if acting["role"] != "manager" and acting["id"] != opp["ownerId"]:
        raise ToolError(
            "not_allowed",
            f"only the deal's owner or a manager can reassign {opp['id']}",
            {"ownerId": opp["ownerId"]},
        )
    new_owner = assignable_user(state, args["newOwnerId"])
    if new_owner["id"] == opp["ownerId"]:
        raise ToolError("conflict", f"{opp['id']} is already owned by {new_owner['name']}")
    details = {"fromOwnerId": opp["ownerId"], "toOwnerId": new_owner["id"]}
    opp["ownerId"] = new_owner["id"]
    WRITES.audit(state, args, "opportunity.reassigned", "opportunity", opp["id"], details)
    return opportunity_view(state, opp)


def _deal_input(extra: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """Input object for a tool acting on one deal: actor, deal id and ``extra`` properties."""
    return WRITES.input(
        {
            "opportunityId": record_id("opportunity", "Id of the open deal to act on."),
            **extra,
        },
        ["opportunityId", *required],
    )


TOOLS: list[Tool] = [
    WRITES.tool(
        "set_opportunity_stage",
        "Move an open deal to another open stage (forwards or backwards). Restarts its "
        "days-in-stage count. Closing is done with the close tools.",
        _deal_input(
            {"stageId": record_id("stage", "Open stage to move to; see list_stages.")}, ("stageId",)
        ),
        _set_stage,
    ),
    WRITES.tool(
        "advance_opportunity_stage",
        "Move an open deal one stage forward. Refused at the last open stage (Negotiation): "
        "close the deal instead.",
        _deal_input({}),
        _advance_stage,
    ),
    WRITES.tool(
        "close_opportunity_won",
        "Book an open deal as won today. Pass finalAmount when the signed value differs from "
        "the amount on the deal; otherwise the current amount stands.",
        _deal_input({"finalAmount": amount("Signed contract value in US dollars.")}),
        _close_won,
    ),
    WRITES.tool(
        "close_opportunity_lost",
        "Mark an open deal as lost today, with the reason it was lost.",
        _deal_input(
            {"reason": long_text("Why the deal was lost.") | {"minLength": 3}}, ("reason",)
        ),
        _close_lost,
    ),
    WRITES.tool(
        "reassign_opportunity",
        "Hand an open deal to another active user. Only the current owner or a manager may do "
        "this; closed deals keep their owner.",
        _deal_input(
            {"newOwnerId": record_id("user", "Active user who will own the deal.")}, ("newOwnerId",)
        ),
        _reassign,
    ),
]
