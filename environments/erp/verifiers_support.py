"""World questions several ERP verifiers ask, answered with the domain's own rules.

Contract: pure reads of a world snapshot. :func:`row` is a record or an empty mapping (so a
missing record fails its checks instead of raising); overdue-ness and outstanding amounts come
from the domain helpers the tools use, so a verifier and a tool can never disagree about which
invoice is overdue; :func:`invoice_paid_checks` is the "paid in full through completed payments"
group of checks shared by the payment tasks.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta
from typing import Any

from silo import Check, check, optional

from .domain.documents import is_overdue, outstanding
from .domain.money import round2
from .grading import amount, completed_payments_for, show

__all__ = [
    "World",
    "invoice_paid_checks",
    "invoices_due_within",
    "largest_overdue_customer",
    "row",
]

World = Mapping[str, Any]
_EMPTY: Mapping[str, Any] = {}
_PAYABLE = ("approved", "partially_paid")


def row(world: World, collection: str, row_id: Any) -> Mapping[str, Any]:
    """The record ``row_id`` of ``collection``, or an empty mapping when there is none."""
    found = (world.get(collection) or {}).get(row_id) if isinstance(row_id, str) else None
    return found if isinstance(found, Mapping) else _EMPTY


def _day(value: Any) -> date | None:
    text = str(value or "")[:10]
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def largest_overdue_customer(world: World) -> tuple[str, float]:
    """The customer owing the most on overdue invoices, and that overdue balance."""
    balances: dict[str, float] = {}
    for invoice in (world.get("customerInvoices") or {}).values():
        if is_overdue(world, invoice):
            customer = str(invoice.get("customerId"))
            balances[customer] = round2(balances.get(customer, 0.0) + outstanding(invoice))
    if not balances:
        return "", 0.0
    return max(balances.items(), key=lambda item: (item[1], item[0]))


def invoices_due_within(world: World, days: int) -> list[Mapping[str, Any]]:
    """Approved (or part-paid) vendor invoices with money owed, due from today to ``days`` on."""
    today = _day(world.get("now"))
    if today is None:
        return []
    horizon = today + timedelta(days=days)
    due: list[Mapping[str, Any]] = []
    for invoice in (world.get("vendorInvoices") or {}).values():
        when = _day(invoice.get("dueDate"))
        if (
            invoice.get("status") in _PAYABLE
            and outstanding(invoice) > 0
            and when is not None
            and today <= when <= horizon
        ):
            due.append(invoice)
    return sorted(due, key=lambda invoice: str(invoice.get("id")))


def invoice_paid_checks(final: World, invoice_id: str | None, found: str) -> list[Check]:
    """Required: paid, amount paid = total, completed payments = total; optional: nothing owed.

    ``found`` says how the invoice was identified, for the first check's detail.
    """
    invoice = row(final, "vendorInvoices", invoice_id)
    total = round2(amount(invoice.get("total")))
    paid = completed_payments_for(final, invoice_id) if invoice_id else 0.0
    prefix = f"{found}; " if found else ""
    return [
        check(
            f"{invoice_id or 'The invoice'} is paid",
            bool(invoice) and invoice.get("status") == "paid",
            f"{prefix}status = {show(invoice.get('status'))}",
        ),
        check(
            "The full amount was paid",
            bool(invoice) and round2(amount(invoice.get("amountPaid"))) == total,
            f"paid {show(invoice.get('amountPaid'))} of {show(total)}",
        ),
        check(
            "Completed payments cover the full amount",
            bool(invoice) and paid == total,
            f"completed payments = {show(paid)} of {show(total)}",
        ),
        optional(
            "Nothing remains outstanding",
            bool(invoice) and outstanding(invoice) == 0,
            f"outstanding = {show(outstanding(invoice)) if invoice else 'n/a'}",
        ),
    ]
