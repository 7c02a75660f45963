"""Receiving discrepancies: problems found with a goods-receipt line, and how they were settled.

Contract: a discrepancy is reported against a posted receipt's PO line (type, description;
expected units default to the ordered quantity and actual units to what was received) and
starts ``open``; resolving it sets ``resolved`` or ``waived`` with a resolution note, once.
Each mutation appends one audit row.
"""

from __future__ import annotations

from typing import Any

from silo import Tool
from silo.toolkit.guards import Args, non_blank
from silo.toolkit.results import snapshot
from silo.toolkit.schema import choice, obj

from ..domain.documents import line_of
from ..state import mint_id
from .common import WRITES, State, audit, fetch, require_status
from .crud import get_tool, list_tool
from .schema import (
    DISCREPANCY_STATUSES,
    DISCREPANCY_TYPES,
    acting_on,
    actor,
    line_id,
    quantity,
    reason,
    record_id,
)

GR_ID = "Id of the goods receipt, e.g. GR-003."
DISC_ID = "Id of the discrepancy, e.g. DISC-001."


def _report_receiving_discrepancy(state: State, args: Args) -> dict[str, Any]:
    receipt = fetch(state, "goodsReceipts", args["goodsReceiptId"])
    po = state["purchaseOrders"][receipt["purchaseOrderId"]]
    line = line_of(po, args["poLineId"])
    description = non_blank(args["description"], "description")
    discrepancy = {
        "id": mint_id(state, "DISC"),
        "goodsReceiptId": receipt["id"],
        "purchaseOrderId": po["id"],
        "poLineId": line["id"],
        "type": args["type"],
        "expectedQuantity": args.get("expectedQuantity", line["quantity"]),
        "actualQuantity": args.get("actualQuantity", line["receivedQuantity"]),
        "description": description,
        "status": "open",
        "reportedBy": args["actorId"],
        "reportedAt": state["now"],
        "resolution": None,
        "resolvedAt": None,
        "resolvedBy": None,
    }
    state["receivingDiscrepancies"][discrepancy["id"]] = discrepancy
    audit(state, args, "receiving_discrepancy.reported", discrepancy, {"type": args["type"]})
    return snapshot(discrepancy)


def _resolve_receiving_discrepancy(state: State, args: Args) -> dict[str, Any]:
    discrepancy = fetch(state, "receivingDiscrepancies", args["discrepancyId"])
    require_status(discrepancy, ("open",), "resolved")
    discrepancy["status"] = args["status"]
    discrepancy["resolution"] = non_blank(args["resolution"], "resolution")
    discrepancy["resolvedAt"] = state["now"]
    discrepancy["resolvedBy"] = args["actorId"]
    audit(state, args, f"receiving_discrepancy.{args['status']}", discrepancy,
          {"resolution": discrepancy["resolution"]})  # fmt: skip
    return snapshot(discrepancy)


TOOLS: list[Tool] = [
    WRITES.tool(
        "report_receiving_discrepancy",
        "Report a problem with a receipt line (short or over shipment, damage, wrong item).",
        obj(
            {
                "actorId": actor(),
                "goodsReceiptId": record_id("goods_receipt", GR_ID),
                "poLineId": line_id("The PO line concerned, e.g. PO-203-L1."),
                "type": choice(DISCREPANCY_TYPES, "Kind of problem."),
                "description": reason("What is wrong."),
                "expectedQuantity": quantity("Units expected (default: ordered).", minimum=0),
                "actualQuantity": quantity(
                    "Units actually delivered (default: received).", minimum=0
                ),
            },
            ["actorId", "goodsReceiptId", "poLineId", "type", "description"],
        ),
        _report_receiving_discrepancy,
    ),
    list_tool(
        "list_receiving_discrepancies",
        "List receiving discrepancies, optionally by status, purchase order or receipt.",
        "receivingDiscrepancies",
        {
            "status": choice(DISCREPANCY_STATUSES, "Only discrepancies in this status."),
            "purchaseOrderId": record_id("purchase_order", "Only this PO."),
            "goodsReceiptId": record_id("goods_receipt", "Only this receipt."),
        },
    ),
    get_tool(
        "get_receiving_discrepancy",
        "One receiving discrepancy.",
        "receivingDiscrepancies",
        "discrepancy",
        "discrepancyId",
        example="DISC-001",
    ),
    WRITES.tool(
        "resolve_receiving_discrepancy",
        "Close an open discrepancy as resolved or waived, with a resolution note.",
        acting_on(
            "discrepancy",
            "discrepancyId",
            DISC_ID,
            status=choice(("resolved", "waived"), "resolved or waived."),
            resolution=reason("How it was settled."),
        ),
        _resolve_receiving_discrepancy,
    ),
]
