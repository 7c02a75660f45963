"""RFQ tools: requests for quotation sent to invited vendors.

Contract: list (status), get (with its quotations), create (a standalone draft; products must
be active, vendors invitable), add a vendor (draft or sent RFQs; blocked or inactive vendors
refused, duplicates are a ``conflict``), remove a vendor (not once it has quoted), send (draft
with at least one vendor), close (sent, stops new quotations), cancel (draft or sent, with a
reason) and the RFQ's quotations. Each mutation appends one audit row.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError, define_tool
from silo.toolkit.guards import Args, non_blank
from silo.toolkit.results import snapshot
from silo.toolkit.schema import choice, day, obj, text

from .common import WRITES, State, audit, fetch, page, require_status
from .crud import list_tool
from .lines import product_lines
from .rfq_rules import invitable_vendors, new_rfq, quotations_of
from .schema import (
    RFQ_STATUSES,
    acting_on,
    actor,
    by_id,
    id_list,
    lines,
    listing,
    quantity,
    reason,
    record_id,
)
from .views import quotation_view


def _rfq(state: State, args: Args, allowed: tuple[str, ...], verb: str) -> dict[str, Any]:
    rfq = fetch(state, "rfqs", args["rfqId"])
    require_status(rfq, allowed, verb)
    return rfq


def _rfq_view(state: Any, rfq: Any) -> dict[str, Any]:
    return {
        **rfq,
        "quotations": [quotation_view(state, q) for q in quotations_of(state, rfq["id"])],
    }


def _get_rfq(state: State, args: Args) -> dict[str, Any]:
    return snapshot(_rfq_view(state, fetch(state, "rfqs", args["rfqId"])))


def _create_rfq(state: State, args: Args) -> dict[str, Any]:
    title = non_blank(args["title"], "title")
    wanted = product_lines(state, [{**line, "unitPrice": 0} for line in args["lines"]])
    vendor_ids = invitable_vendors(state, args.get("vendorIds", []))
    return snapshot(new_rfq(state, args, title, wanted, vendor_ids, None))


def _add_vendor_to_rfq(state: State, args: Args) -> dict[str, Any]:
    rfq = _rfq(state, args, ("draft", "sent"), "given more vendors")
    vendor_id = invitable_vendors(state, [args["vendorId"]])[0]
    if vendor_id in rfq["vendorIds"]:
        raise ToolError("conflict", f"{vendor_id} is already invited to {rfq['id']}")
    rfq["vendorIds"].append(vendor_id)
    audit(state, args, "rfq.vendor_added", rfq, {"vendorId": vendor_id})
    return snapshot(rfq)


def _remove_vendor_from_rfq(state: State, args: Args) -> dict[str, Any]:
    rfq = _rfq(state, args, ("draft", "sent"), "changed")
    vendor_id = args["vendorId"]
    if vendor_id not in rfq["vendorIds"]:
        raise ToolError("not_found", f"{vendor_id} is not invited to {rfq['id']}")
    quoted = [q["id"] for q in quotations_of(state, rfq["id"]) if q["vendorId"] == vendor_id]
    if quoted:
        raise ToolError(
            "invalid_state",
            f"{vendor_id} already quoted ({quoted[0]}); reject_quotation instead",
            {"quotationId": quoted[0]},
        )
    rfq["vendorIds"].remove(vendor_id)
    audit(state, args, "rfq.vendor_removed", rfq, {"vendorId": vendor_id})
    return snapshot(rfq)


def _send_rfq(state: State, args: Args) -> dict[str, Any]:
    rfq = _rfq(state, args, ("draft",), "sent")
    if not rfq["vendorIds"]:
        raise ToolError("invalid_state", f"{rfq['id']} has no vendors; add_vendor_to_rfq first")
    rfq["status"] = "sent"
    rfq["sentAt"] = state["now"]
    audit(state, args, "rfq.sent", rfq, {"vendorIds": list(rfq["vendorIds"])})
    return snapshot(rfq)


def _end_rfq(state: State, args: Args, status: str, allowed: tuple[str, ...]) -> dict[str, Any]:
    rfq = _rfq(state, args, allowed, status)
    text_reason = non_blank(args["reason"], "reason") if "reason" in args else ""
    rfq["status"] = status
    rfq["closedAt"] = state["now"]
    audit(state, args, f"rfq.{status}", rfq, {"reason": text_reason})
    return snapshot(rfq)


def _close_rfq(state: State, args: Args) -> dict[str, Any]:
    return _end_rfq(state, args, "closed", ("sent",))


def _cancel_rfq(state: State, args: Args) -> dict[str, Any]:
    return _end_rfq(state, args, "cancelled", ("draft", "sent"))


def _list_rfq_quotations(state: State, args: Args) -> dict[str, Any]:
    rfq = fetch(state, "rfqs", args["rfqId"])
    return page(quotations_of(state, rfq["id"]), args, lambda q: quotation_view(state, q))


RFQ_ID = "Id of the RFQ, e.g. RFQ-002."
VENDOR = record_id("vendor", "Id of the vendor, e.g. VEN-012.")

TOOLS: list[Tool] = [
    list_tool(
        "list_rfqs",
        "List requests for quotation, optionally by status or originating requisition.",
        "rfqs",
        {
            "status": choice(RFQ_STATUSES, "Only RFQs in this status."),
            "requisitionId": record_id("requisition", "Only RFQs raised from this requisition."),
        },
    ),
    define_tool(
        "get_rfq",
        "One RFQ with its lines, invited vendors and every quotation received (with validity).",
        by_id("rfq", "rfqId", RFQ_ID),
        _get_rfq,
        read_only=True,
    ),
    WRITES.tool(
        "create_rfq",
        "Create a standalone draft RFQ for products and quantities, optionally inviting vendors.",
        obj(
            {
                "actorId": actor(),
                "title": text("What is being sourced."),
                "lines": lines(
                    "Products and quantities to quote.",
                    {
                        "productId": record_id("product", "Product, e.g. PRD-012."),
                        "quantity": quantity("Units."),
                    },
                    ["productId", "quantity"],
                ),
                "vendorIds": id_list("vendor", "Vendors to invite.", min_items=0),
                "responseDueDate": day("Date quotations are due (default 7 days from today)."),
            },
            ["actorId", "title", "lines"],
        ),
        _create_rfq,
    ),
    WRITES.tool(
        "add_vendor_to_rfq",
        "Invite another active, unblocked vendor to a draft or sent RFQ.",
        acting_on("rfq", "rfqId", RFQ_ID, vendorId=VENDOR),
        _add_vendor_to_rfq,
    ),
    WRITES.tool(
        "remove_vendor_from_rfq",
        "Withdraw a vendor's invitation; refused once the vendor has quoted.",
        acting_on("rfq", "rfqId", RFQ_ID, vendorId=VENDOR),
        _remove_vendor_from_rfq,
    ),
    WRITES.tool(
        "send_rfq",
        "Send a draft RFQ to its invited vendors so they can quote.",
        acting_on("rfq", "rfqId", RFQ_ID),
        _send_rfq,
    ),
    WRITES.tool(
        "close_rfq",
        "Close a sent RFQ to further quotations without awarding it.",
        acting_on("rfq", "rfqId", RFQ_ID),
        _close_rfq,
    ),
    WRITES.tool(
        "cancel_rfq",
        "Cancel a draft or sent RFQ with a reason.",
        acting_on("rfq", "rfqId", RFQ_ID, reason=reason("Why it is cancelled.")),
        _cancel_rfq,
    ),
    define_tool(
        "list_rfq_quotations",
        "The quotations received on an RFQ, each with isValid and days until expiry.",
        listing({"rfqId": record_id("rfq", RFQ_ID)}, ["rfqId"]),
        _list_rfq_quotations,
        read_only=True,
    ),
]
