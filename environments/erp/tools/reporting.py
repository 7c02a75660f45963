"""Reporting tools: spend, payables aging, stock value, sales, cash and one health check.

Contract: every tool here is read-only and derives its figures from the current world at call
time through the same rules the other tools use (overdue and aging from :mod:`.finance`,
headroom from the budget rules, reorder points and stock from the stock rules, late POs from
the document rules). Nothing derived is stored. Money is rounded to cents.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from silo import Tool, define_tool
from silo.toolkit.guards import Args
from silo.toolkit.results import sorted_by_id
from silo.toolkit.schema import choice, day, integer, no_input, obj

from ..domain import approvals, budgets, stock
from ..domain.documents import CLOSED_INVOICE_STATUSES, is_late, is_overdue, outstanding
from ..domain.money import round2
from ..state import add_days, today
from . import finance, payables
from .common import State, name_of

Row = Mapping[str, Any]

COMMITTED_PO = ("approved", "sent", "partially_received", "received", "closed")
BOOKED_SO = ("confirmed", "partially_fulfilled", "fulfilled", "invoiced", "closed")
BLOCKED_INVOICE = ("pending_match", "exception", "disputed")


def _in_window(value: str | None, args: Args) -> bool:
    day_of = str(value or "")[:10]
    return str(args.get("fromDate", "")) <= day_of <= str(args.get("toDate", "9999-12-31"))


def _group_totals(rows: Iterable[Row], key: Callable[[Row], str], value: str) -> dict[str, float]:
    totals: dict[str, float] = {}
    for row in rows:
        totals[key(row)] = round2(totals.get(key(row), 0.0) + float(row[value]))
    return dict(sorted(totals.items()))


def _spend(state: State, args: Args) -> dict[str, Any]:
    pos = [
        po
        for po in sorted_by_id(state["purchaseOrders"].values())
        if po["status"] in COMMITTED_PO and _in_window(po["createdAt"], args)
    ]
    group = args.get("groupBy", "vendor")
    keys = {"vendor": "vendorId", "budget": "budgetId", "warehouse": "warehouseId"}
    by_group = _group_totals(pos, lambda po: str(po[keys[group]]), "subtotal")
    invoices = [
        inv
        for inv in state["vendorInvoices"].values()
        if inv["status"] not in ("cancelled", "rejected") and _in_window(inv["invoiceDate"], args)
    ]
    return {
        "asOf": today(state),
        "groupBy": group,
        "orderCount": len(pos),
        "orderedSubtotal": round2(sum(float(po["subtotal"]) for po in pos)),
        "groups": [{"key": key, "orderedSubtotal": total} for key, total in by_group.items()],
        "invoicedTotal": finance.total_of(invoices),
        "paidTotal": round2(sum(float(inv["amountPaid"]) for inv in invoices)),
    }


def _ap_aging(state: State, args: Args) -> dict[str, Any]:
    open_invoices = [
        inv
        for inv in state["vendorInvoices"].values()
        if inv["status"] not in CLOSED_INVOICE_STATUSES and outstanding(inv) > 0
    ]
    return finance.aging_report(state, open_invoices, "vendorId", "vendors")


def _valuation(state: State, args: Args) -> dict[str, Any]:
    group = args.get("groupBy", "warehouse")
    totals: dict[str, dict[str, Any]] = {}
    for record in state["inventory"].values():
        product = state["products"][record["productId"]]
        key = record["warehouseId"] if group == "warehouse" else product["category"]
        row = totals.setdefault(key, {"units": 0, "value": 0.0})
        row["units"] += int(record["onHand"])
        row["value"] = round2(row["value"] + int(record["onHand"]) * float(product["standardCost"]))
    rows = [{"key": key, **row} for key, row in sorted(totals.items())]
    return {
        "asOf": today(state),
        "groupBy": group,
        "basis": "standardCost",
        "rows": rows,
        "totalValue": round2(sum(float(row["value"]) for row in rows)),
    }


def _sales(state: State, args: Args) -> dict[str, Any]:
    orders = [so for so in state["salesOrders"].values() if _in_window(so["orderDate"], args)]
    booked = [so for so in orders if so["status"] in BOOKED_SO]
    invoices = [
        inv
        for inv in state["customerInvoices"].values()
        if inv["status"] not in ("draft", "cancelled") and _in_window(inv["issueDate"], args)
    ]
    by_customer = _group_totals(booked, lambda so: str(so["customerId"]), "subtotal")
    top = sorted(by_customer.items(), key=lambda item: (-item[1], item[0]))[:5]
    counts: dict[str, int] = {}
    for so in orders:
        counts[so["status"]] = counts.get(so["status"], 0) + 1
    return {
        "asOf": today(state),
        "ordersByStatus": dict(sorted(counts.items())),
        "bookedSubtotal": round2(sum(float(so["subtotal"]) for so in booked)),
        "invoicedTotal": finance.total_of(invoices),
        "collected": round2(sum(float(inv["amountPaid"]) for inv in invoices)),
        "topCustomers": [
            {"customerId": key, "name": name_of(state, "customers", key), "bookedSubtotal": value}
            for key, value in top
        ],
    }


def _completed_since(state: State, direction: str, since: str) -> float:
    return round2(
        sum(
            float(p["amount"])
            for p in state["payments"].values()
            if p["direction"] == direction
            and p["status"] == "completed"
            and str(p["completedAt"])[:10] >= since
        )
    )


def _open_total(invoices: Iterable[Row], horizon: str | None = None) -> float:
    return round2(
        sum(
            outstanding(inv)
            for inv in invoices
            if inv["status"] not in CLOSED_INVOICE_STATUSES
            and (horizon is None or str(inv.get("dueDate") or "9999") <= horizon)
        )
    )


def _cash(state: State, args: Args) -> dict[str, Any]:
    days = int(args.get("horizonDays", 30))
    horizon = add_days(today(state), days)
    payables_due = [
        inv
        for inv in state["vendorInvoices"].values()
        if inv["status"] in ("approved", "partially_paid")
    ]
    receivable = state["customerInvoices"].values()
    since = add_days(today(state), -30)
    return {
        "asOf": today(state),
        "horizonDays": days,
        "receivablesOutstanding": _open_total(receivable),
        "receivablesDueByHorizon": _open_total(receivable, horizon),
        "payablesApprovedOutstanding": _open_total(payables_due),
        "payablesDueByHorizon": _open_total(payables_due, horizon),
        "paymentsInFlight": round2(
            sum(
                float(p["amount"])
                for p in state["payments"].values()
                if p["status"] in finance.IN_FLIGHT
            )
        ),
        "collectedLast30Days": _completed_since(state, "inbound", since),
        "paidLast30Days": _completed_since(state, "outbound", since),
        "netDueByHorizon": round2(
            _open_total(receivable, horizon) - _open_total(payables_due, horizon)
        ),
    }


def _dashboard(state: State, args: Args) -> dict[str, Any]:
    low = [
        rec["id"]
        for rec in sorted_by_id(state["inventory"].values())
        if rec["onHand"] < stock.reorder_point(state, rec)
    ]
    return {
        "asOf": today(state),
        "blockedVendorInvoices": [
            inv["id"]
            for inv in sorted_by_id(state["vendorInvoices"].values())
            if inv["status"] in BLOCKED_INVOICE
        ],
        "failedMatches": [
            inv["id"]
            for inv in sorted_by_id(state["vendorInvoices"].values())
            if (payables.current_match(state, inv) or {}).get("status") == "failed"
        ],
        "overdueVendorInvoices": [
            inv["id"]
            for inv in sorted_by_id(state["vendorInvoices"].values())
            if is_overdue(state, inv)
        ],
        "overdueCustomerInvoices": [
            inv["id"]
            for inv in sorted_by_id(state["customerInvoices"].values())
            if is_overdue(state, inv)
        ],
        "openReceivingDiscrepancies": [
            d["id"]
            for d in sorted_by_id(state["receivingDiscrepancies"].values())
            if d["status"] == "open"
        ],
        "lowStock": low,
        "latePurchaseOrders": [
            po["id"] for po in sorted_by_id(state["purchaseOrders"].values()) if is_late(state, po)
        ],
        "unshippedSalesOrders": [
            so["id"]
            for so in sorted_by_id(state["salesOrders"].values())
            if so["status"] in ("confirmed", "partially_fulfilled")
        ],
        "pendingApprovals": [
            a["id"] for a in sorted_by_id(state["approvals"].values()) if a["status"] == "pending"
        ],
        "exhaustedBudgets": [
            b["id"]
            for b in sorted_by_id(state["budgets"].values())
            if b["status"] == "active" and budgets.headroom(b) <= 0
        ],
        "decidingTools": dict(approvals.DECIDING_TOOL),
    }


_WINDOW = {
    "fromDate": day("Only documents dated on or after this day."),
    "toDate": day("Only documents dated on or before this day."),
}

TOOLS: list[Tool] = [
    define_tool(
        "get_procurement_spend_summary",
        "Ordered spend on approved-or-later purchase orders (subtotals, before tax) grouped by "
        "vendor, budget or warehouse, with invoiced and paid totals. Optional date window.",
        obj(
            {
                **_WINDOW,
                "groupBy": choice(
                    ("vendor", "budget", "warehouse"), "How to group spend (default vendor)."
                ),
            }
        ),
        _spend,
        read_only=True,
    ),
    define_tool(
        "get_ap_aging",
        "Accounts-payable aging: open vendor balances by days past due (current, 1-30, 31-60, "
        "61-90, 90+), per vendor and in total.",
        no_input(),
        _ap_aging,
        read_only=True,
    ),
    define_tool(
        "get_inventory_valuation",
        "On-hand stock valued at standard cost, by warehouse or by product category.",
        obj({"groupBy": choice(("warehouse", "category"), "Grouping (default warehouse).")}),
        _valuation,
        read_only=True,
    ),
    define_tool(
        "get_sales_summary",
        "Sales orders by status, booked value, invoiced and collected totals and the top "
        "customers. Optional date window.",
        obj(dict(_WINDOW)),
        _sales,
        read_only=True,
    ),
    define_tool(
        "get_cash_position",
        "Receivables and approved payables outstanding and due within a horizon, payments in "
        "flight, and cash collected and paid over the last 30 days.",
        obj({"horizonDays": integer("Days ahead to look (default 30).", 1, 365, 30)}),
        _cash,
        read_only=True,
    ),
    define_tool(
        "get_operations_dashboard",
        "One-call health check: blocked and overdue invoices, failed matches, open receiving "
        "discrepancies, low stock, late POs, unshipped orders, pending approvals and exhausted "
        "budgets (ids of each).",
        no_input(),
        _dashboard,
        read_only=True,
    ),
]

__all__ = ["TOOLS"]
