"""Receivables: what customers owe, how late it is, and what shipped without a bill.

Contract: read-only. :func:`customer_invoice_view` is how every tool shows a customer invoice
(customer name, outstanding, overdue, days overdue, payments). :func:`billed_units` and
:func:`unbilled` say how much of a sales-order line live invoices (not cancelled) already
bill. The tools list overdue invoices (``minimumAmount`` on the invoice total), balances by
customer (largest overdue first), aging buckets (current/1-30/31-60/61-90/90+, through
:func:`finance.aging_report`) and shipped-but-unbilled order lines.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, define_tool
from silo.toolkit.guards import Args
from silo.toolkit.results import snapshot, sorted_by_id
from silo.toolkit.schema import obj

from ..domain.documents import is_overdue, outstanding
from ..domain.money import round2
from ..state import today
from . import finance, parties
from .common import State, name_of, page
from .sales_orders import INVOICES_BY_ORDER
from .schema import listing, money, record_id

OPEN = ("issued", "partially_paid")


def customer_invoice_view(state: Any, invoice: Any) -> dict[str, Any]:
    """A customer invoice with customer name, balance, lateness and payments."""
    return {
        **invoice,
        "customerName": name_of(state, "customers", invoice["customerId"]),
        **finance.money_figures(state, invoice),
    }


def shown(state: Any, invoice: Any) -> dict[str, Any]:
    """A detached copy of the view, for tools that return the invoice they changed."""
    return snapshot(customer_invoice_view(state, invoice))


def billed_units(state: Any, so_id: str, so_line_id: str) -> int:
    """Units of a sales-order line billed on invoices that are not cancelled."""
    return sum(
        int(line["quantity"])
        for invoice in INVOICES_BY_ORDER.rows(state, so_id)
        if invoice["status"] != "cancelled"
        for line in invoice["lines"]
        if line["soLineId"] == so_line_id
    )


def unbilled(state: Any, so: Any, line: Any) -> int:
    """Shipped units of a sales-order line that no live invoice bills yet."""
    return max(0, int(line["fulfilledQuantity"]) - billed_units(state, so["id"], line["id"]))


def _overdue(state: State, args: Args) -> dict[str, Any]:
    floor = float(args.get("minimumAmount", 0))
    rows = [
        inv
        for inv in sorted_by_id(state["customerInvoices"].values())
        if is_overdue(state, inv)
        and float(inv["total"]) >= floor
        and args.get("customerId", inv["customerId"]) == inv["customerId"]
    ]
    result = page(rows, args, lambda inv: customer_invoice_view(state, inv))
    return {
        "asOf": today(state),
        "totalOverdue": round2(sum(outstanding(i) for i in rows)),
        **result,
    }


def _receivables(state: State, args: Args) -> dict[str, Any]:
    rows = []
    for customer in sorted_by_id(state["customers"].values()):
        balance = parties.balance(state, parties.CUSTOMER, customer["id"])
        if not balance["openInvoices"]:
            continue
        rows.append(
            {
                "customerId": customer["id"],
                "customerName": customer["name"],
                "status": customer["status"],
                "outstanding": balance["outstanding"],
                "overdue": balance["overdue"],
                "openInvoiceCount": len(balance["openInvoices"]),
                "creditLimit": customer["creditLimit"],
                "creditAvailable": round2(float(customer["creditLimit"]) - balance["outstanding"]),
            }
        )
    rows.sort(key=lambda row: (-row["overdue"], -row["outstanding"], row["customerId"]))
    return {"asOf": today(state), **page(rows, args)}


def _aging(state: State, args: Args) -> dict[str, Any]:
    open_invoices = [
        invoice
        for invoice in state["customerInvoices"].values()
        if invoice["status"] in OPEN
        and outstanding(invoice) > 0
        and args.get("customerId", invoice["customerId"]) == invoice["customerId"]
    ]
    return finance.aging_report(state, open_invoices, "customerId", "customers")


def _uninvoiced(state: State, args: Args) -> dict[str, Any]:
    rows = []
    for so in sorted_by_id(state["salesOrders"].values()):
        if so["status"] == "cancelled":
            continue
        open_lines = [
            {
                "lineId": line["id"],
                "productId": line["productId"],
                "shipped": line["fulfilledQuantity"],
                "unbilled": unbilled(state, so, line),
                "value": round2(unbilled(state, so, line) * float(line["unitPrice"])),
            }
            for line in so["lines"]
            if unbilled(state, so, line) > 0
        ]
        if open_lines:
            rows.append(
                {
                    "salesOrderId": so["id"],
                    "customerId": so["customerId"],
                    "status": so["status"],
                    "lines": open_lines,
                    "unbilledValue": round2(sum(line["value"] for line in open_lines)),
                }
            )
    return page(rows, args)


_CUSTOMER = record_id("customer", "Only this customer.")

TOOLS: list[Tool] = [
    define_tool(
        "list_overdue_customer_invoices",
        "Customer invoices past due with money owed. minimumAmount keeps only invoices whose "
        "total is at least that much.",
        listing(
            {"minimumAmount": money("Smallest invoice total to include."), "customerId": _CUSTOMER}
        ),
        _overdue,
        read_only=True,
    ),
    define_tool(
        "list_receivables_by_customer",
        "Per customer with open invoices: outstanding, overdue, credit limit and credit left; "
        "largest overdue balance first.",
        listing({}),
        _receivables,
        read_only=True,
    ),
    define_tool(
        "get_ar_aging",
        "Accounts-receivable aging: open customer balances by days past due (current, 1-30, "
        "31-60, 61-90, 90+), per customer and in total.",
        obj({"customerId": _CUSTOMER}),
        _aging,
        read_only=True,
    ),
    define_tool(
        "list_uninvoiced_shipments",
        "Sales-order lines that shipped but are not yet billed, with their value.",
        listing({}),
        _uninvoiced,
        read_only=True,
    ),
]

__all__ = ["OPEN", "TOOLS", "billed_units", "customer_invoice_view", "shown", "unbilled"]
