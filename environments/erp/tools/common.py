"""Guards and plumbing shared by every ERP tool.

Contract: the guards turn semantically bad input into :class:`silo.ToolError` refusals with the
conventional codes (``not_found`` for unknown ids, ``not_allowed`` for deactivated actors,
``invalid_state`` for a record whose status forbids the action, ``invalid_input`` for
impossible dates, blank text or empty updates, ``conflict`` for no-op updates and duplicates),
so tool bodies read as the happy path. Every guard runs before a tool writes anything, which
is how a refused call leaves the world untouched. :func:`page` is the one pagination,
:func:`filtered` the one equality filter of list tools, :func:`contains` the one
case-insensitive match of search tools; :func:`snapshot` detaches what a tool hands out.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date
from typing import Any

from silo import ToolError

from ..state import record_audit
from .schema import DEFAULT_LIMIT

Args = dict[str, Any]
Record = dict[str, Any]
State = dict[str, Any]
View = Callable[[Mapping[str, Any]], Mapping[str, Any]]

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
    record: Record | None = state[collection].get(record_id)
    if record is None:
        label, lister = LABELS[collection]
        raise ToolError(
            "not_found",
            f"no {label} has id {record_id}; look it up with {lister}",
            {"id": record_id},
        )
    return record


def acting_user(state: Mapping[str, Any], actor_id: str) -> Record:
    """The user performing a change; unknown or deactivated users are refused."""
    user: Record | None = state["users"].get(actor_id)
    if user is None:
        raise ToolError(
            "not_found",
            f"actorId {actor_id} is not a user; pass the id of the person acting (USR-001 ...)",
            {"id": actor_id},
        )
    if not user["active"]:
        raise ToolError(
            "not_allowed",
            f"{user['name']} ({actor_id}) is deactivated and cannot make changes; act as an "
            "active user",
            {"id": actor_id},
        )
    return user


def active_user(state: Mapping[str, Any], user_id: str, role: str) -> Record:
    """A user named in a field (``role`` says which): must exist and be active."""
    user = fetch(state, "users", user_id)
    if not user["active"]:
        raise ToolError(
            "not_allowed",
            f"{user['name']} ({user_id}) is deactivated and cannot be the {role}",
            {"id": user_id},
        )
    return user


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
    """A YYYY-MM-DD string as a date; impossible dates (2026-02-30) are refused."""
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        raise ToolError(
            "invalid_input", f"{field} {value!r} is not a real calendar date (YYYY-MM-DD)"
        ) from None


def non_blank(value: str, field: str) -> str:
    """``value`` without surrounding spaces; refuses a value that is only spaces."""
    cleaned = value.strip()
    if not cleaned:
        raise ToolError("invalid_input", f"{field} is blank; give it some text")
    return cleaned


def changes(args: Args, fields: Sequence[str]) -> Args:
    """The subset of ``fields`` present in ``args``; refuses an update that changes nothing."""
    found = {name: args[name] for name in fields if name in args}
    if not found:
        raise ToolError(
            "invalid_input", f"nothing to update; pass at least one of: {', '.join(fields)}"
        )
    return found


def apply_changes(record: Record, updates: Args) -> dict[str, Any]:
    """Write ``updates`` into ``record``; returns ``{field: {from, to}}`` for what differed.

    Refuses with ``conflict`` when every value already matches, so a no-op never reaches the
    audit log.
    """
    diff = {
        name: {"from": record.get(name), "to": value}
        for name, value in updates.items()
        if record.get(name) != value
    }
    if not diff:
        raise ToolError("conflict", "every value given already matches the record; nothing changed")
    for name in diff:
        record[name] = copy.deepcopy(updates[name])
    return diff


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
    record_audit(state, args["actorId"], action, entity_type, record["id"], details)


def search_term(args: Args) -> str:
    """The normalised ``query`` of a search tool; a blank query is refused."""
    term = str(args["query"]).strip().casefold()
    if not term:
        raise ToolError("invalid_input", "query is blank; pass some text to look for")
    return term


def contains(term: str, values: Iterable[Any]) -> bool:
    """Whether the normalised ``term`` occurs in any of the non-empty ``values``, any case."""
    return any(term in str(value).casefold() for value in values if value)


def snapshot(record: Mapping[str, Any]) -> Record:
    """A detached copy of a stored record, safe to hand out: editing it cannot touch the world."""
    return copy.deepcopy(dict(record))


def filtered(records: Iterable[Record], args: Args, fields: Sequence[str]) -> list[Record]:
    """The records equal to ``args`` on each of ``fields`` that ``args`` gives, in id order."""
    wanted = [(name, args[name]) for name in fields if name in args]
    return sorted_by_id(
        record for record in records if all(record.get(name) == value for name, value in wanted)
    )


def page(rows: Sequence[Mapping[str, Any]], args: Args, view: View | None = None) -> dict[str, Any]:
    """``{total, count, offset, results}`` for the window ``args`` asks for (copies of rows).

    ``view`` turns a stored record into what the agent sees; only the window is viewed.
    """
    limit = int(args.get("limit", DEFAULT_LIMIT))
    offset = int(args.get("offset", 0))
    window = [snapshot(view(row) if view else row) for row in rows[offset : offset + limit]]
    return {"total": len(rows), "count": len(window), "offset": offset, "results": window}


def sorted_by_id(records: Iterable[Record]) -> list[Record]:
    """Records in id order, so listings are stable."""
    return sorted(records, key=lambda record: record["id"])


def name_of(state: Mapping[str, Any], collection: str, record_id: str | None) -> str | None:
    """The ``name`` of a referenced record, or None when the reference is empty or dangling."""
    record = state[collection].get(record_id) if record_id else None
    return str(record["name"]) if record is not None else None
