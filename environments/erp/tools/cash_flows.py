"""Money movements: the payment record, customer receipts, payment history and the payment run.

Contract: :func:`new_payment` is the one builder of ``PAY`` records (vendor payments,
customer receipts, expense reimbursements), with allocations ``[{invoiceId, amount}]``.
``record_customer_payment`` books money received against an issued customer invoice; it
completes at once and may not exceed what is outstanding. ``list_payments_for_invoice`` lists
the payments of one vendor invoice, customer invoice or expense with the completed total.
``build_payment_run`` proposes, without writing, what to pay by a horizon, grouped by vendor
and net of payments already in flight. The approval life cycle of vendor payments is in
:mod:`.payments`.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, define_tool
from silo.toolkit.guards import Args
from silo.toolkit.results import snapshot
from silo.toolkit.schema import choice, flag, integer, obj, text

from ..domain.documents import apply_payment, outstanding
from ..domain.money import round2
from ..state import add_days, mint_id, today
from . import finance
from .common import WRITES, State, audit, fetch, page
from .schema import PAYMENT_METHODS, actor, amount, listing, record_id

METHOD = choice(PAYMENT_METHODS, "How the money moves (default bank_transfer).")

INVOICE_COLLECTIONS = {"VINV": "vendorInvoices", "CINV": "customerInvoices", "EXP": "expenses"}


def new_payment(
    state: State,
    args: Args,
    party: tuple[str, str],
    allocations: list[dict[str, Any]],
    *,
    direction: str = "outbound",
    status: str = "draft",
) -> dict[str, Any]:
    """Store a payment of ``allocations`` to ``party`` (type, id) made by ``args["actorId"]``."""
    done = status == "completed"
    payment = {
        "id": mint_id(state, "PAY"),
        "direction": direction,
        "partyType": party[0],
        "partyId": party[1],
        "method": args.get("method", "bank_transfer"),
        "status": status,
        "amount": round2(sum(share["amount"] for share in allocations)),
        "allocations": allocations,
        "createdAt": state["now"],
        "createdBy": args["actorId"],
        "approvedBy": None,
        "approvedAt": None,
        "completedAt": state["now"] if done else None,
        "failedAt": None,
        "failureReason": None,
        "retryOfPaymentId": None,
        "reference": args.get("reference", ""),
    }
    state["payments"][payment["id"]] = payment
    return payment


def _receive(state: State, args: Args) -> dict[str, Any]:
    invoice = finance.acted_on(
        state,
        args,
        "customerInvoices",
        "customerInvoiceId",
        ("issued", "partially_paid"),
        "paid (issue it first)",
    )
    pay = round2(args.get("amount", outstanding(invoice)))
    apply_payment(invoice, pay)
    allocations = [{"invoiceId": invoice["id"], "amount": pay}]
    payment = new_payment(
        state,
        args,
        ("customer", invoice["customerId"]),
        allocations,
        direction="inbound",
        status="completed",
    )
    audit(state, args, "payment.received", payment, {"invoiceId": invoice["id"], "amount": pay})
    return snapshot(payment)


def _for_invoice(state: State, args: Args) -> dict[str, Any]:
    invoice_id = args["invoiceId"]
    fetch(state, INVOICE_COLLECTIONS[invoice_id.split("-")[0]], invoice_id)
    rows = finance.payments_for(state, invoice_id)
    completed = sum(float(p["amount"]) for p in rows if p["status"] == "completed")
    return {"invoiceId": invoice_id, "completedTotal": round2(completed), **page(rows, args)}


def _payment_run(state: State, args: Args) -> dict[str, Any]:
    horizon = add_days(today(state), int(args.get("dueWithinDays", 14)))
    vendors: dict[str, dict[str, Any]] = {}
    for invoice in sorted(
        state["vendorInvoices"].values(), key=lambda inv: (inv["dueDate"], inv["id"])
    ):
        if invoice["status"] not in ("approved", "partially_paid") or invoice["dueDate"] > horizon:
            continue
        if args.get("vendorId", invoice["vendorId"]) != invoice["vendorId"]:
            continue
        pay = finance.payable(state, invoice)
        overdue = invoice["dueDate"] < today(state)
        if pay <= 0 or (overdue and not args.get("includeOverdue", True)):
            continue
        group = vendors.setdefault(
            invoice["vendorId"],
            {
                "vendorId": invoice["vendorId"],
                "vendorName": state["vendors"][invoice["vendorId"]]["name"],
                "total": 0.0,
                "invoices": [],
            },
        )
        group["invoices"].append(
            {
                "vendorInvoiceId": invoice["id"],
                "dueDate": invoice["dueDate"],
                "amount": pay,
                "isOverdue": overdue,
            }
        )
        group["total"] = round2(group["total"] + pay)
    groups = sorted(vendors.values(), key=lambda group: group["vendorId"])
    return {
        "asOf": today(state),
        "through": horizon,
        "vendors": groups,
        "total": round2(sum(group["total"] for group in groups)),
        "note": "Proposal only: raise each with create_vendor_payment.",
    }


TOOLS: list[Tool] = [
    WRITES.tool(
        "record_customer_payment",
        "Record money received from a customer against an issued invoice; completes at once. "
        "amount defaults to the full outstanding amount and may not exceed it.",
        obj(
            {
                "actorId": actor(),
                "customerInvoiceId": record_id("customer_invoice", "Invoice being paid."),
                "amount": amount("Amount received (default: everything outstanding)."),
                "method": METHOD,
                "reference": text("Remittance reference.", max_length=100),
            },
            ["actorId", "customerInvoiceId"],
        ),
        _receive,
    ),
    define_tool(
        "list_payments_for_invoice",
        "Every payment allocated to one vendor invoice, customer invoice or expense, with the "
        "total of the completed ones.",
        listing(
            {
                "invoiceId": {
                    "type": "string",
                    "pattern": r"^(VINV|CINV|EXP)-\d{3,6}$",
                    "description": "VINV-, CINV- or EXP- id.",
                }
            },
            ["invoiceId"],
        ),
        _for_invoice,
        read_only=True,
    ),
    define_tool(
        "build_payment_run",
        "Propose (without paying) what to pay: approved or part-paid vendor invoices due within "
        "the horizon, grouped by vendor, net of payments already in flight.",
        obj(
            {
                "dueWithinDays": integer("Horizon in days from today (default 14).", 0, 365, 14),
                "vendorId": record_id("vendor", "Only this vendor."),
                "includeOverdue": flag("Include invoices already overdue (default true).", True),
            }
        ),
        _payment_run,
        read_only=True,
    ),
]

__all__ = ["INVOICE_COLLECTIONS", "METHOD", "TOOLS", "new_payment"]
