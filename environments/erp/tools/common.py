"""Guards and plumbing shared by every ERP tool.

Contract: the guards turn semantically bad input into :class:`silo.ToolError` refusals with the
conventional codes (``not_found`` for unknown ids, ``not_allowed`` for deactivated actors,
``invalid_state`` for a record whose status forbids the action, ``invalid_input`` for
impossible dates, blank text or empty updates, ``conflict`` for no-op updates and duplicates),
so tool bodies read as the happy path. :data:`WRITES` owns the acting-user check and the audit
row. Every guard runs before a tool writes anything, which
is how a refused call leaves the world untouched. Tools take the generic readers and listing
helpers (blank text, empty or no-op updates, search terms, the equality filter, the
case-insensitive match, detached copies) from :mod:`silo.toolkit`; what names the ERP's
records, tools and clock is defined here, on top of the toolkit's guards. :func:`page` is the
one pagination, with the ERP's page size.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from silo import ToolError
from silo.toolkit.guards import Args, Record, find_record, require_active
from silo.toolkit.guards import parse_day as parse_any_day
from silo.toolkit.writes import Writes

from ..state import AUDIT
from .schema import PAGING, actor

State = dict[str, Any]

LABELS = {
    "departments": ("department", "list_departments"),
    "users": ("user", "list_users"),
    "vendors": ("vendor", "list_vendors"),
    "customers": ("customer", "list_customers"),
    "products": ("product", "list_products"),
    "warehouses": ("warehouse", "list_warehouses"),
    "inventory": ("stock record", "list_inventory"),
    "inventoryMovements": ("inventory movement", "list_inventory_movements"),
    "requisitions": ("requisition", "list_requisitions"),
    "approvals": ("approval", "list_approvals"),
    "rfqs": ("RFQ", "list_rfqs"),
    "quotations": ("quotation", "list_quotations"),
    "purchaseOrders": ("purchase order", "list_purchase_orders"),
    "goodsReceipts": ("goods receipt", "list_goods_receipts"),
    "receivingDiscrepancies": ("receiving discrepancy", "list_receiving_discrepancies"),
    "vendorInvoices": ("vendor invoice", "list_vendor_invoices"),
    "threeWayMatches": ("three-way match", "get_vendor_invoice"),
    "payments": ("payment", "list_payments"),
    "salesOrders": ("sales order", "list_sales_orders"),
    "fulfillments": ("fulfillment", "list_fulfillments"),
    "customerInvoices": ("customer invoice", "list_customer_invoices"),
    "expenses": ("expense", "list_expenses"),
    "budgets": ("budget", "list_budgets"),
}
"""What a record of each collection is called, and the tool that lists them."""


def fetch(state: Mapping[str, Any], collection: str, record_id: str) -> Record:
    """The record ``record_id`` of ``collection``, or a ``not_found`` refusal."""
    label, lister = LABELS[collection]
    return find_record(state, collection, record_id, label, lister)


WRITES = Writes(
    AUDIT,
    actor(),
    people="users",
    kind="user",
    hint="pass the id of the person acting (USR-001 ...)",
)
"""The ERP's write tools: ``actorId`` names an active user, and each change is audited.

The clock's two tools read their target time (and may refuse it) before the actor, so they keep
``define_tool`` and call :meth:`Writes.acting` where the check stands; making them
``WRITES.tool`` would change which refusal a doubly wrong call gets."""


def active_user(state: Mapping[str, Any], user_id: str, role: str) -> Record:
    """A user named in a field (``role`` says which): must exist and be active."""
    return require_active(fetch(state, "users", user_id), user_id, f"cannot be the {role}")


def require_status(record: Mapping[str, Any], allowed: Sequence[str], verb: str) -> None:
    """Refuse (``invalid_state``) unless ``record``'s status is one of ``allowed``."""
    if record["status"] not in allowed:
        raise ToolError(
            "invalid_state",
            f"{record['id']} is {record['status']} and cannot be {verb} (needs status "
            f"{' or '.join(allowed)})",
            {"id": record["id"], "status": record["status"]},
        )


def parse_day(value: str, field: str) -> date:
    """A YYYY-MM-DD string (or a timestamp's date) as a date; impossible dates are refused."""
    return parse_any_day(value, field, date_part=True)


def audit(
    state: State,
    args: Args,
    action: str,
    record: Mapping[str, Any],
    details: Mapping[str, Any] | None = None,
) -> None:
    """Record the audit row of a change made by ``args["actorId"]`` to ``record``.

    The entity type is the part of ``action`` before the dot (``vendor.blocked`` -> vendor).
    """
    entity_type = action.split(".", 1)[0]
    WRITES.audit(state, args, action, entity_type, record["id"], details)


page = PAGING.page
"""``page(rows, args, view=None)``: ``{total, count, offset, results}`` for the window ``args``
asks for (copies of rows); ``view`` turns a stored record into what the agent sees, and only
the window is viewed."""


def name_of(state: Mapping[str, Any], collection: str, record_id: str | None) -> str | None:
    """The ``name`` of a referenced record, or None when the reference is empty or dangling."""
    record = state[collection].get(record_id) if record_id else None
    return str(record["name"]) if record is not None else None
