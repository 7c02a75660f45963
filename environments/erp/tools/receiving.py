"""Receiving tools: goods receipts against purchase orders, their reversal, and discrepancies.

Contract: ``receive_goods`` posts a receipt on a sent or partly received PO (lines omitted =
everything outstanding); receiving more than is outstanding is refused; accepted units go into
stock at the receipt's warehouse through the single stock write path, rejected units count as
delivered but not stocked, and the PO's status is recomputed. ``cancel_goods_receipt``
reverses the stock and the PO's received figures, refused when the units were already
invoiced or have since left stock. Discrepancies (reported against a receipt line, then
resolved or waived) live in :mod:`.discrepancies`; ``list_pending_deliveries`` lists what is
still due. Each mutation appends one audit row.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo import Tool, ToolError, define_tool
from silo.toolkit.guards import Args, non_blank
from silo.toolkit.results import snapshot, sorted_by_id
from silo.toolkit.schema import choice, obj

from ..domain import stock
from ..domain.documents import is_late, line_of, recompute_po_status
from ..domain.stock import StockChange
from ..state import mint_id
from . import discrepancies
from .common import WRITES, State, audit, fetch, page, require_status
from .crud import get_tool, list_tool
from .po_rules import DISCREPANCIES_BY_RECEIPT, RECEIPTS_BY_PO, po_in_status
from .schema import (
    RECEIPT_STATUSES,
    acting_on,
    actor,
    line_id,
    lines,
    listing,
    long_text,
    quantity,
    reason,
    record_id,
)


def _outstanding(line: Mapping[str, Any]) -> int:
    return int(line["quantity"]) - int(line["receivedQuantity"]) - int(line["rejectedQuantity"])


def _receipt_view(state: Mapping[str, Any], receipt: Mapping[str, Any]) -> dict[str, Any]:
    return {
        **receipt,
        "discrepancies": sorted_by_id(DISCREPANCIES_BY_RECEIPT.rows(state, receipt["id"])),
    }


def _planned_lines(po: Mapping[str, Any], args: Args) -> list[tuple[dict[str, Any], int, int]]:
    """(PO line, accepted, rejected) per line to receive; refuses over-receipt and no-ops."""
    if "lines" not in args:
        plan = [(line, _outstanding(line), 0) for line in po["lines"] if _outstanding(line) > 0]
    else:
        plan = []
        seen: set[str] = set()
        for item in args["lines"]:
            line = line_of(po, item["poLineId"])
            if line["id"] in seen:
                raise ToolError("invalid_input", f"{line['id']} is listed twice; use one entry")
            seen.add(line["id"])
            accepted, rejected = (
                int(item.get("quantityReceived", 0)),
                int(item.get("quantityRejected", 0)),
            )
            if accepted + rejected > _outstanding(line):
                raise ToolError(
                    "invalid_input",
                    f"{line['id']} has {_outstanding(line)} units outstanding; receiving "
                    f"{accepted + rejected} would over-receive",
                    {"lineId": line["id"], "outstanding": _outstanding(line)},
                )
            if accepted + rejected:
                plan.append((line, accepted, rejected))
    if not plan:
        raise ToolError(
            "invalid_input",
            f"nothing to receive on {po['id']}: "
            + ("the lines given carry no units" if "lines" in args else "every unit is delivered"),
        )
    return plan


def _receive_goods(state: State, args: Args) -> dict[str, Any]:
    po = po_in_status(state, args, ("sent", "partially_received"), "received against")
    warehouse = fetch(state, "warehouses", args.get("warehouseId", po["warehouseId"]))
    if warehouse["status"] != "active":
        raise ToolError(
            "invalid_state", f"{warehouse['id']} is {warehouse['status']}; receive elsewhere"
        )
    plan = _planned_lines(po, args)
    receipt_id = f"GR-{int(state['sequences'].get('GR', 1)) + 1:03d}"
    changes = [StockChange(line["productId"], warehouse["id"], on_hand=accepted, kind="receipt")
               for line, accepted, _ in plan if accepted]  # fmt: skip
    stock.apply_stock_changes(
        state,
        changes,
        actor_id=args["actorId"],
        reference_type="goods_receipt",
        reference_id=receipt_id,
    )
    mint_id(state, "GR")
    for line, accepted, rejected in plan:
        line["receivedQuantity"] += accepted
        line["rejectedQuantity"] += rejected
    receipt = {
        "id": receipt_id,
        "purchaseOrderId": po["id"],
        "warehouseId": warehouse["id"],
        "receivedAt": state["now"],
        "receivedBy": args["actorId"],
        "status": "posted",
        "lines": [
            {
                "id": f"{receipt_id}-L{n}",
                "poLineId": line["id"],
                "productId": line["productId"],
                "quantityReceived": accepted,
                "quantityRejected": rejected,
            }
            for n, (line, accepted, rejected) in enumerate(plan, 1)
        ],  # fmt: skip
        "notes": args.get("notes", ""),
    }
    state["goodsReceipts"][receipt_id] = receipt
    status = recompute_po_status(po)
    audit(
        state,
        args,
        "goods_receipt.posted",
        receipt,
        {"purchaseOrderId": po["id"], "poStatus": status},
    )
    return {**snapshot(receipt), "purchaseOrderStatus": status}


def _cancel_goods_receipt(state: State, args: Args) -> dict[str, Any]:
    receipt = fetch(state, "goodsReceipts", args["goodsReceiptId"])
    require_status(receipt, ("posted",), "cancelled")
    po = state["purchaseOrders"][receipt["purchaseOrderId"]]
    for item in receipt["lines"]:
        line = line_of(po, item["poLineId"])
        if line["receivedQuantity"] - item["quantityReceived"] < line["invoicedQuantity"]:
            raise ToolError(
                "invalid_state",
                f"{line['id']} is invoiced for {line['invoicedQuantity']} units; cancel or correct "
                "the invoice before reversing this receipt",
            )
    text_reason = non_blank(args["reason"], "reason")
    changes = [StockChange(item["productId"], receipt["warehouseId"], on_hand=-item["quantityReceived"],
                           kind="receipt_reversal") for item in receipt["lines"] if item["quantityReceived"]]  # fmt: skip
    stock.apply_stock_changes(
        state, changes, actor_id=args["actorId"], reference_type="goods_receipt",
        reference_id=receipt["id"], reason=text_reason,
    )  # fmt: skip
    for item in receipt["lines"]:
        line = line_of(po, item["poLineId"])
        line["receivedQuantity"] -= item["quantityReceived"]
        line["rejectedQuantity"] -= item["quantityRejected"]
    receipt["status"] = "cancelled"
    status = recompute_po_status(po)
    audit(
        state, args, "goods_receipt.cancelled", receipt, {"reason": text_reason, "poStatus": status}
    )
    return {**snapshot(receipt), "purchaseOrderStatus": status}


def _list_receipts_for_purchase_order(state: State, args: Args) -> dict[str, Any]:
    po = fetch(state, "purchaseOrders", args["purchaseOrderId"])
    rows = sorted_by_id(RECEIPTS_BY_PO.rows(state, po["id"]))
    return page(rows, args, lambda row: _receipt_view(state, row))


def _list_pending_deliveries(state: State, args: Args) -> dict[str, Any]:
    rows = []
    for po in sorted_by_id(state["purchaseOrders"].values()):
        if po["status"] not in ("sent", "partially_received"):
            continue
        if args.get("warehouseId", po["warehouseId"]) != po["warehouseId"]:
            continue
        due = [{"lineId": line["id"], "productId": line["productId"], "outstanding": _outstanding(line)}
               for line in po["lines"] if _outstanding(line) > 0]  # fmt: skip
        rows.append({"purchaseOrderId": po["id"], "vendorId": po["vendorId"], "warehouseId": po["warehouseId"],
                     "expectedDeliveryDate": po["expectedDeliveryDate"], "isLate": is_late(state, po), "lines": due})  # fmt: skip
    return page(rows, args)


GR_ID = "Id of the goods receipt, e.g. GR-003."

TOOLS: list[Tool] = [
    list_tool(
        "list_goods_receipts",
        "List goods receipts, optionally by purchase order, warehouse or status.",
        "goodsReceipts",
        {
            "purchaseOrderId": record_id("purchase_order", "Only receipts for this PO."),
            "warehouseId": record_id("warehouse", "Only receipts at this warehouse."),
            "status": choice(RECEIPT_STATUSES, "posted or cancelled."),
        },
    ),
    get_tool(
        "get_goods_receipt",
        "One goods receipt with its lines and any discrepancies reported on it.",
        "goodsReceipts",
        "goods_receipt",
        "goodsReceiptId",
        view=_receipt_view,
        example="GR-003",
    ),
    define_tool(
        "list_receipts_for_purchase_order",
        "Every goods receipt posted (or cancelled) against a purchase order.",
        listing(
            {"purchaseOrderId": record_id("purchase_order", "Id of the PO, e.g. PO-202.")},
            ["purchaseOrderId"],
        ),  # fmt: skip
        _list_receipts_for_purchase_order,
        read_only=True,
    ),
    WRITES.tool(
        "receive_goods",
        "Post a goods receipt on a sent or partly received PO. Omit lines to receive everything "
        "outstanding. Accepted units go into stock; over-receipt is refused.",
        obj(
            {
                "actorId": actor(),
                "purchaseOrderId": record_id("purchase_order", "Id of the PO, e.g. PO-202."),
                "warehouseId": record_id("warehouse", "Receiving warehouse (default: the PO's)."),
                "lines": lines(
                    "Per PO line: units accepted and units rejected.",
                    {
                        "poLineId": line_id("PO line, e.g. PO-202-L1."),
                        "quantityReceived": quantity("Units accepted into stock.", minimum=0),
                        "quantityRejected": quantity("Units refused at the dock.", minimum=0),
                    },
                    ["poLineId"],
                ),
                "notes": long_text("Free-text notes."),
            },
            ["actorId", "purchaseOrderId"],
        ),
        _receive_goods,
    ),
    WRITES.tool(
        "cancel_goods_receipt",
        "Reverse a posted receipt: stock and the PO's received units go back. Refused when the "
        "units are already invoiced.",
        acting_on("goods_receipt", "goodsReceiptId", GR_ID, reason=reason("Why it is reversed.")),
        _cancel_goods_receipt,
    ),
    *discrepancies.TOOLS,
    define_tool(
        "list_pending_deliveries",
        "Sent or partly received POs with the units each line still awaits, and lateness.",
        listing({"warehouseId": record_id("warehouse", "Only deliveries to this warehouse.")}),
        _list_pending_deliveries,
        read_only=True,
    ),
]
