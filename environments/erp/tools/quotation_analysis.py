"""Quotation analysis: compare an RFQ's quotations, pick the cheapest valid one, expire the
lapsed ones.

Contract: quotations are compared by total (no tax), rejected ones left out; the cheapest
overall may be invalid (expired), which ``compare_quotations`` flags as ``cheapestIsInvalid``
beside the cheapest valid one. ``find_cheapest_valid_quotation`` optionally caps the lead
time and is ``not_found`` when nothing qualifies. ``expire_quotations`` marks every submitted
quotation past its validity ``expired``, one audit row each.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError, define_tool
from silo.toolkit.guards import Args
from silo.toolkit.results import snapshot
from silo.toolkit.schema import integer, obj

from ..domain.documents import quotation_is_valid
from .common import WRITES, State, audit, fetch
from .rfq_rules import quotations_of
from .schema import actor, by_id, record_id
from .views import quotation_view


def _comparable(state: State, rfq_id: str) -> list[dict[str, Any]]:
    rfq = fetch(state, "rfqs", rfq_id)
    wanted = {line["productId"] for line in rfq["lines"]}
    rows = [
        {
            "quotationId": q["id"],
            "vendorId": q["vendorId"],
            "vendorName": state["vendors"][q["vendorId"]]["name"],
            "status": q["status"],
            "total": q["total"],
            "leadTimeDays": q["leadTimeDays"],
            "validUntil": q["validUntil"],
            "isValid": quotation_is_valid(state, q),
            "coversAllLines": wanted <= {line["productId"] for line in q["lines"]},
        }
        for q in quotations_of(state, rfq["id"])
        if q["status"] != "rejected"
    ]
    rows.sort(key=lambda row: (row["total"], row["quotationId"]))
    return rows


def _compare_quotations(state: State, args: Args) -> dict[str, Any]:
    rows = _comparable(state, args["rfqId"])
    valid = [row for row in rows if row["isValid"]]
    cheapest = rows[0] if rows else None
    return {
        "rfqId": args["rfqId"],
        "quotations": rows,
        "cheapestOverall": cheapest,
        "cheapestValid": valid[0] if valid else None,
        "cheapestIsInvalid": bool(cheapest and not cheapest["isValid"]),
    }


def _find_cheapest_valid_quotation(state: State, args: Args) -> dict[str, Any]:
    limit = args.get("maxLeadTimeDays")
    rows = [
        row
        for row in _comparable(state, args["rfqId"])
        if row["isValid"] and (limit is None or row["leadTimeDays"] <= limit)
    ]
    if not rows:
        raise ToolError(
            "not_found",
            f"{args['rfqId']} has no valid quotation" + (f" within {limit} days" if limit else ""),
        )
    return quotation_view(state, snapshot(state["quotations"][rows[0]["quotationId"]]))


def _expire_quotations(state: State, args: Args) -> dict[str, Any]:
    lapsed = [
        q
        for q in sorted(state["quotations"].values(), key=lambda q: q["id"])
        if q["status"] == "submitted" and not quotation_is_valid(state, q)
    ]
    for quotation in lapsed:
        quotation["status"] = "expired"
        audit(state, args, "quotation.expired", quotation, {"validUntil": quotation["validUntil"]})
    return {"expired": [q["id"] for q in lapsed], "count": len(lapsed)}


TOOLS: list[Tool] = [
    define_tool(
        "compare_quotations",
        "Compare an RFQ's quotations by total: the cheapest overall, the cheapest valid one, "
        "and cheapestIsInvalid when the lowest price has expired.",
        by_id("rfq", "rfqId", "Id of the RFQ, e.g. RFQ-002."),
        _compare_quotations,
        read_only=True,
    ),
    define_tool(
        "find_cheapest_valid_quotation",
        "The lowest-total valid quotation on an RFQ, optionally within a maximum lead time.",
        obj(
            {
                "rfqId": record_id("rfq", "Id of the RFQ, e.g. RFQ-002."),
                "maxLeadTimeDays": integer(
                    "Only quotations delivering within this many days.", 0, 365
                ),
            },
            ["rfqId"],
        ),
        _find_cheapest_valid_quotation,
        read_only=True,
    ),
    WRITES.tool(
        "expire_quotations",
        "Housekeeping: mark every submitted quotation whose validity has passed as expired.",
        obj({"actorId": actor()}, ["actorId"]),
        _expire_quotations,
    ),
]
