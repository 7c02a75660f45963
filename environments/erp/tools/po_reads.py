"""Purchase-order reads: listing, search, one PO in full, and the analyses buyers run.

Contract: every tool here is read-only. :func:`full_view` is a PO as tools show it: per-line
outstanding and uninvoiced units, lateness, its receipts, its invoices and any pending
approval. The analyses list open lines awaiting delivery, late POs, a PO's draw on its budget
and when its payment falls due under the vendor's terms.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo import Tool, define_tool
from silo.toolkit.guards import Args
from silo.toolkit.results import filtered, snapshot
from silo.toolkit.schema import choice

from ..domain import approvals, budgets
from ..domain.documents import due_date, is_late
from ..domain.money import round2
from .common import State, fetch, page
from .crud import list_tool, search_tool
from .po_rules import INVOICES_BY_PO, PO_ID, RECEIPTS_BY_PO
from .schema import PO_STATUSES, by_id, listing, record_id
from .views import po_view


def full_view(state: Mapping[str, Any], po: Mapping[str, Any]) -> dict[str, Any]:
    """A PO with its receipts, invoices and pending approval (see the module contract)."""
    return {
        **po_view(state, po),
        "goodsReceiptIds": [r["id"] for r in RECEIPTS_BY_PO.rows(state, po["id"])],
        "vendorInvoiceIds": [i["id"] for i in INVOICES_BY_PO.rows(state, po["id"])],
        "pendingApprovalId": (
            approvals.pending_approval(state, "purchase_order", po["id"]) or {}
        ).get("id"),
    }


def _list_open_purchase_order_lines(state: State, args: Args) -> dict[str, Any]:
    pos = filtered(state["purchaseOrders"].values(), args, ("vendorId", "warehouseId"))
    rows = [
        {"purchaseOrderId": po["id"], "vendorId": po["vendorId"], "warehouseId": po["warehouseId"],
         "expectedDeliveryDate": po["expectedDeliveryDate"], "isLate": view["isLate"], **line}
        for po in pos
        if po["status"] in ("sent", "partially_received")
        for view in (po_view(state, po),)
        for line in view["lines"]
        if line["outstandingQuantity"] > 0 and args.get("productId", line["productId"]) == line["productId"]
    ]  # fmt: skip
    return page(rows, args)


def _list_overdue_purchase_orders(state: State, args: Args) -> dict[str, Any]:
    rows = [
        po
        for po in filtered(state["purchaseOrders"].values(), args, ("vendorId",))
        if is_late(state, po)
    ]
    return page(rows, args, lambda po: po_view(state, po))


def _get_purchase_order_budget_impact(state: State, args: Args) -> dict[str, Any]:
    po = fetch(state, "purchaseOrders", args["purchaseOrderId"])
    budget = budgets.budget_of(state, po["budgetId"])
    still_needed = (
        0
        if po["status"] not in ("draft", "pending_approval")
        else round2(po["subtotal"] - po["committedAmount"])
    )
    return {
        "purchaseOrderId": po["id"],
        "subtotal": po["subtotal"],
        "committedAmount": po["committedAmount"],
        "toCommitOnApproval": still_needed,
        **budgets.availability(budget, still_needed),
    }


def _get_purchase_order_payment_due_date(state: State, args: Args) -> dict[str, Any]:
    po = fetch(state, "purchaseOrders", args["purchaseOrderId"])
    terms = state["vendors"][po["vendorId"]]["paymentTerms"]
    invoices = sorted(INVOICES_BY_PO.rows(state, po["id"]), key=lambda i: i["id"])
    receipts = sorted(RECEIPTS_BY_PO.rows(state, po["id"]), key=lambda r: r["receivedAt"])
    if invoices:
        basis, start = "invoice", invoices[-1]["invoiceDate"]
    elif receipts:
        basis, start = "receipt", receipts[-1]["receivedAt"]
    else:
        basis, start = "expected_delivery", po["expectedDeliveryDate"]
    return {
        "purchaseOrderId": po["id"],
        "paymentTerms": terms,
        "basis": basis,
        "basisDate": start[:10],
        "dueDate": due_date(start, terms),
        "invoiceDueDates": {i["id"]: i["dueDate"] for i in invoices},
    }


LOOKUPS: list[Tool] = [
    list_tool(
        "list_purchase_orders",
        "List purchase orders, optionally by status, vendor, budget or warehouse.",
        "purchaseOrders",
        {
            "status": choice(PO_STATUSES, "Only POs in this status."),
            "vendorId": record_id("vendor", "Only this vendor's POs."),
            "budgetId": record_id("budget", "Only POs drawing on this budget."),
            "warehouseId": record_id("warehouse", "Only POs delivering here."),
        },
        view=po_view,
    ),
    search_tool(
        "search_purchase_orders",
        "Find POs whose id, vendor id, notes, requisition, quotation or line products contain "
        "the query.",
        "purchaseOrders",
        lambda po: (
            po["id"],
            po["vendorId"],
            po["notes"],
            po["requisitionId"],
            po["quotationId"],
            *(line["productId"] for line in po["lines"]),
        ),  # fmt: skip
        view=po_view,
    ),
    define_tool(
        "get_purchase_order",
        "One PO with outstanding and uninvoiced units per line, its receipts, invoices and any "
        "pending approval.",
        by_id("purchase_order", "purchaseOrderId", PO_ID),
        lambda state, args: snapshot(
            full_view(state, fetch(state, "purchaseOrders", args["purchaseOrderId"]))
        ),
        read_only=True,
    ),
]

ANALYSES: list[Tool] = [
    define_tool(
        "list_open_purchase_order_lines",
        "Lines of sent or partly received POs still awaiting delivery, by vendor, warehouse or "
        "product.",
        listing(
            {
                "vendorId": record_id("vendor", "Only this vendor."),
                "warehouseId": record_id("warehouse", "Only deliveries to this warehouse."),
                "productId": record_id("product", "Only lines of this product."),
            }
        ),
        _list_open_purchase_order_lines,
        read_only=True,
    ),
    define_tool(
        "list_overdue_purchase_orders",
        "Sent or partly received POs whose expected delivery date has passed.",
        listing({"vendorId": record_id("vendor", "Only this vendor.")}),
        _list_overdue_purchase_orders,
        read_only=True,
    ),
    define_tool(
        "get_purchase_order_budget_impact",
        "How a PO draws on its budget: subtotal, what it already holds, what approval would "
        "commit and whether the headroom covers it.",
        by_id("purchase_order", "purchaseOrderId", PO_ID),
        _get_purchase_order_budget_impact,
        read_only=True,
    ),
    define_tool(
        "get_purchase_order_payment_due_date",
        "When payment for a PO falls due under the vendor's terms (from the latest invoice, "
        "else receipt, else expected delivery).",
        by_id("purchase_order", "purchaseOrderId", PO_ID),
        _get_purchase_order_payment_due_date,
        read_only=True,
    ),
]
