"""Purchase-order tools: from draft through approval, sending, receipt and closure.

Contract: ``create_purchase_order`` makes a draft for an active, unblocked vendor from given
lines or by copying an accepted quotation; linking a requisition (given, or the quotation's
RFQ's) marks it ``converted``, takes over its budget commitment and defaults the budget.
Drafts alone are edited. Submitting creates a pending approval (approver named, or the actor
when authorised, else the smallest sufficient limit); approving needs the named approver, a
limit covering the PO total, and headroom for the subtotal not yet committed (the difference
is committed). Only approved POs are sent (their quantities become inbound). Cancelling is
refused once anything is received and releases the commitment; closing needs every received
unit invoiced and no open invoice. Each mutation appends one audit row.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo import Tool, ToolError
from silo.toolkit.guards import Args, apply_changes, changes, non_blank
from silo.toolkit.results import snapshot
from silo.toolkit.schema import day, obj

from ..domain import approvals, budgets
from ..domain.money import round2
from ..state import add_days, mint_id, today
from . import po_reads
from .common import WRITES, State, active_user, audit, fetch
from .lines import line_schema, product_lines, reprice
from .po_rules import PO_ID, open_invoices, po_in_status
from .rfq_rules import eligible_vendor
from .schema import acting_on, actor, long_text, reason, record_id

RECEIVING_DEFAULTS = {"receivedQuantity": 0, "rejectedQuantity": 0, "invoicedQuantity": 0}
UPDATABLE = ("lines", "warehouseId", "expectedDeliveryDate", "budgetId", "notes")


def _quoted_lines(state: State, args: Args) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The lines to order and the quotation they were copied from (None for given lines)."""
    if "quotationId" in args and "lines" in args:
        raise ToolError("invalid_input", "pass lines or a quotationId to copy them from, not both")
    if "quotationId" not in args:
        if "lines" not in args:
            raise ToolError("invalid_input", "pass lines or a quotationId to copy them from")
        return product_lines(state, args["lines"], extra=RECEIVING_DEFAULTS), None
    quotation = fetch(state, "quotations", args["quotationId"])
    if quotation["status"] != "accepted":
        raise ToolError(
            "invalid_state",
            f"{quotation['id']} is {quotation['status']}; accept_quotation before ordering from it",
        )
    if quotation["vendorId"] != args["vendorId"]:
        raise ToolError(
            "invalid_input",
            f"{quotation['id']} is from {quotation['vendorId']}, not {args['vendorId']}",
        )
    copied = [
        {k: line[k] for k in ("productId", "quantity", "unitPrice")} for line in quotation["lines"]
    ]
    return product_lines(state, copied, extra=RECEIVING_DEFAULTS), quotation


def _linked_requisition(
    state: State, args: Args, quotation: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    requisition_id = args.get("requisitionId")
    if requisition_id is None and quotation is not None:
        requisition_id = state["rfqs"][quotation["rfqId"]]["requisitionId"]
    if requisition_id is None:
        return None
    requisition = fetch(state, "requisitions", requisition_id)
    if requisition["status"] not in ("approved", "converted") or requisition["purchaseOrderId"]:
        raise ToolError(
            "invalid_state",
            f"{requisition['id']} is {requisition['status']}"
            + (
                f" and already ordered on {requisition['purchaseOrderId']}"
                if requisition["purchaseOrderId"]
                else ""
            )
            + "; only an approved requisition without a PO can be linked",
        )
    return requisition


def _create_purchase_order(state: State, args: Args) -> dict[str, Any]:
    vendor = eligible_vendor(state, args["vendorId"], "new purchase orders")
    lines, quotation = _quoted_lines(state, args)
    requisition = _linked_requisition(state, args, quotation)
    budget_id = args.get("budgetId") or (requisition or {}).get("budgetId")
    if budget_id is None:
        raise ToolError("invalid_input", "pass budgetId (or link an approved requisition)")
    budgets.budget_of(state, budget_id)
    warehouse = fetch(
        state, "warehouses", args.get("warehouseId", state["company"]["defaultWarehouseId"])
    )
    po = {
        "id": mint_id(state, "PO"),
        "vendorId": vendor["id"],
        "status": "draft",
        "requisitionId": requisition["id"] if requisition else None,
        "quotationId": quotation["id"] if quotation else None,
        "budgetId": budget_id,
        "warehouseId": warehouse["id"],
        "createdAt": state["now"],
        "createdBy": args["actorId"],
        "expectedDeliveryDate": args.get(
            "expectedDeliveryDate", add_days(today(state), int(vendor["leadTimeDays"]))
        ),
        "approvedAt": None,
        "approvedBy": None,
        "sentAt": None,
        "cancelledAt": None,
        "cancelReason": None,
        "committedAmount": 0,
        "notes": args.get("notes", ""),
        "lines": lines,
    }
    reprice(po, taxed=True)
    moved = 0.0
    if requisition is not None:
        moved = budgets.move_commitment(requisition, po)
        requisition["status"] = "converted"
        requisition["purchaseOrderId"] = po["id"]
    state["purchaseOrders"][po["id"]] = po
    audit(state, args, "purchase_order.created", po, {"requisitionId": po["requisitionId"],
        "quotationId": po["quotationId"], "commitmentTakenOver": moved})  # fmt: skip
    return snapshot(po_reads.full_view(state, po))


def _update_purchase_order(state: State, args: Args) -> dict[str, Any]:
    po = po_in_status(state, args, ("draft",), "edited")
    updates = changes(args, UPDATABLE)
    if "lines" in updates:
        updates["lines"] = product_lines(state, updates["lines"], extra=RECEIVING_DEFAULTS)
    if "warehouseId" in updates:
        fetch(state, "warehouses", updates["warehouseId"])
    if "budgetId" in updates:
        budgets.budget_of(state, updates["budgetId"])
        if po["committedAmount"]:
            raise ToolError(
                "invalid_state",
                f"{po['id']} holds {po['committedAmount']} on {po['budgetId']}; keep that budget",
            )
    diff = apply_changes(po, updates)
    reprice(po, taxed=True)
    audit(
        state, args, "purchase_order.updated", po, {k: v for k, v in diff.items() if k != "lines"}
    )
    return snapshot(po_reads.full_view(state, po))


def _submit_purchase_order_for_approval(state: State, args: Args) -> dict[str, Any]:
    po = po_in_status(state, args, ("draft",), "submitted")
    actor_user = state["users"][args["actorId"]]
    if "approverId" in args:
        approver = active_user(state, args["approverId"], "approver")
    elif approvals.authorised(actor_user, po["total"]):
        approver = actor_user
    else:
        candidates = approvals.qualified_approvers(state, po["total"])
        if not candidates:
            raise ToolError("limit_exceeded", f"no active user may approve {po['total']}")
        approver = state["users"][candidates[0]]
    approval = approvals.request_approval(
        state, "purchase_order", po["id"], approver["id"], po["total"], args["actorId"]
    )
    po["status"] = "pending_approval"
    audit(state, args, "purchase_order.submitted", po, {"approvalId": approval["id"]})
    return {
        **snapshot(po_reads.full_view(state, po)),
        "approvalId": approval["id"],
        "approverId": approver["id"],
    }


def _settle_commitment(state: State, po: dict[str, Any]) -> None:
    """Make the PO hold exactly its subtotal: commit what is missing, release any excess."""
    delta = round2(po["subtotal"] - po["committedAmount"])
    if delta >= 0:
        budgets.commit(state, po, delta)
    else:
        budgets.release_amount(budgets.budget_of(state, po["budgetId"]), -delta)
        po["committedAmount"] = po["subtotal"]


def _decide(state: State, args: Args, approve: bool) -> dict[str, Any]:
    po = po_in_status(state, args, ("pending_approval",), "decided")
    decider = state["users"][args["actorId"]]
    approval = approvals.pending_approval(state, "purchase_order", po["id"])
    if approval is None:
        raise ToolError(
            "invalid_state", f"{po['id']} has no pending approval; cancel and recreate it"
        )
    note = args.get("note", "") if approve else non_blank(args["reason"], "reason")
    approvals.check_decidable(state, approval, decider, approve)
    if approve:
        _settle_commitment(state, po)
    else:
        budgets.release(state, po)
    approvals.decide(state, approval, decider, approve=approve, note=note)
    po["status"] = "approved" if approve else "rejected"
    if approve:
        po["approvedAt"] = state["now"]
        po["approvedBy"] = decider["id"]
    audit(state, args, f"purchase_order.{po['status']}", po, {"approvalId": approval["id"],
        "committedAmount": po["committedAmount"]})  # fmt: skip
    return snapshot(po_reads.full_view(state, po))


def _approve_purchase_order(state: State, args: Args) -> dict[str, Any]:
    return _decide(state, args, True)


def _reject_purchase_order(state: State, args: Args) -> dict[str, Any]:
    return _decide(state, args, False)


def _send_purchase_order(state: State, args: Args) -> dict[str, Any]:
    po = po_in_status(state, args, ("approved",), "sent")
    eligible_vendor(state, po["vendorId"], "purchase orders")
    po["status"] = "sent"
    po["sentAt"] = state["now"]
    audit(state, args, "purchase_order.sent", po)
    return snapshot(po_reads.full_view(state, po))


def _cancel_purchase_order(state: State, args: Args) -> dict[str, Any]:
    allowed = ("draft", "pending_approval", "approved", "sent")
    po = po_in_status(state, args, allowed, "cancelled")
    if any(line["receivedQuantity"] + line["rejectedQuantity"] for line in po["lines"]):
        raise ToolError("invalid_state", f"{po['id']} has received goods and cannot be cancelled")
    text_reason = non_blank(args["reason"], "reason")
    released = budgets.release(state, po)
    cancelled = approvals.cancel_pending(
        state, "purchase_order", po["id"], args["actorId"], f"PO cancelled: {text_reason}"
    )
    po["status"] = "cancelled"
    po["cancelledAt"] = state["now"]
    po["cancelReason"] = text_reason
    audit(state, args, "purchase_order.cancelled", po, {"reason": text_reason,
        "released": released, "approvalCancelled": cancelled})  # fmt: skip
    return snapshot(po_reads.full_view(state, po))


def _close_purchase_order(state: State, args: Args) -> dict[str, Any]:
    po = po_in_status(state, args, ("received", "partially_received"), "closed")
    short = [
        line["id"] for line in po["lines"] if line["invoicedQuantity"] < line["receivedQuantity"]
    ]
    still_open = [invoice["id"] for invoice in open_invoices(state, po["id"])]
    if short or still_open:
        raise ToolError(
            "invalid_state",
            f"{po['id']} cannot close: "
            + "; ".join(
                part
                for part in (
                    f"lines {', '.join(short)} not fully invoiced" if short else "",
                    f"invoices {', '.join(still_open)} still open" if still_open else "",
                )
                if part
            ),
            {"uninvoicedLines": short, "openInvoices": still_open},
        )
    released = budgets.release(state, po)
    po["status"] = "closed"
    audit(state, args, "purchase_order.closed", po, {"released": released})
    return snapshot(po_reads.full_view(state, po))


PO = record_id("purchase_order", PO_ID)
ORDER_FIELDS = {
    "warehouseId": record_id("warehouse", "Delivery warehouse (default WH-001)."),
    "budgetId": record_id("budget", "Budget to draw on (default: the requisition's)."),
    "expectedDeliveryDate": day("Expected delivery date (default: today + vendor lead time)."),
    "notes": long_text("Free-text notes."),
}

TOOLS: list[Tool] = [
    *po_reads.LOOKUPS,
    WRITES.tool(
        "create_purchase_order",
        "Create a draft PO for an active, unblocked vendor, from lines or by copying an "
        "accepted quotation. Linking an approved requisition marks it converted and takes over "
        "its budget commitment.",
        obj(
            {
                "actorId": actor(),
                "vendorId": record_id("vendor", "Vendor to order from, e.g. VEN-012."),
                "lines": line_schema(
                    "Products, quantities and unit prices.", "default standard cost"
                ),
                "quotationId": record_id("quotation", "Accepted quotation to copy lines from."),
                "requisitionId": record_id("requisition", "Approved requisition this PO fulfils."),
                **ORDER_FIELDS,
            },
            ["actorId", "vendorId"],
        ),
        _create_purchase_order,
    ),
    WRITES.tool(
        "update_purchase_order",
        "Change a draft PO's lines (replaced whole), warehouse, budget, expected date or notes.",
        obj(
            {
                "actorId": actor(),
                "purchaseOrderId": PO,
                "lines": line_schema("Replacement lines.", "default standard cost"),
                **ORDER_FIELDS,
            },
            ["actorId", "purchaseOrderId"],
        ),  # fmt: skip
        _update_purchase_order,
    ),
    WRITES.tool(
        "submit_purchase_order_for_approval",
        "Send a draft PO for approval. The approver defaults to the actor when their limit "
        "covers the total, else the user with the smallest sufficient limit.",
        obj(
            {
                "actorId": actor(),
                "purchaseOrderId": PO,
                "approverId": record_id("user", "Who should approve it."),
            },
            ["actorId", "purchaseOrderId"],
        ),  # fmt: skip
        _submit_purchase_order_for_approval,
    ),
    WRITES.tool(
        "approve_purchase_order",
        "Approve a pending PO as its named approver: the limit must cover the total and the "
        "budget's headroom the subtotal not yet committed, which is committed.",
        obj(
            {
                "actorId": actor("The PO's named approver."),
                "purchaseOrderId": PO,
                "note": long_text("Optional note kept on the approval."),
            },
            ["actorId", "purchaseOrderId"],
        ),  # fmt: skip
        _approve_purchase_order,
    ),
    WRITES.tool(
        "reject_purchase_order",
        "Reject a pending PO as its named approver, with a reason; any commitment is released.",
        acting_on("purchase_order", "purchaseOrderId", PO_ID, reason=reason("Why it is rejected.")),
        _reject_purchase_order,
    ),
    WRITES.tool(
        "send_purchase_order",
        "Send an approved PO to the vendor; its quantities become inbound stock.",
        acting_on("purchase_order", "purchaseOrderId", PO_ID),
        _send_purchase_order,
    ),
    WRITES.tool(
        "cancel_purchase_order",
        "Cancel a PO before anything is received: releases its budget commitment and cancels a "
        "pending approval.",
        acting_on(
            "purchase_order", "purchaseOrderId", PO_ID, reason=reason("Why, e.g. duplicate.")
        ),
        _cancel_purchase_order,
    ),
    WRITES.tool(
        "close_purchase_order",
        "Close a received PO once every received unit is invoiced and no invoice is open; any "
        "remaining commitment is released.",
        acting_on("purchase_order", "purchaseOrderId", PO_ID),
        _close_purchase_order,
    ),
    *po_reads.ANALYSES,
]
