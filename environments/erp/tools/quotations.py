"""Quotation tools: vendors' priced answers to RFQs, their validity and the award.

Contract: a quotation is valid while ``submitted`` (or ``accepted``) and its ``validUntil`` is
today or later. ``record_quotation`` needs a sent RFQ, an invited vendor without a quotation
on it yet, and only the RFQ's products (quantities default to the RFQ's). ``update_quotation``
changes prices, lead time or validity and revives an expired quotation given a later
``validUntil``. ``accept_quotation`` refuses invalid quotations and blocked vendors, awards
the RFQ and rejects the competing quotations. Comparison and expiry live in
:mod:`.quotation_analysis`, last in this domain's registry order. Quotation totals carry no
tax. Each mutation appends one audit row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from silo import Tool, ToolError
from silo.toolkit.guards import Args, non_blank
from silo.toolkit.results import snapshot
from silo.toolkit.schema import choice, day, integer, obj

from ..domain.documents import quotation_is_valid
from ..state import mint_id, today
from . import quotation_analysis
from .common import WRITES, State, audit, fetch, require_status
from .crud import get_tool, list_tool
from .lines import reprice
from .rfq_rules import eligible_vendor, quotations_of
from .schema import QUOTATION_STATUSES, acting_on, actor, lines, money, quantity, reason, record_id
from .views import quotation_view


def _is_valid(state: Any, args: Args, quotation: Any) -> bool:
    return "isValid" not in args or quotation_is_valid(state, quotation) == args["isValid"]


def _priced_lines(
    rfq: Mapping[str, Any], given: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Quotation lines for ``given``, limited to the RFQ's products (quantities default)."""
    requested = {line["productId"]: line["quantity"] for line in rfq["lines"]}
    seen: set[str] = set()
    result = []
    for item in given:
        product_id = item["productId"]
        if product_id not in requested:
            raise ToolError(
                "invalid_input",
                f"{product_id} was not requested on {rfq['id']}; quote only {', '.join(requested)}",
            )
        if product_id in seen:
            raise ToolError("invalid_input", f"{product_id} is quoted twice; use one line")
        seen.add(product_id)
        result.append(
            {
                "productId": product_id,
                "quantity": int(item.get("quantity", requested[product_id])),
                "unitPrice": item["unitPrice"],
            }
        )
    return result


def _record_quotation(state: State, args: Args) -> dict[str, Any]:
    rfq = fetch(state, "rfqs", args["rfqId"])
    require_status(rfq, ("sent",), "quoted on")
    vendor_id = args["vendorId"]
    if vendor_id not in rfq["vendorIds"]:
        raise ToolError(
            "invalid_input", f"{vendor_id} is not invited to {rfq['id']}; add_vendor_to_rfq first"
        )
    for other in quotations_of(state, rfq["id"]):
        if other["vendorId"] == vendor_id:
            raise ToolError(
                "conflict",
                f"{vendor_id} already quoted on {rfq['id']} ({other['id']}); update_quotation",
                {"id": other["id"]},
            )
    priced = _priced_lines(rfq, args["lines"])
    quotation = {
        "id": mint_id(state, "QUO"),
        "rfqId": rfq["id"],
        "vendorId": vendor_id,
        "status": "submitted",
        "validUntil": args["validUntil"],
        "leadTimeDays": args.get("leadTimeDays", state["vendors"][vendor_id]["leadTimeDays"]),
        "lines": priced,
        "receivedAt": state["now"],
        "notes": args.get("notes", ""),
    }
    reprice(quotation, taxed=False)
    state["quotations"][quotation["id"]] = quotation
    audit(state, args, "quotation.recorded", quotation, {"rfqId": rfq["id"]})
    return quotation_view(state, snapshot(quotation))


def _update_quotation(state: State, args: Args) -> dict[str, Any]:
    quotation = fetch(state, "quotations", args["quotationId"])
    require_status(quotation, ("submitted", "expired"), "updated")
    fields = [key for key in ("validUntil", "leadTimeDays", "lines") if key in args]
    if not fields:
        raise ToolError(
            "invalid_input", "nothing to update; pass validUntil, leadTimeDays or lines"
        )
    new_lines = (
        _priced_lines(state["rfqs"][quotation["rfqId"]], args["lines"]) if "lines" in args else None
    )
    before = {
        "validUntil": quotation["validUntil"],
        "total": quotation["total"],
        "status": quotation["status"],
    }
    for key in ("validUntil", "leadTimeDays"):
        if key in args:
            quotation[key] = args[key]
    if new_lines is not None:
        quotation["lines"] = new_lines
        reprice(quotation, taxed=False)
    if quotation["status"] == "expired" and quotation["validUntil"] >= today(state):
        quotation["status"] = "submitted"
    audit(state, args, "quotation.updated", quotation, {"before": before, "fields": fields})
    return quotation_view(state, snapshot(quotation))


def _accept_quotation(state: State, args: Args) -> dict[str, Any]:
    quotation = fetch(state, "quotations", args["quotationId"])
    if not quotation_is_valid(state, quotation) or quotation["status"] != "submitted":
        raise ToolError(
            "invalid_state",
            f"{quotation['id']} is {quotation['status']} and valid until "
            f"{quotation['validUntil']}; it cannot be accepted (see compare_quotations)",
            {"id": quotation["id"], "isValid": quotation_is_valid(state, quotation)},
        )
    eligible_vendor(state, quotation["vendorId"], "an award")
    rfq = state["rfqs"][quotation["rfqId"]]
    require_status(rfq, ("sent", "closed"), "awarded")
    rejected = []
    for other in quotations_of(state, rfq["id"]):
        if other["id"] != quotation["id"] and other["status"] in ("submitted", "expired"):
            other["status"] = "rejected"
            rejected.append(other["id"])
    quotation["status"] = "accepted"
    rfq["status"] = "awarded"
    rfq["awardedQuotationId"] = quotation["id"]
    rfq["closedAt"] = state["now"]
    audit(state, args, "quotation.accepted", quotation, {"rfqId": rfq["id"], "rejected": rejected})
    return {**quotation_view(state, snapshot(quotation)), "rejectedQuotationIds": rejected}


def _reject_quotation(state: State, args: Args) -> dict[str, Any]:
    quotation = fetch(state, "quotations", args["quotationId"])
    require_status(quotation, ("submitted", "expired"), "rejected")
    text_reason = non_blank(args["reason"], "reason")
    quotation["status"] = "rejected"
    quotation["notes"] = text_reason
    audit(state, args, "quotation.rejected", quotation, {"reason": text_reason})
    return quotation_view(state, snapshot(quotation))


QUOTE_ID = "Id of the quotation, e.g. QUO-006."
QUOTE_LINES = {
    "productId": record_id("product", "A product requested on the RFQ."),
    "quantity": quantity("Units quoted (default: the RFQ's quantity)."),
    "unitPrice": money("Quoted unit price in USD."),
}

TOOLS: list[Tool] = [
    list_tool(
        "list_quotations",
        "List quotations with isValid, optionally by RFQ, vendor, status or validity.",
        "quotations",
        {
            "rfqId": record_id("rfq", "Only quotations on this RFQ."),
            "vendorId": record_id("vendor", "Only this vendor's quotations."),
            "status": choice(QUOTATION_STATUSES, "Only quotations in this status."),
            "isValid": {"type": "boolean", "description": "Only valid (true) or invalid (false)."},
        },
        view=quotation_view,
        extra=_is_valid,
        equal_fields=("rfqId", "vendorId", "status"),
    ),
    get_tool(
        "get_quotation",
        "One quotation with its lines, total, lead time and whether it is still valid.",
        "quotations",
        "quotation",
        "quotationId",
        view=quotation_view,
        example="QUO-006",
    ),
    WRITES.tool(
        "record_quotation",
        "Record an invited vendor's quotation on a sent RFQ (one per vendor, only the RFQ's "
        "products).",
        obj(
            {
                "actorId": actor(),
                "rfqId": record_id("rfq", "Id of the RFQ, e.g. RFQ-002."),
                "vendorId": record_id("vendor", "The quoting vendor."),
                "validUntil": day("Last day the prices hold (YYYY-MM-DD)."),
                "lines": lines("Quoted products.", QUOTE_LINES, ["productId", "unitPrice"]),
                "leadTimeDays": integer("Promised days to deliver.", 0, 365),
                "notes": {"type": "string", "description": "Free text.", "maxLength": 2000},
            },
            ["actorId", "rfqId", "vendorId", "validUntil", "lines"],
        ),
        _record_quotation,
    ),
    WRITES.tool(
        "update_quotation",
        "Change a submitted or expired quotation's prices, lead time or validity; a later "
        "validUntil revives an expired quotation.",
        obj(
            {
                "actorId": actor(),
                "quotationId": record_id("quotation", QUOTE_ID),
                "validUntil": day("New last day of validity."),
                "leadTimeDays": integer("New lead time in days.", 0, 365),
                "lines": lines(
                    "Replacement quoted lines.", QUOTE_LINES, ["productId", "unitPrice"]
                ),
            },
            ["actorId", "quotationId"],
        ),
        _update_quotation,
    ),
    WRITES.tool(
        "accept_quotation",
        "Award the RFQ to a valid quotation from an unblocked vendor; competing quotations are "
        "rejected. Expired quotations are refused.",
        acting_on("quotation", "quotationId", QUOTE_ID),
        _accept_quotation,
    ),
    WRITES.tool(
        "reject_quotation",
        "Reject a submitted or expired quotation with a reason.",
        acting_on("quotation", "quotationId", QUOTE_ID, reason=reason("Why it is rejected.")),
        _reject_quotation,
    ),
    *quotation_analysis.TOOLS,
]
