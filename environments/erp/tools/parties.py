"""What vendors and customers share: creation with a unique name, contact and terms edits,
activation, blocking with a reason, and balances of their open invoices.

Contract: a :class:`Party` names a collection (``vendors`` or ``customers``), its id prefix and
the invoices that make up its balance. :func:`create` refuses a name already used (``conflict``,
case-insensitive) and stores the record ``pending_approval``; :func:`update` writes the given
fields (``contactName``/``contactEmail``/``contactPhone`` go into ``contact``) and refuses an
empty or no-op update; :func:`set_status` moves a party to a new status with a reason, refusing
when it is already there. Each mutation leaves one audit row ``<kind>.<verb>``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from silo import Index, ToolError
from silo.toolkit.guards import Args, apply_changes, non_blank

from ..domain.documents import CLOSED_INVOICE_STATUSES, is_overdue, outstanding
from ..domain.money import round2
from ..state import mint_id
from .common import State, audit, fetch, require_status

CONTACT_FIELDS = {"contactName": "name", "contactEmail": "email", "contactPhone": "phone"}


@dataclass(frozen=True)
class Party:
    """A kind of trading partner."""

    kind: str
    collection: str
    prefix: str
    invoices: Index


VENDOR = Party("vendor", "vendors", "VEN", Index("vendorInvoices", "vendorId"))
CUSTOMER = Party("customer", "customers", "CUS", Index("customerInvoices", "customerId"))


def create(state: State, args: Args, party: Party, fields: Mapping[str, Any]) -> dict[str, Any]:
    """Store a new party ``pending_approval`` from ``args`` plus its own ``fields``."""
    name = non_blank(args["name"], "name")
    for other in state[party.collection].values():
        if other["name"].casefold() == name.casefold():
            raise ToolError(
                "conflict",
                f"{other['id']} is already named {other['name']}; update it instead",
                {"id": other["id"]},
            )
    record = {
        "id": mint_id(state, party.prefix),
        "name": name,
        **fields,
        "status": "pending_approval",
        "paymentTerms": args.get("paymentTerms", "NET_30"),
        "contact": {
            "name": args.get("contactName", ""),
            "email": args.get("contactEmail", ""),
            "phone": args.get("contactPhone", ""),
        },
        "statusReason": None,
    }
    state[party.collection][record["id"]] = record
    audit(state, args, f"{party.kind}.created", record)
    return record


def update(state: State, args: Args, party: Party, fields: Sequence[str]) -> dict[str, Any]:
    """Write the ``fields`` and contact fields given in ``args``; returns the record."""
    record = fetch(state, party.collection, args[f"{party.kind}Id"])
    updates = {name: args[name] for name in fields if name in args}
    contact = dict(record["contact"])
    for arg, key in CONTACT_FIELDS.items():
        if arg in args:
            contact[key] = args[arg]
    if any(arg in args for arg in CONTACT_FIELDS):
        updates["contact"] = contact
    if not updates:
        raise ToolError(
            "invalid_input",
            f"nothing to update; pass at least one of: {', '.join([*fields, *CONTACT_FIELDS])}",
        )
    diff = apply_changes(record, updates)
    audit(state, args, f"{party.kind}.updated", record, diff)
    return record


def set_status(
    state: State,
    args: Args,
    party: Party,
    status: str,
    allowed: Sequence[str],
    reason: str | None,
) -> dict[str, Any]:
    """Move a party from one of ``allowed`` to ``status`` with ``reason`` (None clears it)."""
    record = fetch(state, party.collection, args[f"{party.kind}Id"])
    require_status(record, allowed, f"made {status}")
    cleaned = non_blank(reason, "reason") if reason is not None else None
    previous = record["status"]
    record["status"] = status
    record["statusReason"] = cleaned
    verb = "activated" if status == "active" else status
    audit(state, args, f"{party.kind}.{verb}", record, {"from": previous, "reason": cleaned})
    return record


def balance(state: Mapping[str, Any], party: Party, party_id: str) -> dict[str, Any]:
    """Outstanding and overdue totals of a party's open invoices, with the invoices listed."""
    open_invoices = [
        invoice
        for invoice in party.invoices.rows(state, party_id)
        if invoice["status"] not in CLOSED_INVOICE_STATUSES
    ]
    overdue = [invoice for invoice in open_invoices if is_overdue(state, invoice)]
    return {
        f"{party.kind}Id": party_id,
        "outstanding": round2(sum(outstanding(invoice) for invoice in open_invoices)),
        "overdue": round2(sum(outstanding(invoice) for invoice in overdue)),
        "openInvoices": [
            {
                "id": invoice["id"],
                "status": invoice["status"],
                "dueDate": invoice.get("dueDate"),
                "outstanding": outstanding(invoice),
                "isOverdue": invoice in overdue,
            }
            for invoice in open_invoices
        ],
    }
